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
