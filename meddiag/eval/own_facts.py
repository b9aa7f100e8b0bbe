"""How much of the gold disease's phenotype knowledge rests only on the case's own publications.

Under leave-publication-out those facts are hidden while the case is answered, so the share
tells, case by case, whether a miss is the method's or the protocol's: a disease left with
few of its facts no longer describes the patient, and one left with none can be found only
through its phenotypic series or the text. Under the full protocol the same share marks
the cases whose diagnosis the knowledge base learnt from the case report itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from meddiag.knowledge.model import Relation, visible

OWN_SHARE_GROUPS = ("none", "half or fewer", "more than half", "all")


def own_share_group(own: int, total: int) -> str:
    """The group of a disease with `own` of its `total` facts resting only on the case's papers."""
    none, some, most, all_ = OWN_SHARE_GROUPS
    if own == 0:
        return none
    if own == total:
        return all_
    return most if own > total / 2 else some


@dataclass(frozen=True)
class PhenotypeFacts:
    """The sources of every HAS_PHENOTYPE fact, per disease id, and the KB's equivalences."""

    sources: Mapping[str, Sequence[tuple[str, ...]]]
    equivalents: Mapping[str, Sequence[str]]

    @classmethod
    def from_relations(
        cls, relations: Iterable[Relation], equivalents: Mapping[str, Sequence[str]]
    ) -> PhenotypeFacts:
        sources: dict[str, list[tuple[str, ...]]] = {}
        for rel in relations:
            if rel.predicate == "HAS_PHENOTYPE":
                sources.setdefault(rel.subject, []).append(tuple(rel.sources))
        return cls(sources, equivalents)

    def count(self, disease_ids: Iterable[str], case_sources: frozenset[str]) -> tuple[int, int]:
        """(facts resting only on `case_sources`, all facts) of the diseases and their equivalents.

        `equivalents` holds whole equivalence groups (`questions.equivalence_map`), so one
        look-up reaches every id the ranker pools with a disease (OMIM → MONDO → ORPHA)."""
        ids: dict[str, None] = {}
        for d in disease_ids:
            ids.update(dict.fromkeys([d, *self.equivalents.get(d, ())]))
        facts = [s for d in ids for s in self.sources.get(d, ())]
        own = sum(1 for s in facts if not visible(s, case_sources))
        return own, len(facts)
