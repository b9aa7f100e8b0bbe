"""How labels and lists read inside the offline reasoner's sentences."""

from __future__ import annotations

import pytest

from meddiag.knowledge.hpo import PHENOTYPIC_ABNORMALITY, Ontology, Term, in_sentence
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


def test_an_eponym_hpo_capitalises_elsewhere_keeps_its_capital() -> None:
    root = Term(PHENOTYPIC_ABNORMALITY, "Phenotypic abnormality")
    terms = [
        Term("HP:0000001", "All"),
        root,
        Term("HP:0003391", "Gowers sign", parents=[root.id]),
        Term("HP:0000002", "Positive Gowers sign on rising", parents=[root.id]),  # capitalised mid-label
        Term("HP:0000003", "Seizure", parents=[root.id], synonyms=["Seizures Of Any Kind"]),  # title case
        Term("HP:0000004", "Focal seizure", parents=[root.id]),
    ]
    root.parents = ["HP:0000001"]
    ontology = Ontology(terms)
    assert ontology.proper_nouns == frozenset({"Gowers"})
    assert in_sentence("Gowers sign", ontology.proper_nouns) == "Gowers sign"
    assert in_sentence("Seizure", ontology.proper_nouns) == "seizure"
    assert in_sentence("Gowers sign") == "gowers sign"  # without the ontology's word list
