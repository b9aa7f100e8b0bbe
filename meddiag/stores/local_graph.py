"""The local graph store: a networkx MultiDiGraph kept in memory and persisted as JSON.

The name ranking and direction rules here are also what `Neo4jGraphStore` applies, so both
stores answer the same questions the same way.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import pairwise, product
from pathlib import Path
from typing import TypeVar

import networkx as nx
from pydantic import BaseModel, ValidationError

from meddiag.errors import KnowledgeBaseStale, MedDiagError
from meddiag.knowledge.model import Entity, Relation, visible
from meddiag.stores.adjacency import Adjacency
from meddiag.stores.name_index import NameIndex

T = TypeVar("T")

GRAPH_FILE = "graph.json"
GRAPH_FORMAT = 1
DIRECTIONS = ("out", "in", "both")


class _GraphFile(BaseModel):
    """The saved graph, validated straight from its bytes: pydantic parses and checks the whole
    file in one pass, about twice as fast as decoding it to Python objects and validating each
    entity and relation (a process opening the full knowledge base saves ~2 s)."""

    format: int
    entities: list[Entity]
    relations: list[Relation]


def check_direction(direction: str) -> None:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")


def name_rank(entity: Entity, needle: str) -> int | None:
    """How well lower-cased `needle` names `entity`: 0 exact name, 1 exact synonym, 2 prefix,
    3 substring, None no match."""
    name = entity.name.lower()
    synonyms = [s.lower() for s in entity.synonyms]
    if name == needle:
        return 0
    if needle in synonyms:
        return 1
    if name.startswith(needle) or any(s.startswith(needle) for s in synonyms):
        return 2
    if needle in name or any(needle in s for s in synonyms):
        return 3
    return None


def rank_names(
    candidates: Iterable[Entity], text: str, types: Sequence[str] | None, limit: int
) -> list[Entity]:
    """Entities whose name or a synonym contains `text`: best match first, then shorter names, then id."""
    needle = text.strip().lower()
    if not needle or limit <= 0:
        return []
    scored = []
    for entity in candidates:
        if types and entity.type not in types:
            continue
        rank = name_rank(entity, needle)
        if rank is not None:
            scored.append((rank, len(entity.name), entity.id, entity))
    scored.sort(key=lambda t: t[:3])
    return [t[3] for t in scored[:limit]]


def bounded_bfs(
    start: str, depth: int, max_nodes: int, ring: Callable[[list[str], set[str]], dict[str, list[str]]]
) -> list[str]:
    """Node ids reached breadth-first from `start`, ring by ring, at most `max_nodes` (start first).

    `ring(frontier, seen)` gives, per frontier node, its admissible unseen neighbours in the
    order to take them; the stores differ only in how they find those.
    """
    if max_nodes <= 0:
        return []
    kept, seen, frontier = [start], {start}, [start]
    for _ in range(depth):
        if len(kept) >= max_nodes:
            break
        added: list[str] = []
        neighbours = ring(frontier, seen)
        for node in frontier:
            for other in neighbours.get(node, []):
                if other in seen:
                    continue
                seen.add(other)
                added.append(other)
                if len(kept) + len(added) >= max_nodes:
                    break
            if len(kept) + len(added) >= max_nodes:
                break
        kept.extend(added)
        frontier = added
        if not added:
            break
    return kept


def _saved_format(raw: bytes) -> object:
    """The file's `format`, or None when it is not readable JSON (a damaged file, not an old one)."""
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data.get("format") if isinstance(data, dict) else None


def _stale() -> KnowledgeBaseStale:
    return KnowledgeBaseStale(
        "The saved knowledge graph has an older format; rebuild it with `meddiag build --force`."
    )


