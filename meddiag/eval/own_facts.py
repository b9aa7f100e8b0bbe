"""How much of the gold disease's phenotype knowledge rests only on the case's own publications.

Under leave-publication-out those facts are hidden while the case is answered, so the share
tells, case by case, whether a miss is the method's or the protocol's: a disease left with
few of its facts no longer describes the patient, and one left with none can be found only
through its phenotypic series or the text. Under the full protocol the same share marks
the cases whose diagnosis the knowledge base learnt from the case report itself.

A fact that rests on the case's papers *and* on another source stays visible but loses its
curated frequency (`knowledge.model.keeps_frequency`: the frequency was pooled over every
source), so it is counted apart, as *thinned*: the protocol takes part of it, not all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from meddiag.knowledge.model import Relation, keeps_frequency, visible

OWN_SHARE_GROUPS = ("none", "half or fewer", "more than half", "all")


def own_share_group(own: int, total: int) -> str:
    """The group of a disease with `own` of its `total` facts resting only on the case's papers."""
    none, some, most, all_ = OWN_SHARE_GROUPS
    if own == 0:
        return none
    if own == total:
        return all_
    return most if own > total / 2 else some


class FactCount(NamedTuple):
    """How a case's own publications touch its gold disease's phenotype facts."""

    own: int  # resting only on the case's papers: hidden under leave-publication-out
    total: int
    thinned: int  # visible, but their curated frequency drew on the case's papers


@dataclass(frozen=True)
class PhenotypeFacts:
    """Every HAS_PHENOTYPE fact per disease id (as a relation, for its sources and frequency),
    and the KB's equivalences."""

    facts: Mapping[str, Sequence[Relation]]
    equivalents: Mapping[str, Sequence[str]]

    @classmethod
    def from_relations(
        cls, relations: Iterable[Relation], equivalents: Mapping[str, Sequence[str]]
    ) -> PhenotypeFacts:
        facts: dict[str, list[Relation]] = {}
        for rel in relations:
            if rel.predicate == "HAS_PHENOTYPE":
                facts.setdefault(rel.subject, []).append(rel)
        return cls(facts, equivalents)

    def count(self, disease_ids: Iterable[str], case_sources: frozenset[str]) -> FactCount:
        """The facts of the diseases and their equivalents that `case_sources` hide or thin.

        `equivalents` holds whole equivalence groups (`questions.equivalence_map`), so one
        look-up reaches every id the ranker pools with a disease (OMIM → MONDO → ORPHA)."""
        ids: dict[str, None] = {}
        for d in disease_ids:
            ids.update(dict.fromkeys([d, *self.equivalents.get(d, ())]))
        facts = [r for d in ids for r in self.facts.get(d, ())]
        seen = [r for r in facts if visible(r.sources, case_sources)]
        thinned = sum(1 for r in seen if not keeps_frequency(r, case_sources))
        return FactCount(own=len(facts) - len(seen), total=len(facts), thinned=thinned)
