"""The tiny knowledge base assembled in full: entities, relations and their provenance."""

from __future__ import annotations

from pathlib import Path

import pytest

from meddiag.knowledge.assemble import assemble_kb
from meddiag.knowledge.model import KnowledgeBase, Relation
from tests.fixtures import sources as fx
from tests.fixtures.sources import tiny_sources


def _rel(kb: KnowledgeBase, subject: str, predicate: str, obj: str) -> Relation:
    found = [r for r in kb.relations if (r.subject, r.predicate, r.object) == (subject, predicate, obj)]
    assert len(found) == 1, f"expected one {subject} {predicate} {obj}, found {len(found)}"
    return found[0]


def _has(kb: KnowledgeBase, subject: str, predicate: str, obj: str) -> bool:
    return any((r.subject, r.predicate, r.object) == (subject, predicate, obj) for r in kb.relations)


def test_a_fact_stated_by_two_references_is_one_relation_citing_both(full_kb: KnowledgeBase) -> None:
    rel = _rel(full_kb, fx.MARFAN, "HAS_PHENOTYPE", fx.ARACHNODACTYLY)
    assert rel.sources == ["PMID:1", "OMIM:154700"]
    assert rel.frequency == pytest.approx((0.75 + 0.895) / 2)
    assert rel.frequency_label == "very frequent"
    assert rel.evidence == "PCS,TAS"
    assert rel.source_file == "phenotype.hpoa"


def test_a_fact_from_one_publication_cites_only_it(full_kb: KnowledgeBase) -> None:
    rel = _rel(full_kb, fx.MARFAN, "HAS_PHENOTYPE", fx.ECTOPIA_LENTIS)
    assert rel.sources == ["PMID:1"]
    assert rel.frequency == pytest.approx(0.4) and rel.frequency_label == "40%"


def test_annotations_with_outdated_term_ids_land_on_the_current_term(full_kb: KnowledgeBase) -> None:
    assert "PMID:3" in _rel(full_kb, fx.MARFAN, "HAS_PHENOTYPE", fx.TALL).sources  # obsolete id
    assert _has(full_kb, fx.LDS, "HAS_PHENOTYPE", fx.ECTOPIA_LENTIS)  # alt id
    assert not any(r.object in ("HP:0009999", "HP:0001084") for r in full_kb.relations)


def test_not_rows_become_not_has_phenotype(full_kb: KnowledgeBase) -> None:
    assert _rel(full_kb, fx.MARFAN, "NOT_HAS_PHENOTYPE", fx.SEIZURE).sources == ["OMIM:154700"]
    assert not _has(full_kb, fx.MARFAN, "HAS_PHENOTYPE", fx.SEIZURE)


def test_inheritance_and_onset_come_from_their_aspects(full_kb: KnowledgeBase) -> None:
    assert _rel(full_kb, fx.LDS, "HAS_INHERITANCE", fx.AD).sources == ["PMID:4"]
    assert _has(full_kb, fx.HCU, "HAS_INHERITANCE", fx.AR)
    assert _has(full_kb, fx.MARFAN, "HAS_ONSET", fx.CHILDHOOD_ONSET)
    # "Progressive" is a clinical course, not an onset
    assert not any(r.object == fx.PROGRESSIVE for r in full_kb.relations)


def test_gene_relations_cite_the_gene_file(full_kb: KnowledgeBase) -> None:
    rel = _rel(full_kb, fx.MARFAN, "ASSOCIATED_GENE", "NCBIGene:2200")
    assert rel.sources == ["HPO:genes_to_phenotype"]
    assert rel.source_file == "genes_to_phenotype.txt"


def test_diseases_are_equivalent_to_their_mondo_class_and_to_each_other(full_kb: KnowledgeBase) -> None:
    assert _rel(full_kb, fx.MARFAN, "EQUIVALENT_TO", fx.MONDO_MARFAN).evidence == "label match"
    assert _rel(full_kb, fx.HCU, "EQUIVALENT_TO", fx.MONDO_HCU).evidence == "synonym match"
    assert _has(full_kb, fx.MARFAN, "EQUIVALENT_TO", fx.MARFAN_ORPHA)
    assert not any(r.subject == fx.DECIPHER and r.predicate == "EQUIVALENT_TO" for r in full_kb.relations)


