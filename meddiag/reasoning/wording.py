"""How the offline reasoner writes lists and citation markers into its sentences."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def join_words(items: Sequence[str], word: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c`` (or any other conjunction)."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def markers(numbers: Iterable[int]) -> str:
    """Citation markers ``[1][3]``, each number once, in order of first use."""
    return "".join(f"[{n}]" for n in dict.fromkeys(numbers))


def in_sentence(label: str) -> str:
    """An HPO or disease label as it reads inside a sentence: HPO writes labels in sentence
    case, so only the first letter is lowered — "Increased circulating IgE concentration" →
    "increased circulating IgE concentration" — and not when the first word is an acronym
    ("EMG: myopathic abnormalities", "T lymphocytopenia") or a hyphenated name
    ("Kayser-Fleischer ring"). An eponym standing alone ("Gowers sign") cannot be told from an
    ordinary word and is lowered like one."""
    first = label.split(" ", 1)[0]
    if not first or not first[0].isupper():
        return label
    if len(first) == 1 or any(c.isupper() or c.isdigit() for c in first[1:]):
        return label
    return first[0].lower() + label[1:]
