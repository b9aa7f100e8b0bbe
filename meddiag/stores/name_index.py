"""Lower-cased names of every entity of a loaded graph, for the local store's name search.

`rank_names` lower-cases each entity's name and synonyms on every call: ~0.4 s per search
on the full knowledge base, and keyword extraction asks once per query. Here they are
lower-cased once and joined into one text, so the entities that cannot match are discarded
by C-speed substring searches (no per-entity Python test) before `name_rank` ranks the rest;
the answer is exactly `rank_names`'s.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

from meddiag.knowledge.model import Entity

SEPARATOR = "\x00"  # between one entity's names
ROW_END = "\x01"  # between entities in the joined text
SHORT_NEEDLE = 3


class NameIndex:
    """Each entity with its names joined in one lower-cased string, in graph order."""

    def __init__(self, entities: Sequence[Entity]) -> None:
        self._rows = [
            (entity, SEPARATOR.join([entity.name.lower(), *(s.lower() for s in entity.synonyms)]))
            for entity in entities
        ]
        self._text = ROW_END.join(names for _, names in self._rows)
        # Where each entity's names start in the joined text.
        ends = accumulate((len(names) + len(ROW_END) for _, names in self._rows), initial=0)
        self._starts = list(ends)[:-1]
        self._exact: dict[str, list[Entity]] = {}
        for entity in entities:
            for name in dict.fromkeys(n.strip().lower() for n in (entity.name, *entity.synonyms)):
                self._exact.setdefault(name, []).append(entity)

    def exact(self, name: str) -> list[Entity]:
        """Entities whose name or a synonym is exactly `name` (lower-cased, stripped), in graph order."""
        return self._exact.get(name.strip().lower(), [])

    def candidates(self, needle: str, types: Sequence[str] | None) -> list[Entity]:
        """Entities (of `types`) whose name or a synonym contains the lower-cased `needle`, in graph
        order; a superset of `rank_names`'s matches, for it to rank."""
        wanted = set(types) if types else None
        if SEPARATOR in needle or ROW_END in needle:
            # A separator could match across two names or entities: let the ranking decide.
            return [e for e, _ in self._rows if wanted is None or e.type in wanted]
        if len(needle) < SHORT_NEEDLE:
            # Found in most entities: one test per entity beats one search per hit.
            return [e for e, names in self._rows if needle in names and (wanted is None or e.type in wanted)]
        found: list[Entity] = []
        text, starts = self._text, self._starts
        at = text.find(needle)
        while at != -1:
            row = bisect_right(starts, at) - 1
            entity = self._rows[row][0]
            if wanted is None or entity.type in wanted:
                found.append(entity)
            if row + 1 == len(starts):
                break
            at = text.find(needle, starts[row + 1])  # the next entity: each is listed once
        return found
