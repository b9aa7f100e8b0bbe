from __future__ import annotations

import pytest

from meddiag.knowledge.annotations import (
    parse_frequency,
    parse_gene_diseases,
    parse_hpoa,
    scan_hpoa,
    split_references,
)
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.mondo import MondoTerm, link_mondo, parse_mondo
from meddiag.knowledge.sources import SourceFiles
from tests.fixtures import sources as fx


@pytest.mark.parametrize(
    ("raw", "value", "label"),
    [
        ("HP:0040281", 0.895, "very frequent"),
        ("HP:0040280", 1.0, "obligate"),
        ("3/4", 0.75, "3/4"),
        ("0/5", 0.0, "0/5"),
        ("40%", 0.4, "40%"),
        ("12.5%", 0.125, "12.5%"),
        ("", None, ""),
    ],
)
def test_frequency_notations_normalise_to_a_fraction(raw: str, value: float | None, label: str) -> None:
    parsed_value, parsed_label = parse_frequency(raw)
    assert parsed_value == pytest.approx(value) if value is not None else parsed_value is None
    assert parsed_label == label


@pytest.mark.parametrize("raw", ["often", "1/0", "HP:0000118"])
def test_unknown_frequency_notation_is_rejected(raw: str) -> None:
    with pytest.raises(ValueError):
        parse_frequency(raw)


def test_references_split_on_semicolons() -> None:
    assert split_references("OMIM:154700; PMID:2") == ["OMIM:154700", "PMID:2"]
    assert split_references("PMID:1") == ["PMID:1"]
    assert split_references(" ") == []


def test_hpoa_rows_keep_their_fields_and_skip_unreadable_frequencies(sources: SourceFiles) -> None:
    ann = parse_hpoa(sources.phenotype_hpoa)
    assert ann.version == "2025-01-16"
    assert ann.skipped == 1  # the "often" row
    assert len(ann.rows) == len(fx._ROWS) - 1
    negated = [r for r in ann.rows if r.negated]
    assert [(r.disease_id, r.hpo_id) for r in negated] == [(fx.MARFAN, fx.SEIZURE)]
    tall = next(r for r in ann.rows if r.hpo_id == fx.TALL)
    assert tall.references == ["OMIM:154700", "PMID:2"]
    assert tall.frequency == pytest.approx(0.895) and tall.frequency_label == "very frequent"
    assert {r.aspect for r in ann.rows} == {"P", "I", "C"}


def test_hpoa_can_be_limited_to_some_diseases(sources: SourceFiles) -> None:
    ann = parse_hpoa(sources.phenotype_hpoa, {fx.LDS})
    assert {r.disease_id for r in ann.rows} == {fx.LDS}
    assert ann.diseases == {fx.LDS: "Loeys-Dietz syndrome 1"}


def test_scan_lists_every_disease_and_only_positive_phenotypes(sources: SourceFiles) -> None:
    index = scan_hpoa(sources.phenotype_hpoa)
    assert set(index.names) == {fx.MARFAN, fx.MARFAN_ORPHA, fx.LDS, fx.HCU, fx.DECIPHER}
    assert fx.SEIZURE not in index.phenotypes[fx.MARFAN]  # NOT row
    assert fx.AD not in index.phenotypes[fx.MARFAN]  # aspect I
    assert fx.ARACHNODACTYLY in index.phenotypes[fx.MARFAN]


def test_obsolete_and_alternative_ids_resolve_to_current_terms(sources: SourceFiles) -> None:
    onto = Ontology.from_obo(sources.hp_obo)
    assert onto.version == "2025-01-16"
    assert onto.resolve("HP:0001084") == fx.ECTOPIA_LENTIS
    assert onto.resolve("HP:0009999") == fx.TALL
    assert "HP:0009999" not in onto.terms
    assert onto.resolve("HP:1234567") is None
    assert "HP:0000118" in onto.ancestors(fx.ARACHNODACTYLY)


def test_synonyms_include_lay_synonyms(sources: SourceFiles) -> None:
    term = Ontology.from_obo(sources.hp_obo).terms[fx.ARACHNODACTYLY]
    assert term.lay_synonyms == ["Spider fingers"]
    assert set(term.synonyms) == {"Long, slender fingers", "Spider fingers"}


