from __future__ import annotations

import numpy as np
import pytest

from meddiag.diagnosis import ranking
from meddiag.diagnosis.index import MatchCache, PhenotypeIndex
from meddiag.diagnosis.ranking import BASELINE_PARAMS, RankParams, rank_diseases, score_all
from meddiag.errors import InputError
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import visible
from tests.diagnosis.conftest import (
    CATARACT,
    GTC_SEIZURE,
    ID,
    MACROCEPHALY,
    NAMES,
    NYSTAGMUS,
    ROOT,
    SEIZURE,
    has,
    relations,
)


def brute_resnik(
    index: PhenotypeIndex, observed: list[str], disease_ids: list[str], hidden: frozenset[str]
) -> float:
    """Resnik best-match average written the slow, obvious way over visible facts only."""
    onto = index.ontology
    terms = [
        r.object
        for r in relations()
        if r.subject in disease_ids and r.predicate == "HAS_PHENOTYPE" and visible(r.sources, hidden)
    ]
    total = 0.0
    for t in observed:
        total += max(
            (
                float(index.ic[index.term_index[x]])
                for a in terms
                for x in onto.ancestors(t) & onto.ancestors(a)
            ),
            default=0.0,
        )
    return total / len(observed)


@pytest.mark.parametrize("hidden", [frozenset(), frozenset({"PMID:1"}), frozenset({"PMID:1", "PMID:2"})])
@pytest.mark.parametrize("observed", [[SEIZURE, ID], [GTC_SEIZURE], [CATARACT, MACROCEPHALY]])
def test_query_time_exclusion_matches_brute_force_on_visible_facts(
    tiny_unpooled: PhenotypeIndex, observed: list[str], hidden: frozenset[str]
) -> None:
    scores = score_all(tiny_unpooled, observed, exclude_sources=hidden, params=BASELINE_PARAMS)
    for p, disease in enumerate(tiny_unpooled.profiles):
        assert scores[p] == pytest.approx(brute_resnik(tiny_unpooled, observed, [disease], hidden), abs=1e-6)


def test_leaving_a_publication_out_lowers_only_the_diseases_it_supported(tiny_index: PhenotypeIndex) -> None:
    full = score_all(tiny_index, [SEIZURE], params=BASELINE_PARAMS)
    lpo = score_all(tiny_index, [SEIZURE], exclude_sources=frozenset({"PMID:1"}), params=BASELINE_PARAMS)
    one, two = tiny_index.profile_index["OMIM:1"], tiny_index.profile_index["OMIM:2"]
    assert lpo[one] < full[one]
    assert lpo[two] == full[two]


def test_disease_with_no_visible_fact_is_not_ranked(tiny_index: PhenotypeIndex) -> None:
    ranked = rank_diseases(
        tiny_index, [GTC_SEIZURE], exclude_sources=frozenset({"PMID:3", "OMIM:3", "ORPHA:10"})
    )
    assert "OMIM:3" not in [r.id for r in ranked]


def test_hand_made_case_ranks_the_matching_disease_first(tiny_index: PhenotypeIndex) -> None:
    ranked = rank_diseases(tiny_index, [CATARACT, ID])
    assert [r.id for r in ranked][:1] == ["OMIM:1"]
    ranked = rank_diseases(tiny_index, [MACROCEPHALY, ID])
    assert ranked[0].id == "OMIM:2"
    assert [r.rank for r in ranked] == list(range(1, len(ranked) + 1))


def test_excluded_finding_lowers_a_disease_that_has_it(tiny_index: PhenotypeIndex) -> None:
    params = RankParams(excluded_weight=1.0)
    before = score_all(tiny_index, [ID], params=params)
    after = score_all(tiny_index, [ID], [MACROCEPHALY], params=params)
    two, one = tiny_index.profile_index["OMIM:2"], tiny_index.profile_index["OMIM:1"]
    assert after[two] < before[two]
    assert after[one] == before[one]


