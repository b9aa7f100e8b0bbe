"""Which words of a clinical sentence fall under a negation ("no", "without", "denies" …).

A NegEx-style rule set, kept small on purpose: a *pre* cue ("no", "without", "negative
for", "no evidence of") negates what follows it up to the next clause boundary ("absence
of" inside an affirmed list: up to the next comma); a *post* cue ("absent", "ruled out",
"not observed") negates what precedes it back to the previous boundary. Boundaries are sentence punctuation and words that open a new clause ("but",
"however", "has", "with" …). Cue words that belong to a matched phenotype phrase
("Absent thumb") are part of the finding, not a negation, so the caller passes the token
positions already covered by phrases.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

# Multi-word cues first so that "no evidence of" wins over "no".
PRE_CUES: tuple[tuple[str, ...], ...] = tuple(
    tuple(c.split())
    for c in (
        "no evidence of",
        "no sign of",
        "no signs of",
        "no history of",
        "negative for",
        "free of",
        "absence of",
        "lack of",
        "did not have",
        "does not have",
        "do not have",
        "rule out",
        "ruled out",
        "without",
        "denies",
        "denied",
        "deny",
        "lacks",
        "lacking",
        "never",
        "neither",
        "nor",
        "not",
        "no",
    )
)
POST_CUES: tuple[tuple[str, ...], ...] = tuple(
    tuple(c.split())
    for c in (
        "was ruled out",
        "were ruled out",
        "ruled out",
        "not present",
        "not observed",
        "not seen",
        "not detected",
        "not found",
        "was excluded",
        "were excluded",
        "absent",
        "negative",
    )
)
# Words that open a new clause and so end a negation's scope.
TERMINATORS: frozenset[str] = frozenset(
    {
        "but",
        "however",
        "although",
        "though",
        "yet",
        "except",
        "whereas",
        "while",
        "which",
        "who",
        "with",
        "has",
        "have",
        "had",
        "presents",
        "presented",
        "presenting",
        "shows",
        "showed",
        "show",
        "reports",
        "reported",
        "exhibits",
        "exhibited",
        "developed",
        "develops",
        "displays",
        "displayed",
        "there",
        "apart",
        "aside",
    }
)


def _by_first_word(cues: tuple[tuple[str, ...], ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    out: dict[str, list[tuple[str, ...]]] = {}
    for cue in cues:
        out.setdefault(cue[0], []).append(cue)
    return {w: tuple(c) for w, c in out.items()}


# Words that may follow a post cue inside its own clause ("absent in both hands", "absent at
# birth"); any other word after "absent" is the noun it qualifies ("absent thumbs").
_AFTER_POST: frozenset[str] = frozenset(
    {"and", "or", "nor", "in", "on", "at", "from", "since", "for", "to", "throughout", "during"}
    | {"until", "after", "before", "by", "both", "upon", "as", "of", "when", "if", "than"}
)


def _attributive(tokens: Sequence[Token], i: int, cue: tuple[str, ...]) -> bool:
    """Whether the post cue at `i` is an adjective before its noun ("absent circulating
    isohemagglutinin"): that names a finding, it does not negate what came before it."""
    j = i + len(cue)
    if cue != ("absent",) or j >= len(tokens):
        return False
    nxt = tokens[j]
    if nxt.boundary_before or nxt.comma_before or nxt.colon_before:
        return False
    word = nxt.lower
    return word.isalpha() and word not in _AFTER_POST and word not in TERMINATORS and not word.endswith("ly")


_PRE_BY_WORD = _by_first_word(PRE_CUES)
_POST_BY_WORD = _by_first_word(POST_CUES)
_SINGLE_PRE = frozenset(c[0] for c in PRE_CUES if len(c) == 1)
_NOMINAL_PRE = frozenset({("absence", "of"), ("lack", "of")})


class Token(NamedTuple):
    """One word of the text: its folded form and where it sits in the original string."""

    norm: str  # folded form used for phrase lookup
    lower: str  # the word in lower case, used for cue words
    raw: str
    start: int
    end: int
    boundary_before: bool  # sentence punctuation between this token and the previous one
    comma_before: bool  # a comma (or other soft break) between this token and the previous one
    # Only a colon between this token and the previous one: a break, except inside a name that
    # has one there ("EMG: myopathic abnormalities", "Decreased CD4:CD8 ratio").
    colon_before: bool = False


def _match_at(tokens: Sequence[Token], i: int, cue: tuple[str, ...], covered: Collection[int]) -> bool:
    if i + len(cue) > len(tokens):
        return False
    for k, word in enumerate(cue):
        tok = tokens[i + k]
        if tok.lower != word or (i + k) in covered:
            return False
        if k and (tok.boundary_before or tok.comma_before):
            return False
    return True


def negated_positions(tokens: Sequence[Token], covered: Collection[int] = frozenset()) -> set[int]:
    """Token positions inside the scope of a negation cue.

    `covered` holds positions that belong to matched phrases; cue words there are ignored.
    """
    negated: set[int] = set()
    i = 0
    n = len(tokens)
    while i < n:
        word = tokens[i].lower
        if i in covered or (word not in _PRE_BY_WORD and word not in _POST_BY_WORD):
            i += 1
            continue
        # The longest cue wins ("negative for" is a pre cue, "negative" a post cue); ties go to pre.
        pre = max(
            (c for c in _PRE_BY_WORD.get(word, ()) if _match_at(tokens, i, c, covered)), key=len, default=None
        )
        post = max(
            (c for c in _POST_BY_WORD.get(word, ()) if _match_at(tokens, i, c, covered)),
            key=len,
            default=None,
        )
        if post is not None and _attributive(tokens, i, post):
            post = None
        if post is not None and (pre is None or len(post) > len(pre)):
            # Backwards to the previous hard boundary, comma or clause opener.
            j = i - 1
            while j >= 0 and tokens[j].lower not in TERMINATORS:
                negated.add(j)
                if tokens[j].boundary_before or tokens[j].comma_before:
                    break
                j -= 1
            i += len(post)
            continue
        if pre is not None:
            # A nominal cue opening one item of a list whose item before it stands affirmed
            # ("lethargy, absence of granulocytes, fever") names that item's finding and negates
            # it only; "no X, Y or Z" negates the rest of its clause wherever it stands.
            item_only = pre in _NOMINAL_PRE and tokens[i].comma_before and (i - 1) not in negated
            j = i + len(pre)
            while j < n and not tokens[j].boundary_before and tokens[j].lower not in TERMINATORS:
                if tokens[j].lower in _SINGLE_PRE and j not in covered:
                    break  # the next cue ("no X, no Y") negates the rest of the clause itself
                if item_only and tokens[j].comma_before:
                    break
                negated.add(j)
                j += 1
            i += len(pre)
            continue
        i += 1
    return negated
