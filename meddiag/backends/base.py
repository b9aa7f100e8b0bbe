"""What every Graph RAG backend shares: the request, the retrieval steps, the result.

A backend module reads top to bottom as its paper's algorithm and calls the steps here
(vector searches, one-hop relations, exclusion, token budgets, conversion to the wire
types) instead of repeating them. Backends hold no per-query state: each `retrieve`
call builds a fresh `QueryScope`, so one instance may serve two threads at once.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, TypeVar, get_args

import numpy as np

from meddiag.backends.exclusion import visible_chunks, visible_hyperedges
from meddiag.backends.formats import predicate_words
from meddiag.errors import BackendError, InputError
from meddiag.knowledge.model import Chunk, Entity, Hyperedge, Relation, as_seen_without
from meddiag.schema import BackendName, KGEntity, KGTriple, RawContext, RetrievedItem, TextEvidence
from meddiag.stores.base import GraphStore, VectorHit, VectorStore

Mode = Literal["mix", "semantic", "relational"]
MODES: tuple[str, ...] = get_args(Mode)

# Longer input is refused rather than cut: a silently truncated vignette could lose the one
# finding that decides the diagnosis. 8,000 characters hold a long clinical note.
MAX_QUERY_CHARS = 8_000
MAX_TOP_K = 200

T = TypeVar("T")


class Embedder(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class KnowledgeBaseView(Protocol):
    """The part of `meddiag.knowledge.handle.KnowledgeBaseHandle` retrieval needs."""

    @property
    def vectors(self) -> VectorStore: ...
    @property
    def graph(self) -> GraphStore: ...
    @property
    def embedder(self) -> Embedder: ...
    def collection(self, name: str) -> str: ...


# --------------------------------------------------------------------------- request


@dataclass(frozen=True)
class Keywords:
    """Dual-level keywords: `low` names entities and findings, `high` names themes and relations.

    The optional fields carry what `keywords.extract_keywords` already resolved, so the
    backends need not look the names up again.
    """

    low: list[str]
    high: list[str]
    entity_ids: list[str] = field(default_factory=list)
    predicates: list[str] = field(default_factory=list)
    answer_type: str | None = None
    negated: list[str] = field(default_factory=list)  # findings the query rules out


@dataclass(frozen=True)
class TokenBudgets:
    """How much of each section a context may hold, in approximate tokens (words)."""

    entities: int = 1_200
    relations: int = 2_500
    chunks: int = 2_500


@dataclass(frozen=True)
class RetrievalRequest:
    query: str
    keywords: Keywords
    seeds: tuple[str, ...]
    top_k: int
    exclude: frozenset[str]
    mode: Mode

    @property
    def wants_graph(self) -> bool:
        return self.mode in ("mix", "relational")

    @property
    def wants_text(self) -> bool:
        return self.mode in ("mix", "semantic")


@dataclass(frozen=True)
class Rendered:
    """A backend's answer before it is wrapped into a `RawContext`."""

    text: str
    items: list[RetrievedItem]


def validate_request(query: str, top_k: int, mode: str) -> str:
    """The stripped query, or an `InputError` a clinician can act on."""
    if not isinstance(query, str) or not query.strip():
        raise InputError("The question is empty: type the patient's findings or a question.")
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(
            f"The question is {len(query):,} characters long; at most {MAX_QUERY_CHARS:,} are accepted. "
            "Shorten it to the patient's findings and the question."
        )
    if not 1 <= top_k <= MAX_TOP_K:
        raise InputError(f"top_k must be between 1 and {MAX_TOP_K}, not {top_k}.")
    if mode not in MODES:
        raise InputError(f"Unknown retrieval mode {mode!r}; choose one of {', '.join(MODES)}.")
    return query.strip()


# --------------------------------------------------------------------------- timings