def test_an_excluded_finding_can_count_as_a_fraction_of_an_observed_one(tiny_index: PhenotypeIndex) -> None:
    """Added as the excluded findings' own mean, one excluded finding weighs `checked_weight` of all
    observed ones together; in one mean with them it counts `checked_weight` of one."""
    observed, w = [ID, CATARACT, SEIZURE], 0.5
    apart = RankParams(checked_weight=w)
    pooled = apart.with_(checked_in_mean=True)
    alone = score_all(tiny_index, observed, params=apart)
    excluded_alone = score_all(tiny_index, [MACROCEPHALY], params=RankParams())
    added = score_all(tiny_index, observed, [MACROCEPHALY], params=apart)
    mean = score_all(tiny_index, observed, [MACROCEPHALY], params=pooled)
    two = tiny_index.profile_index["OMIM:2"]  # annotated with macrocephaly
    assert added[two] == pytest.approx(alone[two] + w * excluded_alone[two])
    assert mean[two] == pytest.approx((3 * alone[two] + w * excluded_alone[two]) / (3 + w))


def test_curated_absence_of_an_observed_finding_lowers_a_disease(tiny_index: PhenotypeIndex) -> None:
    plain = score_all(tiny_index, [ID, NYSTAGMUS], params=BASELINE_PARAMS)
    negated = score_all(tiny_index, [ID, NYSTAGMUS], params=RankParams(negated_weight=1.0))
    three = tiny_index.profile_index["OMIM:3"]
    assert negated[three] < plain[three]


def test_frequency_weighting_prefers_the_disease_that_shows_the_finding_more_often(
    tiny_index: PhenotypeIndex,
) -> None:
    # OMIM:1 has ID at 0.9, OMIM:2 at the unknown-frequency default 0.5
    plain = score_all(tiny_index, [ID], params=BASELINE_PARAMS)
    weighted = score_all(tiny_index, [ID], params=RankParams(freq_weight=1.0))
    one, two = tiny_index.profile_index["OMIM:1"], tiny_index.profile_index["OMIM:2"]
    assert plain[one] == plain[two]
    assert weighted[one] > weighted[two]


def test_pooled_equivalent_evidence_supports_the_omim_disease(
    tiny_index: PhenotypeIndex, tiny_unpooled: PhenotypeIndex
) -> None:
    pooled = rank_diseases(tiny_index, [CATARACT], params=BASELINE_PARAMS)
    alone = rank_diseases(tiny_unpooled, [CATARACT], params=BASELINE_PARAMS)
    score = {r.id: r.score for r in pooled}
    assert score["OMIM:3"] == pytest.approx(score["OMIM:1"])
    assert {r.id: r.score for r in alone}["OMIM:3"] < score["OMIM:1"]


def test_explanation_names_matched_features_conflicts_and_sources(tiny_index: PhenotypeIndex) -> None:
    ranked = rank_diseases(tiny_index, [SEIZURE, CATARACT], [ID])
    eye_brain = next(r for r in ranked if r.id == "OMIM:1")
    assert eye_brain.name == "Eye-brain syndrome"
    matched = {m.finding: m for m in eye_brain.for_}
    assert matched[SEIZURE].disease_term == SEIZURE
    assert matched[SEIZURE].sources == ("PMID:1",)
    assert matched[CATARACT].frequency == pytest.approx(0.9)
    assert [(c.finding, c.kind) for c in eye_brain.against] == [(ID, "excluded_but_expected")]
    assert "PMID:2" in eye_brain.sources


def test_explanation_hides_facts_from_excluded_sources(tiny_index: PhenotypeIndex) -> None:
    ranked = rank_diseases(tiny_index, [SEIZURE, CATARACT], exclude_sources=frozenset({"PMID:1"}))
    eye_brain = next(r for r in ranked if r.id == "OMIM:1")
    assert "PMID:1" not in eye_brain.sources
    assert all(m.disease_term != SEIZURE for m in eye_brain.for_)


