"""Lower-cased names of every entity of a loaded graph, for the local store's name search.

`rank_names` lower-cases each entity's name and synonyms on every call: ~0.4 s per search
on the full knowledge base, and keyword extraction asks once per query. Here they are
lower-cased once, and one substring test per entity (on its names joined by a separator
no needle contains) discards the entities that cannot match before `name_rank` ranks the
rest, so the answer is exactly `rank_names`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

from meddiag.knowledge.model import Entity

SEPARATOR = "\x00"


class NameIndex:
    """Each entity with its names joined in one lower-cased string, in graph order."""

    def __init__(self, entities: Sequence[Entity]) -> None:
        self._rows = [
            (entity, SEPARATOR.join([entity.name.lower(), *(s.lower() for s in entity.synonyms)]))
            for entity in entities
        ]
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
        if SEPARATOR in needle:  # the joined string could match across two names
            return [e for e, _ in self._rows if not types or e.type in types]
        wanted = set(types) if types else None
        return [e for e, names in self._rows if needle in names and (wanted is None or e.type in wanted)]
