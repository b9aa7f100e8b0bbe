"""The two storage interfaces. Implementations sit beside this module and are chosen by settings."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from meddiag.knowledge.model import Entity, Relation


@dataclass(frozen=True)
class VectorRecord:
    id: str
    vector: Sequence[float]
    text: str
    kind: str = ""  # entity type, chunk source, predicate ...
    sources: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # JSON-serialisable


@dataclass(frozen=True)
class VectorHit:
    id: str
    score: float  # cosine similarity, higher is closer
    text: str
    kind: str
    sources: tuple[str, ...]
    extra: dict[str, Any]


class VectorStore(Protocol):
    """Dense vectors with scalar fields (Milvus Lite file or Milvus server)."""

    def create(self, collection: str, dim: int) -> None: ...
    def insert(self, collection: str, records: Iterable[VectorRecord]) -> int: ...
    def finish(self, collection: str) -> None:
        """Flush and build the index so searches are fast."""

    def search(
        self,
        collection: str,
        vector: Sequence[float],
        top_k: int,
        *,
        kinds: Sequence[str] | None = None,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> list[VectorHit]:
        """Nearest records; a record whose every source is excluded is never returned."""

    def search_many(
        self,
        collection: str,
        vectors: Sequence[Sequence[float]],
        top_k: int,
        *,
        kinds: Sequence[str] | None = None,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> list[list[VectorHit]]:
        """`search` for each vector, in one call: a search costs about the same for one vector as for ten."""

    def count(self, collection: str) -> int: ...
    def shared_uri(self) -> str | None:
        """A URI another local process can open these collections with while this store is open,
        or None when they cannot be shared."""

    def collections(self) -> list[str]: ...
    def drop(self, collection: str) -> None: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class Edge:
    relation: Relation

    @property
    def subject(self) -> str:
        return self.relation.subject

    @property
    def object(self) -> str:
        return self.relation.object


class GraphStore(Protocol):
    """Typed property graph of entities and relations (local directory or Neo4j)."""

    def upsert_entities(self, entities: Iterable[Entity]) -> int: ...
    def upsert_relations(self, relations: Iterable[Relation]) -> int: ...
    def get(self, entity_id: str) -> Entity | None: ...
    def get_many(self, entity_ids: Iterable[str]) -> dict[str, Entity]: ...
    def search_names(
        self, text: str, *, types: Sequence[str] | None = None, limit: int = 20
    ) -> list[Entity]: ...
    def entities_named(self, names: Sequence[str]) -> dict[str, list[Entity]]:
        """Per name that has any, the entities whose name or a synonym is exactly that name
        (case and surrounding blanks ignored), in a stable order."""

    def relations(
        self,
        entity_id: str,
        *,
        predicates: Sequence[str] | None = None,
        direction: str = "both",  # "out", "in", "both"
        exclude_sources: frozenset[str] = frozenset(),
        limit: int | None = None,
        neighbours: Collection[str] | None = None,  # only relations whose other end is one of these
    ) -> list[Relation]: ...
    def degree(self, entity_id: str) -> int: ...
    def neighbourhood(
        self,
        entity_id: str,
        *,
        depth: int = 1,
        max_nodes: int = 50,
        types: Sequence[str] | None = None,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> tuple[list[Entity], list[Relation]]: ...
    def paths(
        self,
        source: str,
        target: str,
        *,
        max_hops: int = 3,
        limit: int = 10,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> list[list[Relation]]:
        """Simple paths (no node twice, edge direction ignored), shortest first."""

    def iter_entities(self, types: Sequence[str] | None = None) -> Iterator[Entity]:
        """Every entity (of these types): for in-memory indexes built once per process."""

    def iter_relations(self, predicates: Sequence[str] | None = None) -> Iterator[Relation]:
        """Every relation (with these predicates): for in-memory indexes built once per process."""

    def counts(self) -> dict[str, dict[str, int]]:
        """{"entities": {type: n}, "relations": {predicate: n}}"""

    def clear(self) -> None: ...
    def close(self) -> None: ...
