"""The scope of a relative in a sentence: from the relative to the end of its clause."""

from __future__ import annotations

from meddiag.diagnosis.experiencer import relative_positions
from meddiag.diagnosis.linking import tokenize


def _scoped(text: str, covered: frozenset[int] = frozenset()) -> dict[str, str]:
    tokens = tokenize(text)
    return {tokens[k].raw: who for k, who in relative_positions(tokens, covered).items()}


def test_the_scope_runs_from_the_relative_to_the_clause_end() -> None:
    assert _scoped("Ataxia; his mother has deafness, and he has ptosis") == {
        "has": "mother",
        "deafness": "mother",
    }


def test_a_clause_about_the_patient_ends_the_scope() -> None:
    assert _scoped("Her sister is tall but she has ptosis") == {"is": "sister", "tall": "sister"}


def test_family_history_opens_a_scope_of_its_own() -> None:
    assert _scoped("Family history of deafness. Seizures") == {
        "of": "family history",
        "deafness": "family history",
    }


def test_a_relative_word_inside_a_matched_phrase_opens_nothing() -> None:
    tokens = tokenize("Twin pregnancy with polyhydramnios")
    assert relative_positions(tokens, covered=frozenset({0, 1})) == {}
