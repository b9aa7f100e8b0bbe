"""How labels and lists read inside the offline reasoner's sentences."""

from __future__ import annotations

import pytest

from meddiag.knowledge.hpo import in_sentence
from meddiag.reasoning.wording import join_words, markers


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Seizure", "seizure"),
        ("Increased circulating IgE concentration", "increased circulating IgE concentration"),
        ("Decreased CD4+ T cell count", "decreased CD4+ T cell count"),
        ("EMG: myopathic abnormalities", "EMG: myopathic abnormalities"),
        ("T lymphocytopenia", "T lymphocytopenia"),
        ("Kayser-Fleischer ring", "Kayser-Fleischer ring"),
        ("X-linked dominant inheritance", "X-linked dominant inheritance"),
        ("already lower case", "already lower case"),
        ("", ""),
    ],
)
def test_only_an_ordinary_first_word_is_lowered(label: str, expected: str) -> None:
    assert in_sentence(label) == expected


def test_lists_and_markers() -> None:
    assert join_words(["a", "b", "c"]) == "a, b and c"
    assert join_words(["a", "b"], "or") == "a or b"
    assert markers([3, 1, 3]) == "[3][1]"