class Stages:
    """Milliseconds per named stage, summed when a stage runs more than once."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = self.ms.get(name, 0.0) + (time.perf_counter() - start) * 1000.0


# --------------------------------------------------------------------------- budgets


def approx_tokens(text: str) -> int:
    """Tokens approximated as whitespace-separated words (no tokenizer offline)."""
    return len(text.split())


def fit_budget(rows: Iterable[T], text: Callable[[T], str], budget: int) -> list[T]:
    """The leading rows whose texts fit in `budget` tokens (LightRAG's truncate-by-tokens).
    Reads `rows` only up to the first that does not fit: pass a generator, and rows past
    the budget are never built."""
    kept: list[T] = []
    used = 0
    for row in rows:
        used += approx_tokens(text(row)) + 1
        if used > budget:
            break
        kept.append(row)
    return kept


# --------------------------------------------------------------------------- hits


@dataclass(frozen=True)
class ScoredEntity:
    entity: Entity
    score: float
    via: Literal["seed", "name", "vector", "relation", "hyperedge", "chunk", "path"]


@dataclass(frozen=True)
class ScoredRelation:
    relation: Relation
    score: float


@dataclass(frozen=True)
class ScoredChunk:
    chunk: Chunk
    score: float


@dataclass(frozen=True)
class ScoredHyperedge:
    hyperedge: Hyperedge
    score: float


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in value.split("|") if v] if value else []
    return [str(v) for v in value]


def chunk_from_hit(hit: VectorHit) -> Chunk:
    """A chunk record of the `chunks` collection back as a `Chunk`."""
    extra = hit.extra
    doc_id = str(extra.get("doc_id") or hit.id.rsplit("#", 1)[0])
    return Chunk(
        id=hit.id,
        doc_id=doc_id,
        title=str(extra.get("title", "")),
        source=str(extra.get("source") or hit.kind or doc_id.split("/", 1)[0]),
        position=int(extra.get("position", 0)),
        text=hit.text,
        entity_ids=_list(extra.get("entity_ids")),
        sources=list(hit.sources),
        generated=bool(extra.get("generated", False)),
    )


def hyperedge_from_hit(hit: VectorHit) -> Hyperedge:
    return Hyperedge(
        id=hit.id, text=hit.text, members=_list(hit.extra.get("members")), sources=list(hit.sources)
    )


def relation_keys_from_hit(hit: VectorHit) -> tuple[str, str, list[str]]:
    """(subject, predicate, objects) of a `relationships` record.

    A record states one relation (`id` = ``s|P|o``) or a group of one subject's relations
    with one predicate (`extra["objects"]`); its fields name them, else its id does.
    """
    extra = hit.extra
    if extra.get("subject") and (extra.get("objects") or extra.get("object")):
        objects = [str(o) for o in extra.get("objects") or [extra["object"]]]
        return str(extra["subject"]), str(extra.get("predicate") or hit.kind), objects
    parts = hit.id.split("|")
    if len(parts) != 3:
        raise BackendError(
            f"The relationship record {hit.id!r} names no subject, predicate and object; "
            "rebuild the knowledge base."
        )
    return parts[0], parts[1], [parts[2]]


# --------------------------------------------------------------------------- query scope

# Entities with more relations than this are hubs: looked up from their neighbours' side.
HUB_DEGREE = 400
HUB_CHECKS = 150  # best-supported neighbours checked for links to hub start entities
# Vector searches a retrieval starts ahead (`QueryScope.prefetch`): the Milvus server answers
# them side by side while the retrieval goes on with graph work; the threads only wait.
_SEARCHES = ThreadPoolExecutor(max_workers=4, thread_name_prefix="meddiag-search")
SearchKey = tuple[str, tuple[str, ...], int, tuple[str, ...] | None]


def _search_key(collection: str, texts: Iterable[str], top_k: int, kinds: Sequence[str] | None) -> SearchKey:
    """(collection, the distinct non-blank texts, top_k, kinds): what one store search asks."""
    asked = tuple(t for t in dict.fromkeys(texts) if t.strip())
    return (collection, asked, top_k, tuple(kinds) if kinds else None)


@dataclass
class OneHop:
    """Relations between start entities and the neighbours they reach."""

    relations: dict[str, Relation] = field(default_factory=dict)
    reached: dict[str, set[str]] = field(default_factory=dict)  # neighbour -> start entities
    by_start: dict[str, dict[str, Relation]] = field(default_factory=dict)  # start -> neighbour -> relation

    def add(self, rel: Relation, start: str) -> None:
        self.add_all((rel,), start)

    def add_all(self, rels: Iterable[Relation], start: str) -> None:
        """`add` for many relations of one start entity: a hub start brings thousands, so the
        loop keeps its lookups local and builds no throwaway containers."""
        relations, reached = self.relations, self.reached
        mine = self.by_start.setdefault(start, {})
        for rel in rels:
            subject = rel.subject
            far = rel.object if subject == start else subject
            if far == start:
                continue
            key = f"{subject}|{rel.predicate}|{rel.object}"  # Relation.key, without the property call
            if key not in relations:
                relations[key] = rel
            starts = reached.get(far)
            if starts is None:
                reached[far] = {start}
            else:
                starts.add(start)
            if far not in mine:
                mine[far] = rel

    def ranked(self) -> list[str]:
        """Neighbours reached from more start entities first (ties by id, for stable output)."""
        return sorted(self.reached, key=lambda n: (-len(self.reached[n]), n))

    def neighbours(self, start: str) -> dict[str, Relation]:
        """The start entity's neighbours, one relation each."""
        return self.by_start.get(start, {})


class QueryScope:
    """One query's view of the knowledge base: cached lookups with exclusion applied once.

    Created per `retrieve` call and thrown away afterwards, so backends stay stateless.
    """

    def __init__(self, kb: KnowledgeBaseView, request: RetrievalRequest, stages: Stages) -> None:
        self.kb = kb
        self.request = request
        self.stages = stages
        self._vectors: dict[str, np.ndarray] = {}
        self._relations: dict[tuple[str, tuple[str, ...] | None], list[Relation]] = {}
        self._entities: dict[str, Entity | None] = {}
        self._degrees: dict[str, int] = {}
        self.cache: dict[tuple[str, str], Any] = {}  # per-query memo for derived lookups
        self._prefetched: dict[SearchKey, Future[list[list[VectorHit]]]] = {}

    @property
    def exclude(self) -> frozenset[str]:
        return self.request.exclude

    # -- embeddings and vector search

    @property
    def low_text(self) -> str:
        """What the low level searches for: the named entities and findings, else the query."""
        return ", ".join(self.request.keywords.low) or self.request.query

    @property
    def high_text(self) -> str:
        """What the high level searches for: the themes, anchored by the query itself."""
        return " ".join([*self.request.keywords.high, self.request.query])

    def vectors(self, texts: Sequence[str]) -> list[list[float]]:
        """Embeddings of `texts`, with the texts every backend searches, in one embedding call
        (each call has a fixed cost)."""
        wanted = [*texts, self.request.query, self.low_text, self.high_text]
        missing = [t for t in dict.fromkeys(wanted) if t not in self._vectors]
        if missing:
            with self.stages.stage("embed"):
                vectors = np.asarray(self.kb.embedder.embed(missing), dtype=np.float32)
            self._vectors.update(zip(missing, vectors, strict=True))
        return [self._vectors[t].tolist() for t in texts]

    def vector(self, text: str) -> list[float]:
        return self.vectors([text])[0]

    def search(
        self, collection: str, text: str, top_k: int, kinds: Sequence[str] | None = None
    ) -> list[VectorHit]:
        return self.search_many(collection, [text], top_k, kinds)[0]

    def search_many(
        self, collection: str, texts: Sequence[str], top_k: int, kinds: Sequence[str] | None = None
    ) -> list[list[VectorHit]]:
        """One vector search per text, all in one store call (its cost hardly depends on the count)."""
        key = _search_key(collection, texts, top_k, kinds)
        asked = list(key[1])
        if not asked or top_k <= 0:
            return [[] for _ in texts]
        pending = self._prefetched.get(key)
        with self.stages.stage("vector_search"):
            found = pending.result() if pending is not None else self._store_search(key, self.vectors(asked))
        by_text = dict(zip(asked, found, strict=True))
        return [by_text.get(t, []) for t in texts]

    def prefetch(self, searches: Iterable[tuple[str, Sequence[str], int]]) -> None:
        """Start (collection, texts, top_k) searches now; `search_many` with the same arguments
        then takes their results instead of searching again. For searches a retrieval is sure
        to make and that do not depend on each other."""
        for collection, texts, top_k in searches:
            key = _search_key(collection, texts, top_k, None)
            if key[1] and top_k > 0 and key not in self._prefetched:
                self._prefetched[key] = _SEARCHES.submit(self._store_search, key, self.vectors(key[1]))

    def _store_search(self, key: SearchKey, vecs: list[list[float]]) -> list[list[VectorHit]]:
        collection, _, top_k, kinds = key
        return self.kb.vectors.search_many(
            self.kb.collection(collection), vecs, top_k, kinds=kinds, exclude_sources=self.exclude
        )

    def entity_hits(self, text: str, top_k: int) -> list[ScoredEntity]:
        hits = self.search("entities", text, top_k)
        found = self.entities([h.id for h in hits])
        return [ScoredEntity(found[h.id], h.score, "vector") for h in hits if h.id in found]

    def relation_hits(self, text: str, top_k: int) -> list[ScoredRelation]:
        """Relationship-vector search; each hit resolved to the stored, visible relations it states."""
        out: list[ScoredRelation] = []
        for hit in self.search("relationships", text, top_k):
            subject, predicate, objects = relation_keys_from_hit(hit)
            stated = set(objects)
            by_object = {r.object: r for r in self.relations(subject, (predicate,)) if r.subject == subject}
            out += [
                ScoredRelation(by_object[o], hit.score) for o in objects if o in by_object and o in stated
            ]
        return out

    def chunk_hits(self, text: str, top_k: int) -> list[ScoredChunk]:
        return self.chunk_hits_many([text], top_k)[0]

    def chunk_hits_many(self, texts: Sequence[str], top_k: int) -> list[list[ScoredChunk]]:
        """Chunk-vector search per text (one store call); generated chunks mixing excluded
        sources are re-rendered or dropped."""
        out = []
        for hits in self.search_many("chunks", texts, top_k):
            scored = [ScoredChunk(chunk_from_hit(h), h.score) for h in hits]
            with self.stages.stage("exclusion"):
                out.append(visible_chunks(scored, self))
        return out

    def hyperedge_hits(self, text: str, top_k: int) -> list[ScoredHyperedge]:
        hits = [
            ScoredHyperedge(hyperedge_from_hit(h), h.score) for h in self.search("hyperedges", text, top_k)
        ]
        with self.stages.stage("exclusion"):
            return visible_hyperedges(hits, self)

    # -- graph lookups

    def entities(self, ids: Iterable[str]) -> dict[str, Entity]:
        # `ids` is read twice, so a one-shot iterator (a generator) is materialised first.
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if i not in self._entities]
        if missing:
            with self.stages.stage("graph"):
                found = self.kb.graph.get_many(missing)
            for i in missing:
                self._entities[i] = found.get(i)
        return {i: e for i in wanted if (e := self._entities.get(i)) is not None}

    def entity(self, entity_id: str) -> Entity | None:
        return self.entities([entity_id]).get(entity_id)

    def relations(self, entity_id: str, predicates: Sequence[str] | None = None) -> list[Relation]:
        """Visible relations touching `entity_id` (both directions)."""
        key = (entity_id, tuple(predicates) if predicates else None)
        if key not in self._relations:
            # Both graph stores leave out relations resting only on excluded sources (their
            # shared contract test checks it), so the hop lists are not filtered twice; what
            # mixes sources is shown as the other sources alone support it.
            with self.stages.stage("graph"):
                found = self.kb.graph.relations(
                    entity_id, predicates=predicates, exclude_sources=self.exclude
                )
            self._relations[key] = self.seen(found)
        return self._relations[key]

    def seen(self, relations: list[Relation]) -> list[Relation]:
        """Visible relations as this query sees them (`as_seen_without`)."""
        excluded = self.exclude
        if not excluded:
            return relations
        # Most relations cite no left-out source and pass as they are; the check is inlined
        # because a MiniRAG retrieval makes it some 2,000 times.
        return [r if excluded.isdisjoint(r.sources) else as_seen_without(r, excluded) for r in relations]

    def degree(self, entity_id: str) -> int:
        if entity_id not in self._degrees:
            with self.stages.stage("graph"):
                self._degrees[entity_id] = self.kb.graph.degree(entity_id)
        return self._degrees[entity_id]

    def one_hop(self, start_ids: Sequence[str]) -> OneHop:
        """The visible relations between the start entities and their neighbours, bounded on hubs.

        A hub (degree above `HUB_DEGREE`, e.g. "Seizure" with ~2,500 diseases) is not
        expanded: its relations to the neighbours the specific start entities reached are
        looked up from those neighbours' side (the store returns just their links to hubs).
        Only when every start entity is a hub are hub lists read in full.
        """
        key = ("one_hop", "\x00".join(start_ids))
        if key in self.cache:
            return self.cache[key]
        starts = list(dict.fromkeys(start_ids))
        hubs = [s for s in starts if self.degree(s) > HUB_DEGREE]
        specific = [s for s in starts if s not in hubs] or hubs
        hop = OneHop()
        for sid in specific:
            hop.add_all(self.relations(sid), sid)
        hub_set = set(hubs) - set(specific)
        if hub_set:
            graph = self.kb.graph
            for far in hop.ranked()[:HUB_CHECKS]:
                with self.stages.stage("graph"):
                    links = graph.relations(far, exclude_sources=self.exclude, neighbours=hub_set)
                for rel in self.seen(links):
                    hop.add(rel, rel.object if rel.subject == far else rel.subject)
        self.cache[key] = hop
        return hop

    def support(self, start_ids: Sequence[str], *, types: Sequence[str] | None = None) -> Counter[str]:
        """For each neighbour of the start entities, how many start entities it touches.

        The multi-finding signal every backend needs: a disease linked to five of the
        query's findings outranks one linked to a single finding.
        """
        counts = Counter({far: len(near) for far, near in self.one_hop(start_ids).reached.items()})
        if types is not None:
            kinds = self.entities(counts)
            counts = Counter({i: n for i, n in counts.items() if i in kinds and kinds[i].type in types})
        return counts

    # -- the usual first step: entities named by the low-level keywords

    def low_level_entities(self, top_k: int) -> list[ScoredEntity]:
        """Seeds first, then entities named exactly in the query, then the entity-vector search."""
        req = self.request
        ranked: dict[str, ScoredEntity] = {}
        for eid, e in self.entities(req.seeds).items():
            ranked[eid] = ScoredEntity(e, 2.0, "seed")
        for eid, e in self.entities(req.keywords.entity_ids).items():
            ranked.setdefault(eid, ScoredEntity(e, 1.5, "name"))
        wanted = max(top_k, len(req.seeds))
        if len(ranked) < wanted:  # otherwise the vector hits would all be cut off below
            for hit in self.entity_hits(self.low_text, top_k):
                ranked.setdefault(hit.entity.id, hit)
        return list(ranked.values())[:wanted]

    # -- conversion to wire types

    def names(self, ids: Iterable[str]) -> dict[str, str]:
        wanted = list(ids)  # read twice; `entities` drops the repeats
        found = self.entities(wanted)
        return {i: (found[i].name if i in found else i) for i in wanted}


