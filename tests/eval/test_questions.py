from __future__ import annotations

import pytest

from meddiag.diagnosis.onset import onset_at, onset_of_class, parse_onset
from meddiag.eval.phenopackets import Case, Feature, duration_years
from meddiag.eval.questions import age_phrase, equivalence_map, gold_match, structured, vignette
from meddiag.schema import Onset


def case(age: str | None = "P6Y", sex: str | None = "female", excluded: bool = True) -> Case:
    return Case(
        id="c1",
        observed=[
            Feature(id="HP:0000348", label="High forehead"),
            Feature(id="HP:0011220", label="Prominent forehead"),
        ],
        excluded=[
            Feature(id="HP:0000243", label="Trigonocephaly"),
            Feature(id="HP:0005469", label="Flat occiput"),
        ]
        if excluded
        else [],
        age_years=duration_years(age) if age else None,
        sex=sex,  # type: ignore[arg-type]
        diseases=["OMIM:147791"],
        genes=["ETS1"],
        pmids=["PMID:15266616"],
    )


def test_vignette_reads_like_a_clinician_with_negations() -> None:
    assert vignette(case()) == (
        "A 6-year-old girl presents with high forehead and prominent forehead. "
        "She has no trigonocephaly and no flat occiput. What is the most likely diagnosis?"
    )


@pytest.mark.parametrize(
    ("age", "sex", "opening"),
    [
        ("P3M", "male", "A 3-month-old boy presents with"),
        ("P1Y6M", "female", "An 18-month-old girl presents with"),
        ("P30D", None, "A 30-day-old infant presents with"),
        ("P8Y", "male", "An 8-year-old boy presents with"),
        ("P11Y", "female", "An 11-year-old girl presents with"),
        ("P35Y", "female", "A 35-year-old woman presents with"),
        (None, "male", "A male patient presents with"),
        (None, None, "A patient presents with"),
        ("P0D", None, "A newborn presents with"),
    ],
)
def test_vignette_handles_ages_and_missing_sex(age: str | None, sex: str | None, opening: str) -> None:
    assert vignette(case(age, sex)).startswith(opening)


def test_unknown_sex_uses_a_neutral_subject_for_negations() -> None:
    assert "The patient has no trigonocephaly" in vignette(case(sex="unknown"))


def test_vignette_without_excluded_findings_has_no_negation() -> None:
    text = vignette(case(excluded=False))
    assert " no " not in text


def test_vignette_never_leaks_ids_gene_or_diagnosis() -> None:
    text = vignette(case())
    assert "HP:" not in text and "ETS1" not in text and "OMIM" not in text


def test_vignette_names_the_genes_only_when_asked() -> None:
    text = vignette(case(), genes=True)
    assert text.endswith("Genetic testing found a variant in ETS1. What is the most likely diagnosis?")
    assert "found variants in ETS1 and FLI1." in vignette(
        case().model_copy(update={"genes": ["ETS1", "FLI1"]}), genes=True
    )
    assert structured(case(), genes=True).genes == ["ETS1"]


def test_age_phrase_counts_months_under_two_years() -> None:
    assert age_phrase(23 / 12) == "23-month-old"
    assert age_phrase(None) == ""


def test_structured_input_carries_ids_age_sex_and_onset_only() -> None:
    patient = structured(case())
    assert patient.observed == ["HP:0000348", "HP:0011220"]
    assert patient.excluded == ["HP:0000243", "HP:0005469"]
    assert patient.age_years == pytest.approx(6.0)
    assert patient.sex == "female"
    assert patient.onset is None
    assert patient.genes == []
    with_onset = case().model_copy(update={"onset": onset_at(0.25)})
    assert structured(with_onset).onset == onset_at(0.25)


@pytest.mark.parametrize(
    ("onset", "sentence"),
    [
        (onset_of_class("HP:0003593"), "Infantile onset."),
        (onset_at(3.0), "Onset at 3 years."),
        (onset_at(0.0), "Onset at birth."),
    ],
)
def test_vignette_states_the_onset_as_a_sentence_the_linker_reads_back(onset: Onset, sentence: str) -> None:
    text = vignette(case().model_copy(update={"onset": onset}))
    assert f"forehead. {sentence} She has" in text
    read, _ = parse_onset(text)
    assert read is not None
    assert (read.low_years, read.high_years) == (onset.low_years, onset.high_years)
    assert parse_onset(vignette(case()))[0] is None


def test_gold_matches_through_equivalences() -> None:
    equivalents = {"OMIM:147791": ["OMIM:147791", "ORPHA:2308"]}
    match = gold_match(case(), known={"ORPHA:2308"}, equivalents=equivalents)
    assert match.ids == ["OMIM:147791", "ORPHA:2308"]
    assert match.in_kb
    assert not gold_match(case(), known={"OMIM:1"}, equivalents={}).in_kb


def test_gold_follows_every_link_of_its_equivalence_group() -> None:
    # Two OMIM numbers read as one MONDO class: a case of either is answered by the other's row.
    links = [
        ("OMIM:162000", "MONDO:0008073"),
        ("OMIM:603860", "MONDO:0008073"),
        ("ORPHA:34149", "MONDO:0008073"),
    ]
    equivalents = equivalence_map(links)
    assert equivalents["OMIM:603860"] == ["MONDO:0008073", "OMIM:162000", "ORPHA:34149"]
    gold = gold_match(case().model_copy(update={"diseases": ["OMIM:603860"]}), {"OMIM:162000"}, equivalents)
    assert gold.in_kb and "OMIM:162000" in gold.ids
    assert equivalence_map([]) == {}
