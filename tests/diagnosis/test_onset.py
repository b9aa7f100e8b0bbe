"""Onsets: HPO onset classes as age ranges, onsets read from text, and the gap between two."""

from __future__ import annotations

import math

import numpy as np
import pytest

from meddiag.diagnosis.onset import (
    ONSET_CLASSES,
    onset_at,
    onset_gap,
    onset_of_class,
    parse_onset,
    when_only_spans,
)
from meddiag.schema import Onset

INFANTILE, CONGENITAL, CHILDHOOD, ADULT = "HP:0003593", "HP:0003577", "HP:0011463", "HP:0003581"


def test_an_onset_class_is_its_hpo_age_range() -> None:
    infantile = onset_of_class(INFANTILE)
    assert infantile is not None
    assert (infantile.low_years, infantile.high_years) == pytest.approx((28 / 365.25, 1.0))
    assert infantile.label == "infantile onset" and infantile.hpo_id == INFANTILE
    assert onset_of_class("HP:4000040") is None  # Puerperal onset names no age
    # every class is a proper range, before birth negative
    assert all(low <= high for _, low, high in ONSET_CLASSES.values())
    assert ONSET_CLASSES["HP:0011461"][1] < 0  # fetal onset


@pytest.mark.parametrize(
    ("years", "label"),
    [
        (3.0, "onset at 3 years"),
        (2.5, "onset at 2.5 years"),
        (1.5, "onset at 18 months"),
        (1 / 12, "onset at 1 month"),
        (10 / 365.25, "onset at 10 days"),
        (0.0, "onset at birth"),
        ((20 * 7 - 280) / 365.25, "onset at 20 weeks of gestation"),
    ],
)
def test_an_onset_at_one_age_is_labelled_as_written_and_read_back(years: float, label: str) -> None:
    onset = onset_at(years)
    assert onset.label == label
    assert onset.low_years == onset.high_years == pytest.approx(years)
    read, spans = parse_onset(f"A boy presents with seizures. {label[:1].upper()}{label[1:]}.")
    assert read is not None and spans
    assert (read.low_years, read.high_years) == pytest.approx((years, years), abs=1 / 365.25)


@pytest.mark.parametrize(
    ("text", "hpo_id"),
    [
        ("Infantile onset.", INFANTILE),
        ("adult-onset ataxia", ADULT),
        ("onset in infancy", INFANTILE),
        ("Onset was congenital.", CONGENITAL),
        ("symptoms began in early childhood", CHILDHOOD),
        ("present since birth", CONGENITAL),
        ("Young adult onset.", "HP:0011462"),  # not "adult onset"
        ("late young adult onset", "HP:0025710"),  # not "late onset"
        ("onset in late childhood", CHILDHOOD),  # late childhood is childhood, not late onset
        ("onset in late adulthood", "HP:0003584"),
        ("hypotonia since infancy", INFANTILE),
        ("seizures from early childhood", CHILDHOOD),
        ("onset of symptoms during early infancy", INFANTILE),
    ],
)
def test_onset_classes_are_read_from_the_words_clinicians_use(text: str, hpo_id: str) -> None:
    onset, _ = parse_onset(text)
    assert onset is not None and onset.hpo_id == hpo_id


def test_ages_at_onset_are_read_with_their_units() -> None:
    for text, years in [
        ("Onset at 3 months.", 0.25),
        ("began at the age of six months", 0.5),
        ("Age at onset: 2 years", 2.0),
        ("onset at age 4", 4.0),
        ("onset of seizures at 3 months", 0.25),
        ("hypotonia since the age of 2 years", 2.0),
    ]:
        onset, _ = parse_onset(text)
        assert onset is not None, text
        assert onset.low_years == pytest.approx(years), text


def test_the_earliest_of_several_onsets_is_kept_and_every_phrase_is_located() -> None:
    text = "A 30-year-old man with adult-onset ataxia and neonatal onset seizures."
    onset, spans = parse_onset(text)
    assert onset is not None and onset.label == "neonatal onset"
    assert [text[s:e] for s, e in spans] == ["adult-onset", "neonatal onset"]


def test_words_that_name_no_onset_are_left_alone() -> None:
    for text in [
        "congenital heart defect",
        "A 6-year-old girl with seizures.",
        "late diagnosis",
        "hearing loss from late",
        "onset of seizures in a 6-year-old",
        "",
    ]:
        assert parse_onset(text) == (None, [])


def test_the_gap_is_zero_on_overlap_and_grows_on_a_log_scale_of_months() -> None:
    congenital = onset_of_class(CONGENITAL)
    assert congenital is not None
    low = np.array([0.0, 1.0, 16.0, 28 / 365.25])
    high = np.array([0.0, 5.0, 130.0, 1.0])
    gaps = onset_gap(congenital, low, high)
    assert gaps[0] == 0.0
    assert gaps[1] == pytest.approx(math.log(13))  # childhood starts at 12 months
    assert gaps[2] == pytest.approx(math.log(1 + 12 * 16))
    assert 0 < gaps[3] < gaps[1]  # infancy is nearer birth than childhood is
    # symmetric in direction: an adult onset is as far from childhood as childhood from adulthood
    adult = onset_of_class(ADULT)
    assert adult is not None
    assert onset_gap(adult, np.array([1.0]), np.array([5.0]))[0] == pytest.approx(
        math.log(1 + 12 * 16) - math.log(1 + 12 * 5)
    )


def test_an_onset_range_must_be_ordered() -> None:
    with pytest.raises(ValueError, match="before it starts"):
        Onset(low_years=2.0, high_years=1.0, label="x")


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("Infantile onset. No seizures.", ["Infantile onset"]),
        ("Hypotonia since infancy; onset was in childhood", ["since infancy", "onset was in childhood"]),
        ("Onset at 20 weeks of gestation", ["Onset at 20 weeks of gestation"]),
        ("Onset of seizures at 3 months", []),  # names what began, so its words are read
        ("Seizures, onset at 3 years", []),  # no clinical word to protect: left to the word list
    ],
)
def test_when_only_spans_cover_phrases_that_name_no_finding(text: str, when: list[str]) -> None:
    assert [text[s:e] for s, e in when_only_spans(text)] == when
