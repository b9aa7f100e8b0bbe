"""Findings a disease's name states: weak facts the ranker matches but never counts as a profile."""

from __future__ import annotations

import numpy as np
import pytest

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.diagnosis.linking import PhraseLinker
from meddiag.diagnosis.name_findings import NAME_SOURCE_FILE, name_findings, with_name_findings
from meddiag.diagnosis.ranking import DEFAULT_PARAMS, rank_diseases, score_all
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Relation
from tests.diagnosis.conftest import CATARACT, ID, MACROCEPHALY, NYSTAGMUS, SEIZURE, has

NAMES = {
    "OMIM:21": "Cataract, congenital, without seizures",
    "OMIM:22": "Seizures and intellectual disability, autosomal dominant 2",
    "OMIM:23": "Macrocephaly syndrome",
    "ORPHA:24": "Cataract-seizure syndrome",
    "OMIM:25": "Seizure disorder, unannotated",
}


def curated() -> list[Relation]:
    """OMIM:21 and OMIM:22 share nystagmus; OMIM:22's only curated fact rests on PMID:7."""
    return [
        has("OMIM:21", NYSTAGMUS, 0.5, "OMIM:21"),
        has("OMIM:22", NYSTAGMUS, 0.5, "PMID:7"),
        has("OMIM:23", MACROCEPHALY, 0.9, "OMIM:23"),
        has("ORPHA:24", NYSTAGMUS, 0.5, "ORPHA:24"),
    ]


@pytest.fixture(scope="module")
def linker(tiny_ontology: Ontology) -> PhraseLinker:
    return PhraseLinker(tiny_ontology)


@pytest.fixture(scope="module")
def named_index(tiny_ontology: Ontology, linker: PhraseLinker) -> PhenotypeIndex:
    return PhenotypeIndex(tiny_ontology, with_name_findings(linker, curated(), NAMES), NAMES)


def test_a_name_states_its_present_findings_for_annotated_omim_diseases(linker: PhraseLinker) -> None:
    facts = name_findings(linker, NAMES, annotated={"OMIM:21", "OMIM:22", "OMIM:23", "ORPHA:24"})
    assert {(r.subject, r.object) for r in facts} == {
        ("OMIM:21", CATARACT),  # "without seizures" is no fact
        ("OMIM:22", SEIZURE),
        ("OMIM:22", ID),
        ("OMIM:23", MACROCEPHALY),
    }  # ORPHA:24 is no candidate; OMIM:25 has no curated phenotype, so its name alone makes nothing
    assert all(r.predicate == "HAS_PHENOTYPE" and r.frequency is None for r in facts)
    # The catalogue's own id is the source: leaving a publication out never hides a name.
    assert all(r.sources == [r.subject] and r.source_file == NAME_SOURCE_FILE for r in facts)


def test_the_index_tells_name_facts_from_curated_ones(named_index: PhenotypeIndex) -> None:
    p = named_index.profile_index
    from_name = {
        (named_index.diseases[named_index.rel_disease[r]], named_index.terms[named_index.rel_term[r]])
        for r in np.flatnonzero(named_index.rel_from_name)
    }
    assert from_name == {
        ("OMIM:21", CATARACT),
        ("OMIM:22", SEIZURE),
        ("OMIM:22", ID),
        ("OMIM:23", MACROCEPHALY),
    }
    # A profile's size counts curated features only: its name adds matches, not facts.
    assert named_index.matrices.n_features[p["OMIM:22"]] == 1
    assert named_index.matrices.n_features[p["OMIM:23"]] == 1  # MACROCEPHALY counted once


def test_a_finding_the_name_states_raises_the_disease(
    tiny_ontology: Ontology, named_index: PhenotypeIndex
) -> None:
    plain = PhenotypeIndex(tiny_ontology, curated(), NAMES)
    before = score_all(plain, [CATARACT, NYSTAGMUS], params=DEFAULT_PARAMS)
    after = score_all(named_index, [CATARACT, NYSTAGMUS], params=DEFAULT_PARAMS)
    a, b = plain.profile_index["OMIM:21"], plain.profile_index["OMIM:22"]
    assert before[a] == pytest.approx(before[b])  # the same curated fact
    assert after[named_index.profile_index["OMIM:21"]] > after[named_index.profile_index["OMIM:22"]]


def test_a_name_alone_keeps_no_disease_a_candidate(named_index: PhenotypeIndex) -> None:
    scores = score_all(
        named_index,
        [SEIZURE, ID],
        exclude_sources=frozenset({"PMID:7"}),
        params=DEFAULT_PARAMS.with_(sibling_prior=0.0),
    )
    # OMIM:22's name states both findings, but every curated fact of it is left out.
    assert scores[named_index.profile_index["OMIM:22"]] == -np.inf


def test_the_explanation_says_the_match_is_in_the_name(named_index: PhenotypeIndex) -> None:
    ranked = rank_diseases(named_index, [SEIZURE], top_k=5)
    row = next(r for r in ranked if r.id == "OMIM:22")
    match = next(m for m in row.for_ if m.disease_term == SEIZURE)
    assert match.from_name and match.frequency == 0.0 and match.sources == ("OMIM:22",)
    assert "Seizure ~ Seizure (in its name)" in row.as_entry().for_


def test_an_excluded_finding_the_name_states_is_named_against_without_a_made_up_frequency(
    named_index: PhenotypeIndex,
) -> None:
    ranked = rank_diseases(named_index, [NYSTAGMUS], [CATARACT], top_k=5)
    row = next(r for r in ranked if r.id == "OMIM:21")
    assert [(c.finding, c.from_name) for c in row.against] == [(CATARACT, True)]
    assert row.as_entry().against == ["no Cataract, which its name states"]


def test_a_disease_scored_through_its_series_says_so_even_when_its_name_matches(
    tiny_ontology: Ontology, linker: PhraseLinker
) -> None:
    # OMIM:21 and OMIM:22 as one series: with PMID:7 left out, OMIM:22 keeps only what its
    # name states, which matches but does not score: its place is OMIM:21's.
    series = [
        *curated(),
        Relation(subject="OMIM:21", predicate="IS_A", object="MONDO:0000900", sources=["MONDO"]),
        Relation(subject="OMIM:22", predicate="IS_A", object="MONDO:0000900", sources=["MONDO"]),
    ]
    index = PhenotypeIndex(tiny_ontology, with_name_findings(linker, series, NAMES), NAMES)
    ranked = {
        r.id: r for r in rank_diseases(index, [SEIZURE, NYSTAGMUS], exclude_sources=frozenset({"PMID:7"}))
    }
    emptied = ranked["OMIM:22"]
    assert [m.finding for m in emptied.for_] == [SEIZURE] and emptied.for_[0].from_name
    assert emptied.series == "OMIM:21"
    assert emptied.series_role == "scored_by"  # its name's match does not make it shrunk toward
    assert emptied.score == pytest.approx(ranked["OMIM:21"].score, abs=1e-5)
    assert ranked["OMIM:21"].series == ""
    # With its curated fact visible, its own facts explain it.
    visible = {r.id: r for r in rank_diseases(index, [SEIZURE, NYSTAGMUS])}
    assert visible["OMIM:22"].series == ""