def test_a_frequency_pooled_with_an_excluded_source_is_neither_scored_nor_shown(
    tiny_ontology: Ontology,
) -> None:
    # OMIM:1's ID (0.9) cites PMID:1 and PMID:2: without PMID:1 it is scored and explained
    # exactly as a fact PMID:2 states with no curated frequency.
    exclude = frozenset({"PMID:1"})
    pooled = PhenotypeIndex(tiny_ontology, relations(), NAMES)
    shared = has("OMIM:1", ID, 0.9, "PMID:1", "PMID:2")
    plain = [has("OMIM:1", ID, None, "PMID:2") if r == shared else r for r in relations()]
    unpooled = PhenotypeIndex(tiny_ontology, plain, NAMES)
    assert plain != relations()
    for observed in ([ID], [ID, CATARACT], [SEIZURE]):
        assert score_all(pooled, observed, exclude_sources=exclude) == pytest.approx(
            score_all(unpooled, observed, exclude_sources=exclude)
        )
    one = pooled.profile_index["OMIM:1"]
    assert score_all(pooled, [ID], exclude_sources=exclude)[one] != pytest.approx(
        score_all(pooled, [ID])[one]
    )
    (eye_brain,) = [r for r in rank_diseases(pooled, [ID], exclude_sources=exclude) if r.id == "OMIM:1"]
    (matched,) = eye_brain.for_
    assert matched.frequency == pytest.approx(pooled.unknown_frequency)
    assert matched.sources == ("PMID:2",)


def test_explanations_remembered_per_exclusion_never_leak_into_another(tiny_index: PhenotypeIndex) -> None:
    def eye_brain(exclude: frozenset[str]):
        ranked = rank_diseases(tiny_index, [SEIZURE, CATARACT], exclude_sources=exclude)
        return next(r for r in ranked if r.id == "OMIM:1")

    for _ in range(2):  # the second round is answered from the remembered covers
        assert any(m.disease_term == SEIZURE for m in eye_brain(frozenset()).for_)
        assert all(m.disease_term != SEIZURE for m in eye_brain(frozenset({"PMID:1"})).for_)


def test_candidates_restrict_the_list(tiny_index: PhenotypeIndex) -> None:
    ranked = rank_diseases(tiny_index, [SEIZURE], candidates=["OMIM:2", "OMIM:404"])
    assert [r.id for r in ranked] == ["OMIM:2"]


def test_top_k_limits_the_list(tiny_index: PhenotypeIndex) -> None:
    assert len(rank_diseases(tiny_index, [SEIZURE], top_k=2)) == 2


def test_findings_unknown_to_hpo_raise_a_clinician_readable_error(tiny_index: PhenotypeIndex) -> None:
    with pytest.raises(InputError, match="HPO"):
        rank_diseases(tiny_index, ["HP:7777777"])


def test_redundant_ancestor_finding_is_collapsed(tiny_index: PhenotypeIndex) -> None:
    params = RankParams(collapse_redundant=True)
    both = score_all(tiny_index, [SEIZURE, GTC_SEIZURE], params=params)
    specific = score_all(tiny_index, [GTC_SEIZURE], params=params)
    assert both == pytest.approx(specific)


def test_ranked_disease_converts_to_the_wire_entry(tiny_index: PhenotypeIndex) -> None:
    ranked = rank_diseases(tiny_index, [CATARACT], [ID])
    entry = next(r for r in ranked if r.id == "OMIM:1").as_entry()
    assert entry.name == "Eye-brain syndrome"
    assert entry.for_ == ["Cataract ~ Cataract (90%)"]
    assert entry.against == ["no Intellectual disability, expected in 90%"]
    assert entry.channels == ["relational"]


def test_candidate_named_by_an_equivalent_id_selects_its_profile(tiny_index: PhenotypeIndex) -> None:
    ranked = rank_diseases(tiny_index, [CATARACT], candidates=["ORPHA:10"])
    assert [r.id for r in ranked] == ["OMIM:3"]
    assert ranked[0].members == ("OMIM:3", "ORPHA:10")