def predicate_phrase(predicate: str) -> str:
    return predicate_words(predicate)


def describe_relation(rel: Relation, names: dict[str, str]) -> str:
    """One readable sentence for a relation (our wording, facts from the KB)."""
    subject, obj = names.get(rel.subject, rel.subject), names.get(rel.object, rel.object)
    text = f"{subject} {predicate_phrase(rel.predicate)} {obj}"
    if rel.frequency_label:
        text += f" (frequency: {rel.frequency_label})"
    return text


def to_kg_entity(
    entity: Entity, *, rank: float | None = None, level: Literal["high", "low"] | None = None
) -> KGEntity:
    description = entity.description or f"{entity.type} {entity.name}"
    return KGEntity(
        name=entity.name,
        type=entity.type.lower(),
        description=description,
        rank=rank,
        level=level,
        id=entity.id,
    )


def to_kg_triple(
    rel: Relation,
    names: dict[str, str],
    *,
    rank: float | None = None,
    level: Literal["high", "low"] | None = None,
) -> KGTriple:
    return KGTriple(
        subject=names.get(rel.subject, rel.subject),
        predicate=rel.predicate,
        object=names.get(rel.object, rel.object),
        description=describe_relation(rel, names),
        keywords=predicate_phrase(rel.predicate),
        weight=rel.frequency if rel.frequency is not None else 1.0,
        frequency=rel.frequency,
        rank=rank,
        level=level,
        subject_id=rel.subject,
        object_id=rel.object,
        provenance=list(rel.sources),
    )