def test_is_a_links_phenotypes_and_places_diseases_under_mondo_classes(full_kb: KnowledgeBase) -> None:
    assert _rel(full_kb, fx.ARACHNODACTYLY, "IS_A", "HP:0000924").sources == ["HPO"]
    assert _has(full_kb, fx.MARFAN, "IS_A", fx.MONDO_MARFAN_RELATED)
    assert _has(full_kb, fx.MONDO_MARFAN, "IS_A", fx.MONDO_MARFAN_RELATED)
    # "syndromic disease" sits right under the root, yet it is where MONDO files Marfan
    # syndrome: a direct parent stays; "human disease", two levels up, is too general
    assert _has(full_kb, fx.MARFAN, "IS_A", "MONDO:0002254")
    assert not any(r.object == "MONDO:0700096" for r in full_kb.relations)


def test_every_relation_joins_two_entities(full_kb: KnowledgeBase) -> None:
    ids = {e.id for e in full_kb.entities}
    assert all(r.subject in ids and r.object in ids for r in full_kb.relations)
    assert full_kb.stats["relations_dropped_dangling"] == 0


def test_entities_are_typed_described_and_sourced(full_kb: KnowledgeBase) -> None:
    by_id = {e.id: e for e in full_kb.entities}
    marfan = by_id[fx.MARFAN]
    assert marfan.type == "Disease"
    assert marfan.description.startswith("A disorder of the connective tissue")
    assert marfan.xrefs == [fx.MONDO_MARFAN, fx.MARFAN_ORPHA]
    assert "MFS" in marfan.synonyms
    assert by_id[fx.DECIPHER].description == "" and by_id[fx.DECIPHER].sources == ["HPO"]
    assert by_id[fx.ARACHNODACTYLY].type == "Phenotype"
    assert "Spider fingers" in by_id[fx.ARACHNODACTYLY].synonyms
    assert by_id[fx.AD].type == "Inheritance"
    assert by_id[fx.CHILDHOOD_ONSET].type == "Onset"
    assert (by_id["NCBIGene:2200"].type, by_id["NCBIGene:2200"].name) == ("Gene", "FBN1")
    assert by_id[fx.MONDO_MARFAN_RELATED].type == "DiseaseClass"
    assert by_id[fx.MONDO_MARFAN].xrefs == [fx.MARFAN, fx.MARFAN_ORPHA]
    assert "MONDO:0000001" not in by_id and "HP:0040281" not in by_id  # root class, frequency term
    assert all(e.sources for e in full_kb.entities)


def test_versions_and_stats_describe_the_build(full_kb: KnowledgeBase) -> None:
    assert full_kb.versions == {"hpo": "2025-01-16", "hpo_annotations": "2025-01-16", "mondo": "v2026-05-05"}
    stats = full_kb.stats
    assert (stats["mondo_links_by_label"], stats["mondo_links_by_synonym"]) == (3, 1)
    assert stats["mondo_links_by_reordered"] == stats["mondo_links_by_descriptive"] == 0
    assert stats["entities_Disease"] == 5
    assert stats["relations"] == len(full_kb.relations)
    assert stats["annotation_rows_skipped"] == 1


def test_the_assembled_knowledge_base_validates(full_kb: KnowledgeBase) -> None:
    # Assembly may skip validation for speed; the result must still be a valid model.
    again = KnowledgeBase.model_validate(full_kb.model_dump())
    assert again == full_kb


def test_a_name_written_in_capitals_only_is_shown_in_its_mondo_casing(tmp_path: Path) -> None:
    sources = tiny_sources(tmp_path)
    hpoa = sources.phenotype_hpoa.read_text(encoding="utf-8")
    sources.phenotype_hpoa.write_text(
        hpoa.replace("Loeys-Dietz syndrome 1", "LOEYS-DIETZ SYNDROME 1"), encoding="utf-8"
    )
    kb = assemble_kb(sources, "full")
    assert next(e for e in kb.entities if e.id == fx.LDS).name == "Loeys-Dietz syndrome 1"
    assert _rel(kb, fx.LDS, "EQUIVALENT_TO", fx.MONDO_LDS).evidence == "label match"
