from __future__ import annotations

import pytest

from meddiag.diagnosis.name_variants import (
    count_variants,
    immunoglobulin_variants,
    located_variants,
    proportion_variants,
    uninverted,
)


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


def test_an_abnormal_count_keeps_its_word_and_takes_total_and_number() -> None:
    variants = count_variants("Abnormal natural killer cell count")
    assert "abnormal total natural killer cell count" in variants
    assert "abnormal natural killer cell number" in variants
    assert not any(v.startswith(("decreased", "increased")) for v in variants)


@pytest.mark.parametrize("name", ["Neutropenia", "Abnormality of neutrophils", "Decreased CD4:CD8 ratio"])
def test_names_that_are_not_a_directed_count_give_no_variant(name: str) -> None:
    assert count_variants(name) == []


def test_a_proportion_name_puts_the_cells_first_without_their_positive_marker() -> None:
    variants = proportion_variants("Decreased proportion of CD4-positive T cells")
    assert "decreased CD4 T cells proportion" in variants  # "CD4+" reads as "CD4"
    assert "reduced CD4-positive T cells proportion" in variants
    assert not any(v.startswith(("increased", "abnormal")) for v in variants)
    assert proportion_variants("Abnormal proportion of gamma-delta T cells") == [
        "abnormal gamma-delta T cells proportion"
    ]


@pytest.mark.parametrize(
    "name",
    [
        "Decreased proportion of CD4-positive, alpha-beta T cells",  # a list, not one cell type
        "Decreased CD4:CD8 ratio",
        "Proportionate short stature",
    ],
)
def test_names_that_are_not_a_directed_proportion_give_no_variant(name: str) -> None:
    assert proportion_variants(name) == []


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


def test_a_blood_antibody_level_is_also_an_immunoglobulin_level() -> None:
    assert immunoglobulin_variants("Decreased circulating antibody concentration") == [
        "Decreased circulating immunoglobulin concentration"
    ]
    assert immunoglobulin_variants("Anti-PR3 antibody positivity") == []
