"""Laboratory values read against the limits of `lab_limits.csv`."""

from __future__ import annotations

import pytest

from meddiag.diagnosis.lab_values import LabReading, UnreadLab, analytes, normalise_unit, read_lab_values
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.sources import packaged_sources


def _one(text: str) -> LabReading:
    (item,) = read_lab_values(text)
    assert isinstance(item, LabReading), item
    return item


@pytest.mark.parametrize(
    ("text", "analyte", "value", "unit", "reading", "hpo_id"),
    [
        ("CK 900 U/L", "creatine kinase", 900, "U/L", "high", "HP:0003236"),
        (
            "serum CK was markedly elevated at 1,500 IU/L",
            "creatine kinase",
            1500,
            "U/L",
            "high",
            "HP:0003236",
        ),
        ("glucose 30 mg/dL", "glucose", 30, "mg/dL", "low", "HP:0001943"),
        ("glucose 2.1 mmol/L", "glucose", 2.1, "mmol/L", "low", "HP:0001943"),
        ("potassium 3,2 mmol/L", "potassium", 3.2, "mmol/L", "low", "HP:0002900"),  # a decimal comma
        ("ALP 15", "alkaline phosphatase", 15, "U/L", "low", "HP:0003282"),
        ("alkaline phosphatase 900 U/L", "alkaline phosphatase", 900, "U/L", "high", "HP:0003155"),
        ("platelets 40,000", "platelets", 40000, "/µL", "low", "HP:0001873"),
        ("platelets 40 ×10⁹/L", "platelets", 40, "×10⁹/L", "low", "HP:0001873"),
        ("WBC 2.1 x 10^9/L", "white cell count", 2.1, "×10⁹/L", "low", "HP:0001882"),
        ("ammonia 250", "ammonia", 250, "µmol/L", "high", "HP:0001987"),  # high in either unit
        ("Hb 7 g/dL", "hemoglobin", 7, "g/dL", "low", "HP:0001903"),
        ("TSH > 100", "TSH", 100, "mIU/L", "high", "HP:0002925"),
        ("sodium 140", "sodium", 140, "mmol/L", "normal", None),
        ("Hb 13.5 g/dL", "hemoglobin", 13.5, "g/dL", "normal", None),
    ],
)
def test_values_are_read_against_the_limits_of_their_unit(
    text: str, analyte: str, value: float, unit: str, reading: str, hpo_id: str | None
) -> None:
    item = _one(text)
    assert (item.analyte, item.value, item.unit, item.reading, item.hpo_id) == (
        analyte,
        pytest.approx(value),
        unit,
        reading,
        hpo_id,
    )
    assert text.endswith(item.mention) or item.mention in text


def test_the_limit_used_is_stated() -> None:
    assert _one("CK 900 U/L").limit == "above 300 U/L"
    assert _one("sodium 140").limit == "within 135–145 mmol/L"
    assert _one("Hb 13.5 g/dL").limit == "at or above 11 g/dL"


def test_a_unitless_value_whose_units_disagree_asks_for_the_unit() -> None:
    (item,) = read_lab_values("glucose 30, seizures")
    assert isinstance(item, UnreadLab)
    assert "give its unit (mg/dL or mmol/L)" in item.reason


def test_an_unknown_unit_is_not_guessed() -> None:
    (item,) = read_lab_values("glucose 5 g/L")
    assert isinstance(item, UnreadLab) and "not one known for glucose" in item.reason


@pytest.mark.parametrize(
    "text",
    [
        "Platelet count 3 days later was normal",  # a time, not a value
        "CK 10 times the upper limit",  # a multiple
        "TSH < 100",  # a comparison that leaves it open
        "hypercalcemia, calcium deposits",  # no number
        "sodium valproate 500 mg",  # a drug, not the analyte
    ],
)
def test_numbers_that_are_not_the_value_are_not_read(text: str) -> None:
    assert list(read_lab_values(text)) == []


def test_the_longest_name_wins_and_values_come_in_text_order() -> None:
    items = list(read_lab_values("LDL cholesterol 250 mg/dL, then CK 900 U/L"))
    assert [(i.analyte, i.reading) for i in items if isinstance(i, LabReading)] == [
        ("LDL cholesterol", "high"),
        ("creatine kinase", "high"),
    ]


def test_acronyms_match_only_in_capitals() -> None:
    assert list(read_lab_values("ck 20000 U/L")) == []
    assert _one("CK 20000 U/L").analyte == "creatine kinase"


def test_unit_spellings_fold() -> None:
    assert normalise_unit("×10⁹/L") == normalise_unit("x 10^9/l") == normalise_unit("10e9/L")
    assert normalise_unit("µmol/L") == normalise_unit("umol/l")


def test_every_limit_has_a_current_hpo_term_of_its_direction() -> None:
    ontology = Ontology.from_obo(packaged_sources().hp_obo)
    for analyte in analytes():
        assert analyte.units, analyte.name
        for term in (analyte.low_term, analyte.high_term):
            assert term is None or ontology.resolve(term) == term, (analyte.name, term)
        for unit in analyte.units:
            # A reading of "high" or "low" must become a finding, never a silent non-finding.
            assert (unit.high is None) == (analyte.high_term is None), (analyte.name, unit.label)
            assert (unit.low is None) == (analyte.low_term is None), (analyte.name, unit.label)
            lo, hi = unit.plausible
            assert lo < hi and (unit.low is None or lo <= unit.low) and (unit.high is None or unit.high <= hi)