class LocalGraphStore:
    """`GraphStore` over a networkx MultiDiGraph (edge key = predicate); `path=None` keeps it in memory.

    Reads go through indexes built once per loaded graph (relation lists and degrees,
    lower-cased names) and dropped on any write, so queries never walk networkx views.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._g: nx.MultiDiGraph = nx.MultiDiGraph()
        self._adjacency: Adjacency | None = None
        self._names: NameIndex | None = None
        self._by_id: dict[str, Entity] | None = None
        self._index_lock = threading.Lock()  # builds each read index once when threads race
        if path is not None and path.is_file():
            self._load(path)

    # ------------------------------------------------------------------ persistence

    def _load(self, path: Path) -> None:
        raw = path.read_bytes()
        try:
            data = _GraphFile.model_validate_json(raw)
        except ValidationError as err:
            # Another format's fields fail validation first; say "rebuild", not which field.
            if _saved_format(raw) not in (GRAPH_FORMAT, None):
                raise _stale() from err
            raise MedDiagError(
                f"The saved knowledge graph {path} is damaged ({err.error_count()} invalid entries); "
                "rebuild it with `meddiag build --force`."
            ) from err
        if data.format != GRAPH_FORMAT:
            raise _stale()
        self.upsert_entities(data.entities)
        self.upsert_relations(data.relations)

    def save(self, path: Path | None = None) -> Path:
        """Write the graph as JSON (atomically: a half-written file never replaces a good one)."""
        target = path or self.path
        if target is None:
            raise ValueError("LocalGraphStore.save needs a path")
        data = {
            "format": GRAPH_FORMAT,
            "entities": [e.model_dump(exclude_defaults=True) for _, e in self._g.nodes(data="entity")],
            "relations": [r.model_dump(exclude_defaults=True) for r in self._all_relations()],
        }
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, target)
        return target

    def _all_relations(self) -> Iterator[Relation]:
        for _, _, relation in self._g.edges(data="relation"):
            yield relation

    # ------------------------------------------------------------------ writing

    def upsert_entities(self, entities: Iterable[Entity]) -> int:
        self._adjacency = self._names = self._by_id = None
        n = 0
        for entity in entities:
            self._g.add_node(entity.id, entity=entity)
            n += 1
        return n

    def upsert_relations(self, relations: Iterable[Relation]) -> int:
        """Add or replace relations (one per subject, predicate, object); both ends must exist."""
        self._adjacency = None
        n = 0
        for relation in relations:
            if relation.subject in self._g and relation.object in self._g:
                self._g.add_edge(relation.subject, relation.object, key=relation.predicate, relation=relation)
                n += 1
        return n

    def clear(self) -> None:
        self._g.clear()
        self._adjacency = self._names = self._by_id = None

    def _lazy(self, attr: str, build: Callable[[], T]) -> T:
        """`self.<attr>`, built once under the lock on first read after a change (which clears it)."""
        value = getattr(self, attr)
        if value is None:
            with self._index_lock:
                value = getattr(self, attr)
                if value is None:
                    value = build()
                    setattr(self, attr, value)
        return value

    def adjacency(self) -> Adjacency:
        """The graph's relation lists and degrees, built on first read after a change."""
        return self._lazy("_adjacency", lambda: Adjacency(self._g))

    def close(self) -> None:
        """Nothing to release: the graph lives in memory."""

    # ------------------------------------------------------------------ reading

    def _entities_by_id(self) -> dict[str, Entity]:
        """Entity by id, built on first read after a change: a query looks up thousands."""
        return self._lazy("_by_id", lambda: dict(self._g.nodes(data="entity")))

    def get(self, entity_id: str) -> Entity | None:
        return self._entities_by_id().get(entity_id)

    def get_many(self, entity_ids: Iterable[str]) -> dict[str, Entity]:
        by_id = self._entities_by_id()
        return {i: e for i in entity_ids if (e := by_id.get(i)) is not None}

    def iter_entities(self, types: Sequence[str] | None = None) -> Iterator[Entity]:
        """Every entity (of `types`), for building in-memory indexes once per process."""
        for _, entity in self._g.nodes(data="entity"):
            if not types or entity.type in types:
                yield entity

    def iter_relations(self, predicates: Sequence[str] | None = None) -> Iterator[Relation]:
        """Every relation (with one of `predicates`)."""
        for relation in self._all_relations():
            if not predicates or relation.predicate in predicates:
                yield relation

    def search_names(self, text: str, *, types: Sequence[str] | None = None, limit: int = 20) -> list[Entity]:
        needle = text.strip().lower()
        if not needle or limit <= 0:
            return []
        return rank_names(self.name_index().candidates(needle, types), text, types, limit)

    def entities_named(self, names: Sequence[str]) -> dict[str, list[Entity]]:
        index = self.name_index()
        return {name: found for name in names if (found := index.exact(name))}

    def name_index(self) -> NameIndex:
        """Every entity's lower-cased names, built on first search after a change."""
        return self._lazy("_names", lambda: NameIndex([e for _, e in self._g.nodes(data="entity")]))

    def relations(
        self,
        entity_id: str,
        *,
        predicates: Sequence[str] | None = None,
        direction: str = "both",
        exclude_sources: frozenset[str] = frozenset(),
        limit: int | None = None,
        neighbours: Collection[str] | None = None,
    ) -> list[Relation]:
        check_direction(direction)
        found = self.adjacency().relations(entity_id, direction, predicates, exclude_sources, neighbours)
        return found[:limit] if limit is not None else found

    def degree(self, entity_id: str) -> int:
        return self.adjacency().degree.get(entity_id, 0)

    def _neighbours(self, node: str) -> set[str]:
        return set(self._g.successors(node)) | set(self._g.predecessors(node))

    def neighbourhood(
        self,
        entity_id: str,
        *,
        depth: int = 1,
        max_nodes: int = 50,
        types: Sequence[str] | None = None,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> tuple[list[Entity], list[Relation]]:
        if entity_id not in self._g:
            return [], []

        def ring(frontier: list[str], seen: set[str]) -> dict[str, list[str]]:
            found: dict[str, list[str]] = {}
            for node in frontier:
                found[node] = [
                    other
                    for other in sorted(self._neighbours(node) - seen)
                    if (not types or self._g.nodes[other]["entity"].type in types)
                    and any(visible(r.sources, exclude_sources) for r in self._between(node, other))
                ]
            return found

        kept = bounded_bfs(entity_id, depth, max_nodes, ring)
        members = set(kept)
        relations = [
            r
            for _, _, r in self._g.subgraph(members).edges(data="relation")
            if visible(r.sources, exclude_sources)
        ]
        return [self._g.nodes[i]["entity"] for i in kept], relations

    def _between(self, a: str, b: str) -> list[Relation]:
        """Relations linking a and b in either direction."""
        found = [r for r in self._g.get_edge_data(a, b, default={}).values()]
        if a != b:
            found += [r for r in self._g.get_edge_data(b, a, default={}).values()]
        return [d["relation"] for d in found]

    def paths(
        self,
        source: str,
        target: str,
        *,
        max_hops: int = 3,
        limit: int = 10,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> list[list[Relation]]:
        """Simple paths (no node twice, edge direction ignored), shortest first, at most `limit`."""
        if source not in self._g or target not in self._g or source == target or limit <= 0:
            return []
        undirected = self._g.to_undirected(as_view=True)
        # Distances to the target prune the search to nodes that can still reach it in time.
        to_target = nx.single_source_shortest_path_length(undirected, target, cutoff=max_hops)
        found: list[list[Relation]] = []
        for length in range(1, max_hops + 1):
            for nodes in self._node_paths(source, target, length, to_target):
                hops = [
                    [r for r in self._between(a, b) if visible(r.sources, exclude_sources)]
                    for a, b in pairwise(nodes)
                ]
                for combo in product(*hops):
                    found.append(list(combo))
                    if len(found) >= limit:
                        return found
        return found

    def _node_paths(
        self, source: str, target: str, length: int, to_target: dict[str, int]
    ) -> Iterator[list[str]]:
        stack: list[tuple[str, list[str]]] = [(source, [source])]
        while stack:
            node, path = stack.pop()
            left = length - (len(path) - 1)
            if left == 0:
                if node == target:
                    yield path
                continue
            for other in sorted(self._neighbours(node), reverse=True):
                if other in path or to_target.get(other, length + 1) > left - 1:
                    continue
                if other == target and left != 1:
                    continue
                stack.append((other, [*path, other]))

    def counts(self) -> dict[str, dict[str, int]]:
        entities = Counter(e.type for _, e in self._g.nodes(data="entity"))
        relations = Counter(r.predicate for r in self._all_relations())
        return {"entities": dict(sorted(entities.items())), "relations": dict(sorted(relations.items()))}
