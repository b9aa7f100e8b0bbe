"""The patient's sex: an X-linked recessive disease is lowered (not excluded) for a female patient,
only through modes of inheritance that stay visible when sources are left out."""

from __future__ import annotations

import pytest

from meddiag.diagnosis.index import X_RECESSIVE, PhenotypeIndex
from meddiag.diagnosis.ranking import DEFAULT_PARAMS, rank_diseases
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Relation
from tests.diagnosis.conftest import ID, MACROCEPHALY, NAMES, relations

AUTOSOMAL_DOMINANT = "HP:0000006"
AUTOSOMAL_RECESSIVE = "HP:0000007"


def inherits(disease: str, mode: str, *sources: str) -> Relation:
    return Relation(subject=disease, predicate="HAS_INHERITANCE", object=mode, sources=list(sources))


def with_inheritance() -> list[Relation]:
    return [
        *relations(),
        inherits("OMIM:2", X_RECESSIVE, "OMIM:2"),  # X-linked recessive only
        inherits("OMIM:1", X_RECESSIVE, "PMID:1"),  # X-linked recessive, or dominant per PMID:2
        inherits("OMIM:1", AUTOSOMAL_DOMINANT, "PMID:2"),
        inherits("OMIM:3", X_RECESSIVE, "OMIM:3"),  # pooled with ORPHA:10, curated recessive
        inherits("ORPHA:10", AUTOSOMAL_RECESSIVE, "ORPHA:10"),
    ]


@pytest.fixture(scope="module")
def index(tiny_ontology: Ontology) -> PhenotypeIndex:
    return PhenotypeIndex(tiny_ontology, with_inheritance(), NAMES)


def x_only(index: PhenotypeIndex, *left_out: str) -> dict[str, tuple[str, ...]]:
    found = index.x_recessive_only(frozenset(left_out))
    return {index.profiles[p]: sources for p, sources in found.items()}


def test_only_diseases_whose_every_visible_mode_is_x_linked_recessive_count(index: PhenotypeIndex) -> None:
    assert x_only(index) == {"OMIM:2": ("OMIM:2",)}
    # Leaving out the source of OMIM:1's dominant mode leaves it X-linked recessive only.
    assert x_only(index, "PMID:2") == {"OMIM:2": ("OMIM:2",), "OMIM:1": ("PMID:1",)}
    # A mode resting only on a left-out source is hidden like any other fact.
    assert x_only(index, "PMID:1") == {"OMIM:2": ("OMIM:2",)}
    assert x_only(index, "OMIM:2") == {}


def test_a_pooled_equivalent_with_another_mode_keeps_the_profile_unpenalised(
    tiny_ontology: Ontology, index: PhenotypeIndex
) -> None:
    assert "OMIM:3" not in x_only(index)
    unpooled = PhenotypeIndex(tiny_ontology, with_inheritance(), NAMES, pool_equivalents=False)
    assert "OMIM:3" in x_only(unpooled)


def scores(index: PhenotypeIndex, sex: str | None, **params: float) -> dict[str, float]:
    ranked = rank_diseases(index, [MACROCEPHALY, ID], sex=sex, params=DEFAULT_PARAMS.with_(**params))
    return {r.id: r.score for r in ranked}


def test_a_female_patient_lowers_an_x_linked_recessive_disease_by_the_penalty(index: PhenotypeIndex) -> None:
    male, female, unknown = scores(index, "male"), scores(index, "female"), scores(index, None)
    assert male == unknown
    assert female["OMIM:2"] == pytest.approx(male["OMIM:2"] - DEFAULT_PARAMS.female_x_recessive)
    assert {d: s for d, s in female.items() if d != "OMIM:2"} == {
        d: s for d, s in male.items() if d != "OMIM:2"
    }
    assert scores(index, "female", female_x_recessive=0.0) == male


def test_the_penalty_lowers_but_never_removes_the_disease(index: PhenotypeIndex) -> None:
    plain = rank_diseases(index, [MACROCEPHALY, ID], sex="male")
    assert plain[0].id == "OMIM:2"
    lowered = rank_diseases(
        index, [MACROCEPHALY, ID], sex="female", params=DEFAULT_PARAMS.with_(female_x_recessive=100.0)
    )
    assert lowered[0].id != "OMIM:2" and lowered[-1].id == "OMIM:2"


def test_the_reason_is_named_against_the_disease_with_its_source(index: PhenotypeIndex) -> None:
    ranked = {r.id: r for r in rank_diseases(index, [MACROCEPHALY, ID], sex="female")}
    (conflict,) = [c for c in ranked["OMIM:2"].against if c.kind == "sex"]
    assert conflict.sources == ("OMIM:2",) and conflict.finding == X_RECESSIVE
    entry = ranked["OMIM:2"].as_entry()
    assert any("X-linked recessive inheritance in a female patient" in a for a in entry.against)
    assert "OMIM:2" in ranked["OMIM:2"].sources
    assert not any(c.kind == "sex" for c in ranked["OMIM:1"].against)
    male = {r.id: r for r in rank_diseases(index, [MACROCEPHALY, ID], sex="male")}
    assert not any(c.kind == "sex" for c in male["OMIM:2"].against)
