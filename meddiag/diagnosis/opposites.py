"""Pairs of HPO terms that state opposite abnormalities of one feature.

HPO names many of its paired abnormalities by antonyms: Microcephaly / Macrocephaly,
Hypocalcemia / Hypercalcemia, Short stature / Tall stature, Increased / Decreased serum
creatine kinase. A disease curated with one of a pair is, for a patient with the other,
evidence *against* it, which the shared ancestor ("Abnormal head circumference") hides: the
similarity score credits the two as a partial match. The ranker's ``opposite_weight`` reads
the pairs found here (`ranking.py`, step 2).

The pairs come from HPO's own names, by swapping one antonym and finding the result among the
phenotype labels, so no pair is written by hand:

- a prefix at the start of any word ("hyper" / "hypo", "macro" / "micro");
- an antonym that opens the name ("Short neck", "Increased ..."), where it qualifies the
  whole abnormality. Further in, it mostly names a kind of thing ("neoplasm of the *small*
  intestine", "*high*-frequency hearing impairment"), as it does before a few nouns that make
  a name of their own ("small cell", "large vessel", "short term").
"""

from __future__ import annotations

from collections import defaultdict

from meddiag.knowledge.hpo import Ontology

PREFIXES = (("hyper", "hypo"), ("macro", "micro"))
OPENING_ANTONYMS = (
    ("increased", "decreased"),
    ("increased", "reduced"),
    ("elevated", "decreased"),
    ("elevated", "reduced"),
    ("high", "low"),
    ("tall", "short"),
    ("long", "short"),
    ("large", "small"),
    ("wide", "narrow"),
    ("broad", "narrow"),
    ("thick", "thin"),
    ("accelerated", "delayed"),
    ("advanced", "delayed"),
    ("precocious", "delayed"),
    ("prominent", "flat"),
    ("excessive", "reduced"),
    ("excessive", "decreased"),
)
# After the opening word, these nouns make a name of its own rather than a size or a level.
NAMING_NOUNS = frozenset({"cell", "vessel", "joint", "term", "intestine", "intestinal", "bowel"})


def _swaps(label: str) -> list[str]:
    """`label` with one antonym swapped, each way it can be (lower case)."""
    words = label.split(" ")
    out: list[str] = []
    for i, word in enumerate(words):
        for a, b in PREFIXES:
            for x, y in ((a, b), (b, a)):
                # "hyper-" inside a word: "triceps hyperreflexia", "focal t2 hyperintense lesion"
                if word.startswith(x) and len(word) > len(x) + 2:
                    out.append(" ".join([*words[:i], y + word[len(x) :], *words[i + 1 :]]))
    first, rest = words[0], words[1:]
    if rest and rest[0] not in NAMING_NOUNS:
        for a, b in OPENING_ANTONYMS:
            for x, y in ((a, b), (b, a)):
                if first == x:
                    out.append(" ".join([y, *rest]))
    return out


def opposite_pairs(ontology: Ontology) -> dict[str, frozenset[str]]:
    """Phenotypic-abnormality term -> the terms naming its opposite (symmetric)."""
    phenotypes = ontology.phenotype_ids
    by_label: dict[str, str] = {}
    for term_id in sorted(phenotypes):
        by_label.setdefault(ontology.label(term_id).lower(), term_id)
    out: dict[str, set[str]] = defaultdict(set)
    for label, term_id in by_label.items():
        for swapped in _swaps(label):
            other = by_label.get(swapped)
            # one under the other is a refinement, not an opposite
            if (
                other
                and other not in ontology.ancestors(term_id)
                and term_id not in ontology.ancestors(other)
            ):
                out[term_id].add(other)
                out[other].add(term_id)
    return {t: frozenset(o) for t, o in out.items()}