def test_gene_disease_pairs_are_distinct(sources: SourceFiles) -> None:
    pairs = parse_gene_diseases(sources.genes_to_phenotype)
    assert sorted((p.gene_id, p.symbol, p.disease_id) for p in pairs) == sorted(
        [
            ("NCBIGene:2200", "FBN1", fx.MARFAN),
            ("NCBIGene:2200", "FBN1", fx.MARFAN_ORPHA),
            ("NCBIGene:7048", "TGFBR2", fx.LDS),
            ("NCBIGene:875", "CBS", fx.HCU),
        ]
    )


def test_mondo_links_by_label_then_synonym_and_never_ambiguously(sources: SourceFiles) -> None:
    mondo = parse_mondo(sources.mondo_json_zst)
    assert "MONDO:0000102" not in mondo  # deprecated
    assert mondo[fx.MONDO_MARFAN].ancestors[fx.MONDO_MARFAN_RELATED] == 1
    links = link_mondo(mondo, scan_hpoa(sources.phenotype_hpoa).names)
    assert links.by_disease == {
        fx.MARFAN: fx.MONDO_MARFAN,
        fx.MARFAN_ORPHA: fx.MONDO_MARFAN,
        fx.LDS: fx.MONDO_LDS,
        fx.HCU: fx.MONDO_HCU,
    }
    assert links.how == {fx.MARFAN: "label", fx.MARFAN_ORPHA: "label", fx.LDS: "label", fx.HCU: "synonym"}
    assert (links.count("label"), links.count("synonym")) == (3, 1)


def _terms(*labels: tuple[str, str, list[str]]) -> dict[str, MondoTerm]:
    return {mid: MondoTerm(id=mid, label=label, synonyms=synonyms) for mid, label, synonyms in labels}


def test_mondo_links_names_worded_in_another_order_or_with_roman_numerals() -> None:
    mondo = _terms(
        ("MONDO:1", "Loeys-Dietz syndrome type 3", []),
        ("MONDO:2", "primary ciliary dyskinesia 17", []),
        ("MONDO:3", "Usher syndrome type 2D", []),
        ("MONDO:4", "Usher syndrome type 2C", []),
        ("MONDO:5", "factor V deficiency", []),
        ("MONDO:6", "X-linked hypophosphatemia", []),
    )
    names = {
        "OMIM:1": "Loeys-Dietz syndrome 3",
        "OMIM:2": "Ciliary dyskinesia, primary, 17",
        "OMIM:3": "Usher syndrome, type IID",
        "OMIM:5": "Factor V deficiency",
        "OMIM:6": "Hypophosphatemia, X-linked",
        "OMIM:7": "Loeys-Dietz syndrome 5",  # another member of the series: never linked to type 3
    }
    links = link_mondo(mondo, names)
    assert links.by_disease == {
        "OMIM:1": "MONDO:1",
        "OMIM:2": "MONDO:2",
        "OMIM:3": "MONDO:3",
        "OMIM:5": "MONDO:5",
        "OMIM:6": "MONDO:6",
    }
    assert links.how["OMIM:5"] == "label" and links.how["OMIM:1"] == "reordered"


def test_mondo_links_descriptive_words_only_when_no_other_name_reads_the_same() -> None:
    mondo = _terms(
        ("MONDO:1", "autosomal recessive nonsyndromic hearing loss 102", []),
        ("MONDO:2", "hypertrophic cardiomyopathy 3", []),
        ("MONDO:3", "intellectual disability, X-linked 23", []),
        ("MONDO:4", "autosomal recessive nonsyndromic hearing loss 2", []),
        ("MONDO:5", "trisomy", []),
        ("MONDO:6", "multiple osteochondromas", []),
        ("MONDO:8", "intellectual disability, autosomal dominant 58", []),
    )
    names = {
        "OMIM:1": "Deafness, autosomal recessive 102",
        "OMIM:2": "Cardiomyopathy, familial hypertrophic, 3",
        "OMIM:3": "Mental retardation, X-linked 23",
        "OMIM:4": "Deafness, X-linked 2",  # the mode of inheritance counts
        "ORPHA:5": "Trisomy X syndrome",  # so does a letter
        "OMIM:6": "Osteochondromas, multiple, familial",
        "OMIM:7": "Multiple osteochondromas, isolated",  # reads as OMIM:6 does: neither is linked
        "OMIM:8": "Intellectual developmental disorder, autosomal dominant 58",  # OMIM's newer wording
    }
    links = link_mondo(mondo, names)
    assert links.by_disease == {
        "OMIM:1": "MONDO:1",
        "OMIM:2": "MONDO:2",
        "OMIM:3": "MONDO:3",
        "OMIM:8": "MONDO:8",
    }
    assert set(links.how.values()) == {"descriptive"}
