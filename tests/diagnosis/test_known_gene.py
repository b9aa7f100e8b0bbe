"""A disease with no known causal gene is lowered (not excluded), through gene facts that stay
visible when sources are left out; a knowledge base without any gene fact lowers nothing."""

from __future__ import annotations

import pytest

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.diagnosis.ranking import DEFAULT_PARAMS, rank_diseases, score_all
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Relation
from tests.diagnosis.conftest import ID, MACROCEPHALY, NAMES, SEIZURE, has, relations

GENES_SOURCE = "HPO:genes_to_phenotype"


def gene(disease: str, gene_id: str, *sources: str) -> Relation:
    return Relation(subject=disease, predicate="ASSOCIATED_GENE", object=gene_id, sources=list(sources))


def with_genes() -> list[Relation]:
    return [
        *relations(),
        gene("OMIM:1", "NCBIGene:1", GENES_SOURCE),
        gene("ORPHA:10", "NCBIGene:3", "ORPHA:10"),  # pooled into OMIM:3's profile
        # OMIM:2 has none
    ]


@pytest.fixture(scope="module")
def index(tiny_ontology: Ontology) -> PhenotypeIndex:
    return PhenotypeIndex(tiny_ontology, with_genes(), NAMES)


def without(index: PhenotypeIndex, *left_out: str) -> set[str]:
    return {index.profiles[p] for p, flag in enumerate(index.without_gene(frozenset(left_out))) if flag}


def test_profiles_without_a_visible_gene(tiny_ontology: Ontology, index: PhenotypeIndex) -> None:
    assert without(index) == {"OMIM:2"}
    # A pooled equivalent's gene counts for the whole profile.
    unpooled = PhenotypeIndex(tiny_ontology, with_genes(), NAMES, pool_equivalents=False)
    assert without(unpooled) == {"OMIM:2", "OMIM:3"}
    # A gene fact resting only on a left-out source is hidden like any other fact.
    assert without(index, GENES_SOURCE) == {"OMIM:1", "OMIM:2"}
    assert without(index, "PMID:1") == {"OMIM:2"}


def test_a_knowledge_base_without_genes_lowers_nothing(tiny_ontology: Ontology) -> None:
    plain = PhenotypeIndex(tiny_ontology, relations(), NAMES)
    assert not plain.without_gene().any()
    assert list(score_all(plain, [MACROCEPHALY, ID])) == list(
        score_all(plain, [MACROCEPHALY, ID], params=DEFAULT_PARAMS.with_(no_gene_penalty=0.0))
    )


def test_the_penalty_lowers_only_diseases_without_a_gene(index: PhenotypeIndex) -> None:
    on = score_all(index, [MACROCEPHALY, ID])
    off = score_all(index, [MACROCEPHALY, ID], params=DEFAULT_PARAMS.with_(no_gene_penalty=0.0))
    diff = {index.profiles[p]: float(off[p] - on[p]) for p in range(len(on))}
    assert diff["OMIM:2"] == pytest.approx(DEFAULT_PARAMS.no_gene_penalty)
    assert diff["OMIM:1"] == 0.0 and diff["OMIM:3"] == 0.0


def test_the_reason_is_named_against_the_disease_and_it_stays_ranked(index: PhenotypeIndex) -> None:
    heavy = DEFAULT_PARAMS.with_(no_gene_penalty=100.0)
    ranked = rank_diseases(index, [MACROCEPHALY, ID], params=heavy)
    assert ranked[-1].id == "OMIM:2"  # lowered, not removed
    by_id = {r.id: r for r in ranked}
    assert [c.kind for c in by_id["OMIM:2"].against] == ["no_gene"]
    assert "no gene known to cause it" in by_id["OMIM:2"].as_entry().against
    assert not any(c.kind == "no_gene" for c in by_id["OMIM:1"].against)
    off = rank_diseases(index, [MACROCEPHALY, ID], params=DEFAULT_PARAMS.with_(no_gene_penalty=0.0))
    assert off[0].id == "OMIM:2" and not off[0].against


def test_the_prior_separates_the_phenotype_fit_from_the_penalty(index: PhenotypeIndex) -> None:
    on = {r.id: r for r in rank_diseases(index, [MACROCEPHALY, ID])}
    off = {
        r.id: r
        for r in rank_diseases(index, [MACROCEPHALY, ID], params=DEFAULT_PARAMS.with_(no_gene_penalty=0.0))
    }
    assert on["OMIM:2"].prior == pytest.approx(-DEFAULT_PARAMS.no_gene_penalty)
    assert on["OMIM:2"].score - on["OMIM:2"].prior == pytest.approx(off["OMIM:2"].score)
    assert on["OMIM:1"].prior == 0.0


def test_a_disease_scored_through_its_series_bears_its_own_penalty(tiny_ontology: Ontology) -> None:
    """OMIM:12 shows nothing once PMID:9 is left out and borrows OMIM:11's fit; having no gene
    it also loses the penalty, so its score minus its prior is the borrowed fit."""
    rels = [
        has("OMIM:11", SEIZURE, 0.9, "OMIM:11"),
        has("OMIM:12", SEIZURE, 0.9, "PMID:9"),
        *(
            Relation(subject=d, predicate="IS_A", object="MONDO:0000900", sources=["MONDO"])
            for d in ("OMIM:11", "OMIM:12")
        ),
        gene("OMIM:11", "NCBIGene:11", GENES_SOURCE),
    ]
    index = PhenotypeIndex(tiny_ontology, rels)
    hidden = frozenset({"PMID:9"})
    ranked = {r.id: r for r in rank_diseases(index, [SEIZURE], exclude_sources=hidden)}
    lender, empty = ranked["OMIM:11"], ranked["OMIM:12"]
    assert empty.series == "OMIM:11" and empty.prior == -DEFAULT_PARAMS.no_gene_penalty
    assert empty.score - empty.prior == pytest.approx(lender.score, abs=1e-5)
    assert empty.score < lender.score
