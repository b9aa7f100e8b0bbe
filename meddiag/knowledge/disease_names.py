"""Disease names as the knowledge base shows them.

HPO's annotation file carries some OMIM names in capitals only ("OSTEOPOROSIS", "DEAFNESS,
Y-LINKED 2": 141 of 12,687 names in the packaged release), which read as shouting beside the
others. Such a name takes its MONDO class's casing when the two have the same words, and is
otherwise written in sentence case, keeping what is likely a symbol in capitals: a part with
a digit ("SLC35A1"), a letter or a short non-word ("VITAMIN K", "B-CELL CLL"), a gene-named
disorder of glycosylation ("DDOST-CDG") and a short one-word name ("CHANDS").
"""

from __future__ import annotations

import re

from meddiag.knowledge.mondo import normalise_label

_SHORT_ACRONYM = 6  # letters in a one-word capitals name still read as an acronym
_PARTS = re.compile(r"([\s\-/,()]+)")
_SHORT_WORDS = frozenset(
    {"of", "to", "and", "the", "in", "on", "by", "for", "due", "or", "an", "a", "low", "big"}
)
# A congenital disorder of glycosylation is named by its gene ("DDOST-CDG").
_GENE_CDG = re.compile(r"^[A-Z0-9]+-CDG$")


def readable_name(name: str, mondo_label: str | None = None) -> str:
    """`name` unchanged unless it is written in capitals only (see the module docstring)."""
    if not any(c.isalpha() for c in name) or name.upper() != name:
        return name
    if mondo_label and normalise_label(mondo_label) == normalise_label(name):
        return mondo_label[0].upper() + mondo_label[1:]
    if _GENE_CDG.match(name) or (
        not _PARTS.search(name) and sum(c.isalpha() for c in name) <= _SHORT_ACRONYM
    ):
        return name
    parts = [_lowered(p) for p in _PARTS.split(name)]
    text = "".join(parts)
    return text[0].upper() + text[1:]


def _lowered(part: str) -> str:
    if any(c.isdigit() for c in part):
        return part
    if len(part) <= 3 and part.lower() not in _SHORT_WORDS:
        return part
    return part.lower()