def to_text_evidence(scored: ScoredChunk, ref_id: str) -> TextEvidence:
    c = scored.chunk
    return TextEvidence(
        ref_id=ref_id,
        doc_id=c.doc_id,
        source=c.source,
        title=c.title,
        text=c.text,
        provenance=list(c.sources),
        score=round(float(scored.score), 4),
    )


def passages(chunks: Sequence[ScoredChunk], budget: int) -> list[TextEvidence]:
    """Chunks as passages, best first, within the chunk budget."""
    kept = fit_budget(chunks, lambda c: c.chunk.text, budget)
    return [to_text_evidence(c, str(i)) for i, c in enumerate(kept)]


# --------------------------------------------------------------------------- the backend


class Backend(ABC):
    """A Graph RAG retrieval strategy over the shared stores.

    `retrieve` validates the request, extracts keywords when the caller gave none, runs the
    backend's algorithm (`_retrieve`) in a fresh `QueryScope`, and records stage timings.
    """

    name: ClassVar[BackendName]

    def __init__(self, kb: KnowledgeBaseView, budgets: TokenBudgets | None = None) -> None:
        self.kb = kb
        self.budgets = budgets or TokenBudgets()

    def retrieve(
        self,
        query: str,
        *,
        keywords: Keywords | None = None,
        seeds: Sequence[str] = (),
        top_k: int = 20,
        exclude_sources: frozenset[str] = frozenset(),
        mode: Mode = "mix",
    ) -> RawContext:
        from meddiag.backends.keywords import extract_keywords

        stages = Stages()
        start = time.perf_counter()
        query = validate_request(query, top_k, mode)
        if keywords is None:
            with stages.stage("keywords"):
                keywords = extract_keywords(query, self.kb)
        request = RetrievalRequest(
            query=query,
            keywords=keywords,
            seeds=tuple(dict.fromkeys(s.strip() for s in seeds if s and s.strip())),
            top_k=top_k,
            exclude=frozenset(exclude_sources),
            mode=mode,
        )
        scope = QueryScope(self.kb, request, stages)
        rendered = self._retrieve(scope)
        stages.ms["total"] = (time.perf_counter() - start) * 1000.0
        return RawContext(
            backend=self.name,
            query=query,
            text=rendered.text,
            items=rendered.items,
            timings={k: round(v, 3) for k, v in stages.ms.items()},
        )

    @abstractmethod
    def _retrieve(self, scope: QueryScope) -> Rendered:
        """The backend's algorithm: evidence gathered through `scope`, rendered in its upstream format."""
