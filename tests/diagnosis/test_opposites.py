"""Opposite findings: which HPO names pair as antonyms, and how a disease curated with the
opposite of a finding is lowered, named under "against" and hidden with its sources."""

from __future__ import annotations

import numpy as np
import pytest

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.diagnosis.opposites import opposite_pairs
from meddiag.diagnosis.ranking import DEFAULT_PARAMS, rank_diseases, score_all
from meddiag.knowledge.hpo import Ontology, Term
from meddiag.knowledge.model import Relation

ROOT = "HP:0000118"
HEAD_SIZE, MICRO, MACRO, SEVERE_MICRO = "HP:0000240", "HP:0000252", "HP:0000256", "HP:0011451"
HEIGHT, SHORT, TALL = "HP:0000002", "HP:0004322", "HP:0000098"
CALCIUM, HYPO_CA, HYPER_CA = "HP:0004363", "HP:0002901", "HP:0003072"
NECK, SHORT_NECK, LONG_NECK = "HP:0000464", "HP:0000470", "HP:0000472"
LUNG, SMALL_CELL, LARGE_CELL = "HP:0100526", "HP:0030357", "HP:0030360"
GUT, SMALL_GUT, LARGE_GUT = "HP:0100834", "HP:0100833", "HP:0100832"
ONSET, EARLY_YA, LATE_YA = "HP:0003674", "HP:0025708", "HP:0025710"
ID = "HP:0001249"
PARAMS = DEFAULT_PARAMS.with_(sibling_prior=0.0, no_gene_penalty=0.0)


def ontology() -> Ontology:
    spec = [
        ("HP:0000001", "All", []),
        (ROOT, "Phenotypic abnormality", ["HP:0000001"]),
        (HEAD_SIZE, "Abnormality of skull size", [ROOT]),
        (MICRO, "Microcephaly", [HEAD_SIZE]),
        (MACRO, "Macrocephaly", [HEAD_SIZE]),
        (SEVERE_MICRO, "Severe microcephaly", [MICRO]),
        (HEIGHT, "Abnormal body height", [ROOT]),
        (SHORT, "Short stature", [HEIGHT]),
        (TALL, "Tall stature", [HEIGHT]),
        (CALCIUM, "Abnormal calcium concentration", [ROOT]),
        (HYPO_CA, "Hypocalcemia", [CALCIUM]),
        (HYPER_CA, "Hypercalcemia", [CALCIUM]),
        (NECK, "Abnormal neck morphology", [ROOT]),
        (SHORT_NECK, "Short neck", [NECK]),
        (LONG_NECK, "Long neck", [NECK]),
        (LUNG, "Lung carcinoma", [ROOT]),
        (SMALL_CELL, "Small cell lung carcinoma", [LUNG]),  # a kind of tumour, not a size
        (LARGE_CELL, "Large cell lung carcinoma", [LUNG]),
        (GUT, "Neoplasm of the intestine", [ROOT]),
        (SMALL_GUT, "Neoplasm of the small intestine", [GUT]),  # the antonym names a place
        (LARGE_GUT, "Neoplasm of the large intestine", [GUT]),
        (ID, "Intellectual disability", [ROOT]),
        (ONSET, "Onset", ["HP:0000001"]),  # outside the phenotypic abnormalities
        (EARLY_YA, "Early young adult onset", [ONSET]),
        (LATE_YA, "Late young adult onset", [ONSET]),
    ]
    return Ontology([Term(id=i, name=n, parents=p) for i, n, p in spec])


def test_antonyms_pair_by_prefix_anywhere_and_by_opening_word() -> None:
    pairs = opposite_pairs(ontology())
    assert pairs[MICRO] == {MACRO} and pairs[MACRO] == {MICRO}
    assert pairs[HYPO_CA] == {HYPER_CA}
    assert pairs[SHORT] == {TALL}
    assert pairs[SHORT_NECK] == {LONG_NECK}
    # a more specific term pairs through its ancestor, not by itself ("Severe macrocephaly" is absent)
    assert SEVERE_MICRO not in pairs


