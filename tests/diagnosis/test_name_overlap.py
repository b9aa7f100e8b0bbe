"""The overlap the embedding fallback uses to check its nearest names (real packaged HPO)."""

from __future__ import annotations

import pytest

from meddiag.diagnosis.linking import phrase_key
from meddiag.diagnosis.name_overlap import NameOverlap, stem
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.sources import packaged_sources


@pytest.fixture(scope="module")
def overlap() -> NameOverlap:
    onto = Ontology.from_obo(packaged_sources().hp_obo)
    names = [phrase_key(n) for t in onto.phenotype_ids for n in [onto.terms[t].name, *onto.terms[t].synonyms]]
    return NameOverlap(onto, names, phrase_key)


def test_stems_join_word_forms_but_not_different_words() -> None:
    assert stem("cholestatic") == stem("cholestasis")
    assert stem("hypertrophy") != stem("hypertension")


def test_the_same_words_overlap_fully_and_no_shared_word_not_at_all(overlap: NameOverlap) -> None:
    assert overlap("HP:0001250", phrase_key("Seizure")) == pytest.approx(1.0)
    assert overlap("HP:0001250", phrase_key("rhythmic shaking")) == 0.0


def test_the_telling_word_decides(overlap: NameOverlap) -> None:
    t_cells = phrase_key("decreased total T cell count")
    assert overlap("HP:0005403", t_cells) > overlap("HP:0010976", t_cells)  # T, not B lymphocytopenia
    calves = phrase_key("pseudohypertrophy of calves")
    assert overlap("HP:0003707", calves) > overlap("HP:0008739", calves)  # calf, not labial


def test_a_name_covers_a_fragment_when_it_holds_every_word(overlap: NameOverlap) -> None:
    assert overlap.covers("HP:0003707", phrase_key("calf pseudohypertrophy"))  # Calf muscle pseudohypertrophy
    assert not overlap.covers("HP:0008739", phrase_key("calf pseudohypertrophy"))  # Labial pseudohypertrophy