def test_exact_term_bonus_goes_only_to_diseases_curated_with_that_very_term(
    tiny_unpooled: PhenotypeIndex,
) -> None:
    # OMIM:1 is annotated with Seizure itself, OMIM:3 only with a child of it (tonic-clonic).
    plain = score_all(tiny_unpooled, [SEIZURE], params=BASELINE_PARAMS)
    exact = score_all(tiny_unpooled, [SEIZURE], params=BASELINE_PARAMS.with_(exact_weight=0.5))
    one, three = tiny_unpooled.profile_index["OMIM:1"], tiny_unpooled.profile_index["OMIM:3"]
    ic = float(tiny_unpooled.ic[tiny_unpooled.term_index[SEIZURE]])
    assert exact[one] - plain[one] == pytest.approx(0.5 * ic)
    assert exact[three] == pytest.approx(plain[three])


def test_exact_term_bonus_never_comes_from_a_left_out_source(tiny_unpooled: PhenotypeIndex) -> None:
    # OMIM:1's Seizure annotation rests only on PMID:1: leaving it out removes the bonus too.
    params = BASELINE_PARAMS.with_(exact_weight=0.5)
    hidden = frozenset({"PMID:1"})
    plain = score_all(tiny_unpooled, [SEIZURE], exclude_sources=hidden, params=BASELINE_PARAMS)
    exact = score_all(tiny_unpooled, [SEIZURE], exclude_sources=hidden, params=params)
    one = tiny_unpooled.profile_index["OMIM:1"]
    assert exact[one] == pytest.approx(plain[one])


def test_exact_symmetric_bonus_rewards_disease_features_examined_as_such(
    tiny_unpooled: PhenotypeIndex,
) -> None:
    base = BASELINE_PARAMS.with_(symmetric=0.5)
    plain = score_all(tiny_unpooled, [SEIZURE, ID], params=base)
    exact = score_all(tiny_unpooled, [SEIZURE, ID], params=base.with_(exact_symmetric=1.0))
    one, three = tiny_unpooled.profile_index["OMIM:1"], tiny_unpooled.profile_index["OMIM:3"]
    assert exact[one] > plain[one]  # Seizure and ID are OMIM:1's own terms
    assert exact[three] == pytest.approx(plain[three])  # tonic-clonic / nystagmus were not named


@pytest.mark.parametrize("power", [1.0, 0.5, 0.0])
def test_the_disease_to_patient_mean_weighs_features_by_a_power_of_their_frequency(
    tiny_unpooled: PhenotypeIndex, power: float
) -> None:
    # OMIM:3: tonic-clonic seizure (0.9), examined as such, and nystagmus (0.2), which meets
    # the finding only at the root. The weights are 0.9**power and 0.2**power.
    idx = tiny_unpooled
    three = idx.profile_index["OMIM:3"]
    ic = {t: float(idx.ic[idx.term(t)]) for t in (GTC_SEIZURE, ROOT)}
    w_gtc, w_nys = 0.9**power, 0.2**power
    expected = (w_gtc * ic[GTC_SEIZURE] + w_nys * ic[ROOT]) / (w_gtc + w_nys)
    found = ranking._disease_to_patient(idx, idx.matrices, np.asarray([idx.term(GTC_SEIZURE)]), power=power)
    assert found[three] == pytest.approx(expected)


def test_a_flatter_frequency_weighting_lifts_a_disease_whose_rarer_features_were_examined(
    tiny_unpooled: PhenotypeIndex,
) -> None:
    base = BASELINE_PARAMS.with_(symmetric=0.5)
    three = tiny_unpooled.profile_index["OMIM:3"]
    by_power = {
        p: score_all(tiny_unpooled, [NYSTAGMUS], params=base.with_(symmetric_freq_power=p))[three]
        for p in (1.0, 0.5, 0.0)
    }
    # nystagmus, OMIM:3's rarer feature, is the one the patient shows: it counts for more
    assert by_power[1.0] < by_power[0.5] < by_power[0.0]


