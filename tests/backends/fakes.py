"""Small in-memory stores that honour the `GraphStore`/`VectorStore` protocols, for algorithm tests.

They are deliberately simple (linear scans, a hashed bag-of-words embedder) so that a test
failure points at the backend, not at a store.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from meddiag.knowledge.model import Chunk, Entity, Hyperedge, KnowledgeBase, Relation, visible
from meddiag.stores.base import VectorHit, VectorRecord

_WORD = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    """Bag of words and character trigrams hashed into 128 dimensions, L2-normalised."""

    dim = 128

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            grams = words + [w[i : i + 3] for w in words for i in range(max(1, len(w) - 2))]
            for g in grams:
                out[row, int(hashlib.md5(g.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


class InMemoryGraph:
    def __init__(self) -> None:
        self.entities: dict[str, Entity] = {}
        self.out: dict[str, list[Relation]] = defaultdict(list)
        self.inc: dict[str, list[Relation]] = defaultdict(list)
        self.calls: dict[str, int] = defaultdict(int)

    def upsert_entities(self, entities: Iterable[Entity]) -> int:
        n = 0
        for e in entities:
            self.entities[e.id] = e
            n += 1
        return n

    def upsert_relations(self, relations: Iterable[Relation]) -> int:
        n = 0
        for r in relations:
            self.out[r.subject].append(r)
            self.inc[r.object].append(r)
            n += 1
        return n

    def get(self, entity_id: str) -> Entity | None:
        return self.entities.get(entity_id)

    def get_many(self, entity_ids: Iterable[str]) -> dict[str, Entity]:
        return {i: self.entities[i] for i in entity_ids if i in self.entities}

    def entities_named(self, names: Sequence[str]) -> dict[str, list[Entity]]:
        out: dict[str, list[Entity]] = {}
        for name in names:
            key = name.strip().lower()
            found = [
                e for e in self.entities.values() if key in {n.strip().lower() for n in (e.name, *e.synonyms)}
            ]
            if key and found:
                out[name] = found
        return out

    def search_names(self, text: str, *, types: Sequence[str] | None = None, limit: int = 20) -> list[Entity]:
        needle = text.lower().strip()
        hits = [
            e
            for e in self.entities.values()
            if (types is None or e.type in types)
            and any(n.lower() in needle or needle in n.lower() for n in (e.name, *e.synonyms))
        ]
        return hits[:limit]

    def relations(
        self,
        entity_id: str,
        *,
        predicates: Sequence[str] | None = None,
        direction: str = "both",
        exclude_sources: frozenset[str] = frozenset(),
        limit: int | None = None,
    ) -> list[Relation]:
        self.calls["relations"] += 1
        rels: list[Relation] = []
        if direction in ("out", "both"):
            rels += self.out.get(entity_id, [])
        if direction in ("in", "both"):
            rels += self.inc.get(entity_id, [])
        rels = [
            r
            for r in rels
            if (not predicates or r.predicate in predicates) and visible(r.sources, exclude_sources)
        ]
        return rels[:limit] if limit else rels

    def degree(self, entity_id: str) -> int:
        return len(self.out.get(entity_id, [])) + len(self.inc.get(entity_id, []))

    def neighbourhood(self, entity_id, *, depth=1, max_nodes=50, types=None):  # type: ignore[no-untyped-def]
        raise NotImplementedError

    def paths(self, source, target, *, max_hops=3, limit=10):  # type: ignore[no-untyped-def]
        raise NotImplementedError

    def counts(self) -> dict[str, dict[str, int]]:
        return {"entities": {}, "relations": {}}

    def clear(self) -> None:
        self.entities.clear()
        self.out.clear()
        self.inc.clear()

    def close(self) -> None:
        pass


class InMemoryVectors:
    def __init__(self) -> None:
        self.records: dict[str, list[VectorRecord]] = defaultdict(list)
        self.calls: list[tuple[str, int]] = []  # (collection, query vectors) per client call

    def create(self, collection: str, dim: int) -> None:
        self.records[collection] = []

    def insert(self, collection: str, records: Iterable[VectorRecord]) -> int:
        new = list(records)
        self.records[collection].extend(new)
        return len(new)

    def finish(self, collection: str) -> None:
        pass

    def search(
        self,
        collection: str,
        vector: Sequence[float],
        top_k: int,
        *,
        kinds: Sequence[str] | None = None,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> list[VectorHit]:
        self.calls.append((collection, 1))
        return self._rank(collection, vector, top_k, kinds, exclude_sources)

    def _rank(
        self,
        collection: str,
        vector: Sequence[float],
        top_k: int,
        kinds: Sequence[str] | None,
        exclude_sources: frozenset[str],
    ) -> list[VectorHit]:
        q = np.asarray(vector, dtype=np.float32)
        scored = []
        for r in self.records.get(collection, []):
            if kinds is not None and r.kind not in kinds:
                continue
            if not visible(list(r.sources), exclude_sources):
                continue
            scored.append((float(np.dot(q, np.asarray(r.vector, dtype=np.float32))), r))
        scored.sort(key=lambda sr: sr[0], reverse=True)
        return [
            VectorHit(r.id, s, r.text, r.kind, tuple(r.sources), dict(r.extra)) for s, r in scored[:top_k]
        ]

    def search_many(
        self,
        collection: str,
        vectors: Sequence[Sequence[float]],
        top_k: int,
        *,
        kinds: Sequence[str] | None = None,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> list[list[VectorHit]]:
        self.calls.append((collection, len(vectors)))
        return [self._rank(collection, v, top_k, kinds, exclude_sources) for v in vectors]

    def count(self, collection: str) -> int:
        return len(self.records.get(collection, []))

    def shared_uri(self) -> str | None:
        return None  # in this process's memory only

    def collections(self) -> list[str]:
        return list(self.records)

    def drop(self, collection: str) -> None:
        self.records.pop(collection, None)

    def close(self) -> None:
        pass


@dataclass
class FakeKB:
    """A knowledge-base handle over the in-memory stores."""

    graph: InMemoryGraph = field(default_factory=InMemoryGraph)
    vectors: InMemoryVectors = field(default_factory=InMemoryVectors)
    embedder: HashEmbedder = field(default_factory=HashEmbedder)
    kb: KnowledgeBase | None = None

    def collection(self, name: str) -> str:
        return name


def load(kb: KnowledgeBase) -> FakeKB:
    """Index a `KnowledgeBase` the way a build would: graph, then the five vector collections."""
    fake = FakeKB(kb=kb)
    fake.graph.upsert_entities(kb.entities)
    fake.graph.upsert_relations(kb.relations)
    emb = fake.embedder
    names = {e.id: e.name for e in kb.entities}

    def add(collection: str, rows: list[tuple[str, str, str, Sequence[str], dict]]) -> None:  # type: ignore[type-arg]
        vecs = emb.embed([r[1] for r in rows]) if rows else []
        fake.vectors.insert(
            collection,
            [
                VectorRecord(id=i, vector=v.tolist(), text=t, kind=k, sources=tuple(s), extra=x)
                for (i, t, k, s, x), v in zip(rows, vecs, strict=True)
            ],
        )

    add("entities", [(e.id, f"{e.name}: {e.description}", e.type, e.sources, {}) for e in kb.entities])
    add(
        "entity_names",
        [
            (f"{e.id}#{n}", name, e.type, (), {"entity_id": e.id})
            for e in kb.entities
            for n, name in enumerate([e.name, *e.synonyms])
        ],
    )
    add(
        "relationships",
        [
            (
                r.key,
                f"{names.get(r.subject, r.subject)} {r.predicate.lower().replace('_', ' ')} "
                f"{names.get(r.object, r.object)}",
                r.predicate,
                r.sources,
                {"subject": r.subject, "predicate": r.predicate, "object": r.object},
            )
            for r in kb.relations
        ],
    )
    add("hyperedges", [(h.id, h.text, "hyperedge", h.sources, {"members": h.members}) for h in kb.hyperedges])
    add("chunks", [(c.id, c.text, c.source, c.sources, _chunk_extra(c)) for c in kb.chunks])
    return fake


def _chunk_extra(c: Chunk) -> dict:  # type: ignore[type-arg]
    return {
        "doc_id": c.doc_id,
        "title": c.title,
        "source": c.source,
        "position": c.position,
        "entity_ids": c.entity_ids,
        "generated": c.generated,
    }


def hyperedge(hid: str, text: str, members: list[str], sources: list[str]) -> Hyperedge:
    return Hyperedge(id=hid, text=text, members=members, sources=sources)
