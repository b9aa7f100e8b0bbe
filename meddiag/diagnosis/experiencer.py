"""Whose finding is it: the patient's, or a relative's ("His mother has hearing loss")?

A clinician's question often mentions the family. A finding that follows a relative
("mother", "brother", "family history of" …) in the same clause describes that relative,
so it must not be matched as the patient's. The scope runs from the relative to the next
comma, sentence end or clause opener ("but", "whereas" …); a finding named *before* the
relative ("ataxia, like his father") stays the patient's, since the clause is about the
patient. Kept small on purpose, like the negation rules beside it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from meddiag.diagnosis.negation import Token

RELATIVES: frozenset[str] = frozenset(
    {
        "mother",
        "father",
        "mom",
        "dad",
        "parent",
        "parents",
        "sibling",
        "siblings",
        "brother",
        "brothers",
        "sister",
        "sisters",
        "twin",
        "aunt",
        "uncle",
        "cousin",
        "cousins",
        "grandmother",
        "grandfather",
        "grandparent",
        "grandparents",
        "relatives",  # not "relative": "relative sparing of …" describes the patient
    }
)
_FAMILY_HISTORY = ("family", "history")
# Words that start a clause about someone else, ending a relative's scope.
_CLAUSE_OPENERS: frozenset[str] = frozenset(
    {"but", "however", "whereas", "while", "although", "though", "yet", "he", "she", "patient", "proband"}
)


def relative_positions(tokens: Sequence[Token], covered: Collection[int] = frozenset()) -> dict[int, str]:
    """Token positions describing a relative, each with the word that named the relative.

    `covered` holds positions inside matched phrases ("Father's disease"), which never open
    a relative's scope themselves.
    """
    found: dict[int, str] = {}
    n = len(tokens)
    for i, tok in enumerate(tokens):
        if i in covered:
            continue
        word = tok.lower
        family_history = (word, tokens[i + 1].lower if i + 1 < n else "") == _FAMILY_HISTORY
        if word not in RELATIVES and not family_history:
            continue
        who = "family history" if family_history else word
        j = i + (2 if family_history else 1)
        while j < n and not (tokens[j].boundary_before or tokens[j].comma_before):
            if tokens[j].lower in _CLAUSE_OPENERS:
                break
            found.setdefault(j, who)
            j += 1
    return found
