from __future__ import annotations

import pytest

from meddiag.diagnosis.name_variants import count_variants, located_variants, uninverted


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Intellectual disability, severe", "severe Intellectual disability"),
        ("Hypotonia, generalized", "generalized Hypotonia"),
        ("Mental retardation, borderline-mild", "borderline-mild Mental retardation"),
        ("Deafness, autosomal recessive", "autosomal recessive Deafness"),
    ],
)
def test_a_short_qualifier_after_one_comma_moves_to_the_front(name: str, expected: str) -> None:
    assert uninverted(name) == expected


@pytest.mark.parametrize(
    "name",
    [
        "Seizure",  # not inverted
        "Muscle weakness, proximal, lower limbs",  # two commas: a list, not one qualifier
        "Abnormality of the eye, as seen in the first year",  # a long tail explains, it does not qualify
        "Cleft lip (unilateral), left",  # brackets
    ],
)
def test_names_that_are_not_inverted_give_nothing(name: str) -> None:
    assert uninverted(name) is None


def test_a_count_name_takes_each_direction_synonym_total_and_number() -> None:
    variants = count_variants("Low blood neutrophil count")
    assert "decreased total neutrophil count" in variants
    assert "reduced neutrophil number" in variants
    assert "low neutrophil count" in variants
    assert not any("blood" in v or "increased" in v for v in variants)
    assert "elevated total eosinophil count" in count_variants("High blood eosinophil count")


@pytest.mark.parametrize("name", ["Neutropenia", "Abnormal neutrophil count", "Decreased CD4:CD8 ratio"])
def test_names_that_are_not_a_directed_count_give_no_variant(name: str) -> None:
    assert count_variants(name) == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "Proximal muscle weakness in upper limbs",
            ["upper limbs Proximal muscle weakness", "Proximal upper limbs muscle weakness"],
        ),
        ("Pain in the chest", ["chest Pain"]),
        ("Abnormality of the nervous system", []),  # "of" is not a site
        ("Seizure", []),
    ],
)
def test_the_site_of_a_finding_can_stand_before_it(name: str, expected: list[str]) -> None:
    assert located_variants(name) == expected
