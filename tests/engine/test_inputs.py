"""What a clinician types before anything runs: sources to leave out; what a question asks about."""

from __future__ import annotations

import pytest

from meddiag.diagnosis.onset import onset_at, onset_of_class
from meddiag.engine.inputs import asked_about, lab_value_lines, onset_line, source_ids
from meddiag.errors import InputError
from meddiag.schema import Finding, LabValue, Onset, ParsedQuestion
from tests.ui.sample_case import SODIUM_WITHIN_RANGE


def test_sources_are_split_and_written_as_the_knowledge_base_writes_them() -> None:
    typed = "pmid:31021519, PMID:035190816; orpha:558  012345678\nISBN-13:978-0-19"
    assert source_ids(typed) == {
        "PMID:31021519",
        "PMID:35190816",  # PubMed ids are cited without zero padding
        "ORPHA:558",
        "PMID:12345678",  # a bare number is a PubMed id
        "ISBN-13:978-0-19",  # other prefixes are kept as typed
    }


def test_nothing_typed_leaves_nothing_out() -> None:
    assert source_ids("  ,; ") == frozenset()


def test_a_token_that_is_no_source_id_is_named() -> None:
    with pytest.raises(InputError, match=r"Not a source id: Smith2019\b"):
        source_ids("PMID:1, Smith2019")


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("inheritance", "the mode of inheritance of Marfan syndrome"),
        ("onset", "the age of onset of Marfan syndrome"),
        ("compare", "how Marfan syndrome and Loeys-Dietz syndrome differ"),
        ("gene_diseases", "the diseases linked to FBN1"),
        ("diagnosis", None),  # a patient: the page lists the findings instead
    ],
)
def test_what_a_question_asks_about_is_said_in_its_own_words(kind: str, expected: str | None) -> None:
    parsed = ParsedQuestion(
        text="…",
        kind=kind,  # type: ignore[arg-type]
        diseases=["OMIM:154700", "OMIM:609192"],
        disease_mentions=["Marfan syndrome", "Loeys-Dietz syndrome"],
        genes=["FBN1"],
    )
    assert asked_about(parsed) == expected


def test_lab_values_are_described_with_the_limit_and_the_finding_they_became() -> None:
    ck = Finding(hpo_id="HP:0003236", label="Elevated circulating creatine kinase concentration", match="lab")
    parsed = ParsedQuestion(
        text="CK 20,000 U/L, sodium 140",
        kind="diagnosis",
        findings=[ck],
        lab_values=[
            LabValue(
                analyte="creatine kinase",
                value=20000,
                unit="U/L",
                reading="high",
                limit="above 300 U/L",
                mention="CK 20,000 U/L",
                hpo_id="HP:0003236",
            ),
            SODIUM_WITHIN_RANGE,
        ],
    )
    assert lab_value_lines(parsed) == [
        "CK 20,000 U/L — high (above 300 U/L): Elevated circulating creatine kinase concentration",
        "sodium 140 — within 135–145 mmol/L",
    ]


def test_the_onset_line_gives_a_class_its_ages_and_an_age_as_written() -> None:
    def line(onset: Onset | None) -> str | None:
        return onset_line(ParsedQuestion(text="q", kind="diagnosis", onset=onset))

    assert line(None) is None
    assert line(onset_at(3.0)) == "onset at 3 years"
    assert line(onset_of_class("HP:0003593")) == "infantile onset (28 days to 1 year)"
    assert line(onset_of_class("HP:0003581")) == "adult onset (from 16 years)"
    assert line(onset_of_class("HP:0011461")) == "fetal onset (8 weeks of gestation to birth)"
    assert line(onset_of_class("HP:0030674")) == "antenatal onset (conception to birth)"
