"""The patient's onset in the ranking: a disease whose visible curated onsets all lie far from
it is lowered by `onset_weight` times the gap, named under "against" with its sources, and an
onset fact resting only on a left-out source is hidden like any other."""

from __future__ import annotations

import pytest

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.diagnosis.onset import onset_at, onset_of_class
from meddiag.diagnosis.ranking import DEFAULT_PARAMS, rank_diseases
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Relation
from meddiag.schema import Onset
from tests.diagnosis.conftest import ID, MACROCEPHALY, NAMES, relations

INFANTILE, ADULT, CONGENITAL = "HP:0003593", "HP:0003581", "HP:0003577"
PARAMS = DEFAULT_PARAMS.with_(sibling_prior=0.0)  # no series in the fixture's scores


def begins(disease: str, onset: str, *sources: str) -> Relation:
    return Relation(subject=disease, predicate="HAS_ONSET", object=onset, sources=list(sources))


@pytest.fixture(scope="module")
def index(tiny_ontology: Ontology) -> PhenotypeIndex:
    return PhenotypeIndex(
        tiny_ontology,
        [
            *relations(),
            begins("OMIM:1", INFANTILE, "OMIM:1"),
            begins("OMIM:2", ADULT, "PMID:5"),  # adult onset, or congenital per PMID:6
            begins("OMIM:2", CONGENITAL, "PMID:6"),
            begins("ORPHA:10", ADULT, "ORPHA:10"),  # pooled into OMIM:3's profile
            begins("OMIM:1", "HP:4000040", "OMIM:1"),  # puerperal onset: no age, never compared
        ],
        NAMES,
    )


def infantile() -> Onset:
    found = onset_of_class(INFANTILE)
    assert found is not None
    return found


def gaps(index: PhenotypeIndex, onset: Onset, *left_out: str) -> dict[str, float]:
    return dict(zip(index.profiles, index.onset_gaps(onset, frozenset(left_out)).tolist(), strict=True))


def test_each_profile_is_as_far_as_its_nearest_visible_curated_onset(index: PhenotypeIndex) -> None:
    found = gaps(index, infantile())
    assert found["OMIM:1"] == 0.0  # infantile as curated
    assert 0 < found["OMIM:2"] < found["OMIM:3"]  # congenital is near infancy, adult onset far
    # leaving out the congenital fact's source leaves OMIM:2 adult onset only
    assert gaps(index, infantile(), "PMID:6")["OMIM:2"] == pytest.approx(found["OMIM:3"])
    # with both its onset facts hidden, OMIM:2 shows no onset, which says nothing
    assert gaps(index, infantile(), "PMID:5", "PMID:6")["OMIM:2"] == 0.0


def scores(index: PhenotypeIndex, onset: Onset | None, *left_out: str, **params: float) -> dict[str, float]:
    ranked = rank_diseases(
        index,
        [MACROCEPHALY, ID],
        onset=onset,
        exclude_sources=frozenset(left_out),
        params=PARAMS.with_(**params),
    )
    return {r.id: r.score for r in ranked}


def test_a_distant_onset_lowers_the_disease_by_the_weight_times_the_gap(index: PhenotypeIndex) -> None:
    plain, adult_only = scores(index, None), scores(index, infantile(), "PMID:6")
    far = gaps(index, infantile(), "PMID:6")
    for disease, score in plain.items():
        expected = score - PARAMS.onset_weight * far[disease]
        assert adult_only[disease] == pytest.approx(expected), disease
    assert adult_only["OMIM:2"] < plain["OMIM:2"]
    assert scores(index, infantile(), "PMID:6", onset_weight=0.0) == plain


def test_the_conflict_is_named_with_the_curated_onset_and_its_sources(index: PhenotypeIndex) -> None:
    ranked = rank_diseases(
        index, [MACROCEPHALY, ID], onset=onset_at(0.5), exclude_sources=frozenset({"PMID:6"}), params=PARAMS
    )
    by_id = {r.id: r for r in ranked}
    conflicts = [c for c in by_id["OMIM:2"].against if c.kind == "onset"]
    assert len(conflicts) == 1
    assert conflicts[0].finding_label == "onset: onset at 6 months in the patient; curated: adult onset"
    assert conflicts[0].sources == ("PMID:5",)
    assert not conflicts[0].is_finding  # a caveat, not a finding in conflict
    assert (
        "onset: onset at 6 months in the patient; curated: adult onset" in by_id["OMIM:2"].as_entry().against
    )
    assert by_id["OMIM:2"].prior < 0
    assert not [c for c in by_id["OMIM:1"].against if c.kind == "onset"]  # infantile, as the patient
