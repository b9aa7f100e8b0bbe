"""Borrowing evidence from MONDO siblings (phenotypic series) for diseases with few visible facts."""

from __future__ import annotations

import numpy as np
import pytest

from meddiag.diagnosis.index import X_RECESSIVE, PhenotypeIndex
from meddiag.diagnosis.ranking import DEFAULT_PARAMS, rank_diseases, score_all
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Relation
from tests.diagnosis.conftest import CATARACT, ID, MACROCEPHALY, NYSTAGMUS, SEIZURE, has

SERIES = "MONDO:0000900"


def is_a(disease: str, parent: str) -> Relation:
    return Relation(subject=disease, predicate="IS_A", object=parent, sources=["MONDO"])


def series_relations() -> list[Relation]:
    """OMIM:11 and OMIM:12 form one series; OMIM:12's only fact rests on PMID:9; OMIM:13 stands alone."""
    return [
        has("OMIM:11", SEIZURE, 0.9, "OMIM:11"),
        has("OMIM:11", ID, 0.9, "OMIM:11"),
        has("OMIM:11", NYSTAGMUS, 0.5, "PMID:8"),
        has("OMIM:12", SEIZURE, 0.9, "PMID:9"),
        has("OMIM:13", MACROCEPHALY, 0.9, "OMIM:13"),
        has("OMIM:13", CATARACT, 0.9, "OMIM:13"),
        is_a("OMIM:11", SERIES),
        is_a("OMIM:12", SERIES),
    ]


@pytest.fixture(scope="module")
def series_index(tiny_ontology: Ontology) -> PhenotypeIndex:
    return PhenotypeIndex(tiny_ontology, series_relations())


def test_siblings_are_diseases_sharing_a_mondo_parent(series_index: PhenotypeIndex) -> None:
    p = series_index.profile_index
    sib = series_index.siblings.toarray()
    assert sib[p["OMIM:12"], p["OMIM:11"]] == 1.0
    assert sib[p["OMIM:13"]].sum() == 0.0
    assert sib[p["OMIM:11"], p["OMIM:11"]] == 0.0  # a disease does not borrow from itself


def test_the_class_two_siblings_share_is_the_one_with_fewest_members(tiny_ontology: Ontology) -> None:
    """OMIM:11 and OMIM:12 share both a broad class (with OMIM:13) and their series: the series
    names them; OMIM:13 shares only the broad one with either."""
    broad = "MONDO:0000800"
    index = PhenotypeIndex(
        tiny_ontology, [*series_relations(), *(is_a(d, broad) for d in ("OMIM:11", "OMIM:12", "OMIM:13"))]
    )
    p = index.profile_index
    assert index.shared_class(p["OMIM:12"], p["OMIM:11"]) == SERIES
    assert index.shared_class(p["OMIM:11"], p["OMIM:12"]) == SERIES
    assert index.shared_class(p["OMIM:13"], p["OMIM:11"]) == broad
    lone = PhenotypeIndex(tiny_ontology, series_relations())
    assert lone.shared_class(lone.profile_index["OMIM:13"], lone.profile_index["OMIM:11"]) == ""


def test_disease_with_every_fact_left_out_is_ranked_through_its_series(series_index: PhenotypeIndex) -> None:
    p = series_index.profile_index
    hidden = frozenset({"PMID:9"})
    plain = score_all(
        series_index, [SEIZURE, ID], exclude_sources=hidden, params=DEFAULT_PARAMS.with_(sibling_prior=0.0)
    )
    smoothed = score_all(
        series_index, [SEIZURE, ID], exclude_sources=hidden, params=DEFAULT_PARAMS.with_(sibling_prior=2.0)
    )
    assert plain[p["OMIM:12"]] == -np.inf
    assert np.isfinite(smoothed[p["OMIM:12"]])
    assert smoothed[p["OMIM:12"]] > smoothed[p["OMIM:13"]]  # the series fits the findings, OMIM:13 does not


def test_borrowed_evidence_obeys_left_out_sources(series_index: PhenotypeIndex) -> None:
    p = series_index.profile_index
    params = DEFAULT_PARAMS.with_(sibling_prior=2.0)
    only_own = score_all(series_index, [NYSTAGMUS], exclude_sources=frozenset({"PMID:9"}), params=params)
    both = score_all(
        series_index, [NYSTAGMUS], exclude_sources=frozenset({"PMID:9", "PMID:8"}), params=params
    )
    # OMIM:12 can only be judged by OMIM:11's nystagmus; hiding PMID:8 must take that away too
    assert both[p["OMIM:12"]] < only_own[p["OMIM:12"]]
    assert both[p["OMIM:12"]] == pytest.approx(both[p["OMIM:11"]], abs=1e-5)


def test_borrowing_weighs_less_the_more_facts_a_disease_shows(series_index: PhenotypeIndex) -> None:
    p = series_index.profile_index
    plain = score_all(series_index, [NYSTAGMUS], params=DEFAULT_PARAMS.with_(sibling_prior=0.0))
    smoothed = score_all(series_index, [NYSTAGMUS], params=DEFAULT_PARAMS.with_(sibling_prior=2.0))
    one, three = p["OMIM:12"], p["OMIM:11"]
    gap = plain[three] - plain[one]
    # weights 2/(2+1) for the one-fact disease and 2/(2+3) for the three-fact one
    assert smoothed[one] == pytest.approx(plain[one] + 2 / 3 * gap)
    assert smoothed[three] == pytest.approx(plain[three] - 2 / 5 * gap)