def test_kinds_places_and_terms_outside_the_abnormalities_do_not_pair() -> None:
    pairs = opposite_pairs(ontology())
    for term in (SMALL_CELL, LARGE_CELL, SMALL_GUT, LARGE_GUT, EARLY_YA, LATE_YA, ID):
        assert term not in pairs


def has(disease: str, term: str, freq: float, *sources: str) -> Relation:
    return Relation(
        subject=disease, predicate="HAS_PHENOTYPE", object=term, frequency=freq, sources=list(sources)
    )


@pytest.fixture(scope="module")
def index() -> PhenotypeIndex:
    return PhenotypeIndex(
        ontology(),
        [
            has("OMIM:1", SEVERE_MICRO, 0.9, "PMID:1"),  # small head: contradicts macrocephaly
            has("OMIM:1", ID, 0.9, "OMIM:1"),
            has("OMIM:2", MACRO, 0.9, "OMIM:2"),
            has("OMIM:2", ID, 0.9, "OMIM:2"),
            has("OMIM:3", MICRO, 0.5, "OMIM:3"),  # either head size: varies, contradicts nothing
            has("OMIM:3", MACRO, 0.5, "OMIM:3"),
            has("OMIM:3", ID, 0.9, "OMIM:3"),
        ],
        {"OMIM:1": "Small head syndrome", "OMIM:2": "Big head syndrome", "OMIM:3": "Head size disorder"},
    )


def scores(index: PhenotypeIndex, weight: float, *left_out: str) -> dict[str, float]:
    found = score_all(
        index, [MACRO, ID], exclude_sources=frozenset(left_out), params=PARAMS.with_(opposite_weight=weight)
    )
    return dict(zip(index.profiles, found.tolist(), strict=True))


def test_a_disease_curated_with_the_opposite_loses_ic_times_frequency_per_finding(
    index: PhenotypeIndex,
) -> None:
    plain, weighed = scores(index, 0.0), scores(index, 1.0)
    expected = index.ic[index.term_index[MICRO]] * 0.9 / 2  # the ancestor's IC, the feature's frequency
    assert plain["OMIM:1"] - weighed["OMIM:1"] == pytest.approx(expected, rel=1e-5)
    assert weighed["OMIM:2"] == pytest.approx(plain["OMIM:2"])
    assert weighed["OMIM:3"] == pytest.approx(plain["OMIM:3"])  # both sides curated


def test_an_opposite_resting_only_on_a_left_out_source_is_hidden(index: PhenotypeIndex) -> None:
    assert scores(index, 1.0, "PMID:1")["OMIM:1"] == pytest.approx(scores(index, 0.0, "PMID:1")["OMIM:1"])


def test_the_row_names_the_opposite_feature_with_its_frequency_and_sources(index: PhenotypeIndex) -> None:
    ranked = {r.id: r for r in rank_diseases(index, [MACRO, ID], params=PARAMS.with_(opposite_weight=1.0))}
    [conflict] = [c for c in ranked["OMIM:1"].against if c.kind == "observed_but_opposite"]
    assert conflict.is_finding and conflict.sources == ("PMID:1",)
    assert conflict.statement == "Macrocephaly, the opposite of Severe microcephaly (curated in 90%)"
    assert (
        "Macrocephaly, the opposite of Severe microcephaly (curated in 90%)"
        in ranked["OMIM:1"].as_entry().against
    )
    assert not [
        c for r in ("OMIM:2", "OMIM:3") for c in ranked[r].against if c.kind == "observed_but_opposite"
    ]
    hidden = rank_diseases(
        index, [MACRO, ID], exclude_sources=frozenset({"PMID:1"}), params=PARAMS.with_(opposite_weight=1.0)
    )
    assert not [c for r in hidden for c in r.against if c.kind == "observed_but_opposite"]


def test_at_weight_zero_no_opposite_is_named(index: PhenotypeIndex) -> None:
    ranked = rank_diseases(index, [MACRO, ID], params=PARAMS.with_(opposite_weight=0.0))
    assert not [c for r in ranked for c in r.against if c.kind == "observed_but_opposite"]
    assert np.isfinite([r.score for r in ranked]).all()
