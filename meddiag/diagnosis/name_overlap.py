"""How much a fragment of free text shares with an HPO term's names.

The embedding fallback (`linking.PhraseLinker`) finds the HPO names whose vectors are nearest
a fragment the phrase index did not cover. Vectors alone put "Labial pseudohypertrophy" just
above "Calf muscle pseudohypertrophy" for "pseudohypertrophy of calves", and "8yo" near
"Oocyte maturation arrest"; this overlap lets the fallback prefer names that share the
fragment's telling words and refuse names that share none.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from meddiag.knowledge.hpo import Ontology

STEM_LETTERS = 7


def stem(word: str) -> str:
    """A crude stem: "cholestatic" and "cholestasis", "hypermobile" and "hypermobility" share
    their first seven letters, "hypertrophy" and "hypertension" do not."""
    return word[:STEM_LETTERS]


class NameMatch(NamedTuple):
    share: float  # weighted Dice overlap with the closest name, 0-1
    covers: bool  # some name holds every word of the fragment


class NameOverlap:
    """Weighted Dice overlap of folded words with a term's closest label or synonym, each stem
    weighted by its inverse frequency among phenotype names: "t" and "b" tell T from B cells,
    "decreased" and "count" hardly anything."""

    def __init__(
        self,
        ontology: Ontology,
        names: Iterable[Sequence[str]],
        words_of: Callable[[str], Sequence[str]],
    ) -> None:
        """`names`: every phenotype name as folded words; `words_of`: the same folding for text."""
        self.ontology = ontology
        self.words_of = words_of
        names = list(names)
        frequency = Counter(s for name in names for s in {stem(w) for w in name})
        self.weight = {s: math.log(len(names) / n) for s, n in frequency.items()}
        self.unseen = math.log(max(len(names), 1))  # a word no name uses tells the most
        # Whole words here, not stems: "choroid" must not find Choroideremia.
        self._word_frequency = Counter(w for name in names for w in set(name))
        self._terms_by_word: dict[str, set[str]] | None = None  # built on first use

    def _holders(self) -> dict[str, set[str]]:
        if self._terms_by_word is None:
            index: dict[str, set[str]] = {}
            for tid in self.ontology.phenotype_ids:
                term = self.ontology.terms[tid]
                for name in (term.name, *term.synonyms):
                    for w in set(self.words_of(name)):
                        index.setdefault(w, set()).add(tid)
            self._terms_by_word = index
        return self._terms_by_word

    def holding_rare(self, words: Sequence[str], rare: int) -> list[str]:
        """Terms whose names hold every word of `words` that at most `rare` phenotype names
        use ("isohemagglutinin", "IgM"): the fragment's telling words, which the name vectors
        can lose. Words no name uses are left out (nothing can match them); no rare word, no
        term."""
        telling = [w for w in set(words) if 0 < self._word_frequency.get(w, 0) <= rare]
        if not telling:
            return []
        holders = self._holders()
        return sorted(set.intersection(*(holders.get(w, set()) for w in telling)))

    def _weigh(self, stems: Iterable[str]) -> float:
        return sum(self.weight.get(s, self.unseen) for s in stems)

    def measure(self, term_id: str, words: Sequence[str]) -> NameMatch:
        """Both measures in one pass over the term's names."""
        fragment = {stem(w) for w in words}
        total = self._weigh(fragment)
        term = self.ontology.terms[term_id]
        share, covers = 0.0, False
        for name in [term.name, *term.synonyms]:
            stems = {stem(w) for w in self.words_of(name)}
            covers = covers or fragment <= stems
            size = total + self._weigh(stems)
            if size:
                share = max(share, 2 * self._weigh(stems & fragment) / size)
        return NameMatch(share, covers)

    def covers(self, term_id: str, words: Sequence[str]) -> bool:
        """Whether one of the term's names holds every word of the fragment (as stems):
        "calf pseudohypertrophy" in "Calf muscle pseudohypertrophy"."""
        return self.measure(term_id, words).covers

    def __call__(self, term_id: str, words: Sequence[str]) -> float:
        """0 (no shared stem) to 1 (the same words)."""
        return self.measure(term_id, words).share