def test_a_repeated_query_is_scored_once_and_its_copy_is_the_callers(
    tiny_unpooled: PhenotypeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tiny_unpooled, "score_cache", MatchCache(4))  # the fixture is shared
    runs: list[int] = []
    real = ranking._score_all
    monkeypatch.setattr(ranking, "_score_all", lambda *a: runs.append(1) or real(*a))
    hidden = frozenset({"PMID:1"})
    first = score_all(tiny_unpooled, [SEIZURE, ID], exclude_sources=hidden, params=BASELINE_PARAMS)
    expected = first.copy()
    first[:] = -1.0  # a caller's changes stay its own
    again = score_all(tiny_unpooled, [SEIZURE, ID], exclude_sources=set(hidden), params=BASELINE_PARAMS)
    assert runs == [1]
    assert again.tolist() == expected.tolist()
    score_all(tiny_unpooled, [SEIZURE, ID], params=BASELINE_PARAMS)  # other sources: another query
    score_all(
        tiny_unpooled, [SEIZURE, ID], exclude_sources=hidden, params=BASELINE_PARAMS.with_(symmetric=0.5)
    )
    assert runs == [1, 1, 1]


def test_a_named_genes_diseases_form_the_first_tier_in_phenotype_order(tiny_index: PhenotypeIndex) -> None:
    plain = rank_diseases(tiny_index, [CATARACT, ID])
    assert plain[0].id == "OMIM:1" and not plain[0].genes
    # The question names a gene of OMIM:2 (a worse phenotype fit): it moves above OMIM:1.
    ranked = rank_diseases(tiny_index, [CATARACT, ID], genes={"OMIM:2": ["GENE2"]})
    assert [r.id for r in ranked][:2] == ["OMIM:2", "OMIM:1"]
    assert ranked[0].genes == ("GENE2",) and ranked[1].genes == ()
    # Without a gene weight the mapping changes nothing.
    unweighted = rank_diseases(
        tiny_index,
        [CATARACT, ID],
        genes={"OMIM:2": ["GENE2"]},
        params=ranking.DEFAULT_PARAMS.with_(gene_weight=0),
    )
    assert [r.id for r in unweighted] == [r.id for r in plain]


def test_a_named_genes_disease_with_no_visible_fact_is_still_listed(tiny_index: PhenotypeIndex) -> None:
    hidden = frozenset({"PMID:3", "OMIM:3", "ORPHA:10"})
    ranked = rank_diseases(tiny_index, [GTC_SEIZURE], exclude_sources=hidden, genes={"OMIM:3": ["GENE3"]})
    assert ranked[0].id == "OMIM:3"
    assert ranked[0].genes == ("GENE3",) and not ranked[0].for_


def test_a_match_is_explained_through_the_shared_term_the_score_chose(tiny_ontology) -> None:
    # The disease shows the very finding rarely and its parent always: with the frequency
    # weighed in, the score matches through the parent, and the explanation must say so.
    index = PhenotypeIndex(
        tiny_ontology,
        [
            has("OMIM:21", GTC_SEIZURE, 0.01, "OMIM:21"),
            has("OMIM:21", SEIZURE, 1.0, "OMIM:21"),
            has("OMIM:22", ID, 0.9, "OMIM:22"),
            has("OMIM:23", CATARACT, 0.9, "OMIM:23"),
            has("OMIM:24", SEIZURE, 0.5, "OMIM:24"),  # so the parent is the less specific term
        ],
    )

    def explained(freq_weight: float) -> tuple[str, float, float]:
        params = RankParams(freq_weight=freq_weight)
        top = rank_diseases(index, [GTC_SEIZURE], params=params)[0]
        assert top.id == "OMIM:21"
        (match,) = top.for_
        scores = score_all(index, [GTC_SEIZURE], params=params)
        return match.shared_term, match.frequency, float(scores[index.profile_index["OMIM:21"]])

    term, frequency, score = explained(2.0)
    assert (term, frequency) == (SEIZURE, 1.0)
    assert score == pytest.approx(index.ic[index.term_index[SEIZURE]], abs=1e-5)
    term, frequency, score = explained(0.0)
    assert (term, frequency) == (GTC_SEIZURE, 0.01)
    assert score == pytest.approx(index.ic[index.term_index[GTC_SEIZURE]], abs=1e-5)