def _with_unfitting_member(
    ontology: Ontology, *features: str
) -> tuple[PhenotypeIndex, np.ndarray, np.ndarray]:
    """The series plus OMIM:14, which shows only `features` (none a seizure); OMIM:12's fact
    hidden. Returns the index and the scores without and with borrowing."""
    rels = [
        *series_relations(),
        *(has("OMIM:14", f, 0.9, "OMIM:14") for f in features),
        is_a("OMIM:14", SERIES),
    ]
    index = PhenotypeIndex(ontology, rels)
    hidden = frozenset({"PMID:9"})
    plain = score_all(
        index, [SEIZURE, ID], exclude_sources=hidden, params=DEFAULT_PARAMS.with_(sibling_prior=0.0)
    )
    return index, plain, score_all(index, [SEIZURE, ID], exclude_sources=hidden, params=DEFAULT_PARAMS)


def test_series_is_represented_by_its_best_fitting_member(tiny_ontology: Ontology) -> None:
    index, plain, smoothed = _with_unfitting_member(tiny_ontology, MACROCEPHALY, CATARACT)
    p = index.profile_index
    # OMIM:12 shows nothing; of its siblings OMIM:11 fits the seizures, OMIM:14 does not
    assert smoothed[p["OMIM:12"]] == pytest.approx(smoothed[p["OMIM:11"]], abs=1e-5)
    assert smoothed[p["OMIM:12"]] > plain[p["OMIM:14"]]


def test_a_disease_that_shows_nothing_ranks_just_below_the_sibling_it_borrows_from(
    tiny_ontology: Ontology,
) -> None:
    """OMIM:11 is itself shrunk toward its worse-fitting sibling OMIM:14; OMIM:12, with nothing
    visible, must not overtake it by borrowing OMIM:11's unshrunk score."""
    index, plain, smoothed = _with_unfitting_member(tiny_ontology, MACROCEPHALY)
    p = index.profile_index
    assert smoothed[p["OMIM:11"]] < plain[p["OMIM:11"]]  # the premise: OMIM:11 is pulled down
    assert smoothed[p["OMIM:12"]] < smoothed[p["OMIM:11"]]
    ranked = [r.id for r in rank_diseases(index, [SEIZURE, ID], exclude_sources=frozenset({"PMID:9"}))]
    assert ranked.index("OMIM:12") == ranked.index("OMIM:11") + 1


def test_a_disease_scored_only_through_its_series_names_the_member_it_stands_in_for(
    series_index: PhenotypeIndex,
) -> None:
    hidden = frozenset({"PMID:9"})
    ranked = {r.id: r for r in rank_diseases(series_index, [SEIZURE, ID], exclude_sources=hidden)}
    assert ranked["OMIM:12"].for_ == () and ranked["OMIM:12"].series == "OMIM:11"
    assert ranked["OMIM:12"].series_role == "scored_by" and ranked["OMIM:12"].series_class == SERIES
    lender = ranked["OMIM:11"]  # its own facts explain it
    assert (lender.series, lender.series_role, lender.series_class) == ("", None, "")
    # With its own fact visible, OMIM:12 is explained by that fact, not by the series.
    visible = {r.id: r for r in rank_diseases(series_index, [SEIZURE, ID])}
    assert visible["OMIM:12"].series == "" and visible["OMIM:12"].for_
    assert visible["OMIM:12"].series_role is None
    entry = ranked["OMIM:12"].as_entry()
    assert (entry.series, entry.series_role, entry.series_class) == ("OMIM:11", "scored_by", SERIES)


def test_the_member_stood_in_for_is_named_when_the_sex_penalty_moves_it_below(
    tiny_ontology: Ontology,
) -> None:
    """OMIM:11 is X-linked recessive, so for a girl it drops below OMIM:12, which borrowed its
    phenotype fit: OMIM:12 must still name OMIM:11, or the engine finds no reason to show it."""
    xr = Relation(subject="OMIM:11", predicate="HAS_INHERITANCE", object=X_RECESSIVE, sources=["OMIM:11"])
    index = PhenotypeIndex(tiny_ontology, [*series_relations(), xr])
    hidden = frozenset({"PMID:9"})
    ranked = [r for r in rank_diseases(index, [SEIZURE, ID], sex="female", exclude_sources=hidden)]
    ids = [r.id for r in ranked]
    assert ids.index("OMIM:12") < ids.index("OMIM:11")  # the premise: the penalty moved the lender
    assert ranked[ids.index("OMIM:12")].series == "OMIM:11"


def test_a_disease_whose_visible_facts_match_nothing_names_the_member_it_is_shrunk_toward(
    tiny_ontology: Ontology,
) -> None:
    """OMIM:12 keeps one visible fact, macrocephaly, which no finding matches; its place comes
    from the share of OMIM:11's fit it borrows, so it names OMIM:11 as its series."""
    own = has("OMIM:12", MACROCEPHALY, 0.9, "OMIM:12")
    index = PhenotypeIndex(tiny_ontology, [*series_relations(), own])
    hidden = frozenset({"PMID:9"})
    ranked = {r.id: r for r in rank_diseases(index, [SEIZURE, ID], exclude_sources=hidden)}
    assert ranked["OMIM:12"].for_ == ()
    assert ranked["OMIM:12"].series == "OMIM:11"
    assert ranked["OMIM:12"].series_role == "shrunk_toward"  # its own fact is visible, unmatched
    assert ranked["OMIM:12"].series_class == SERIES
    alone = ranked["OMIM:13"]  # no series to borrow from
    assert alone.series == "" and alone.series_role is None
    assert ranked["OMIM:11"].series == ""  # its own facts explain it
