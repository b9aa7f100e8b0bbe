"""LightRAG (Guo et al., 2024): dual-level retrieval over entities and relationships.

1. Low level: the query's low-level keywords → entity vector search (plus seeds and the
   entities the query names) → every one-hop relation of those entities, ranked by how
   many retrieved entities the far end touches (our addition for multi-finding vignettes),
   then by degree (the sum of both ends' degrees, LightRAG's edge rank) and weight.
2. High level: the high-level keywords → relationship vector search → the entities at
   both ends of those relations.
3. Mix mode: both levels merged round-robin, plus chunk vector search for the query and
   for the named entities; a question about a named disease gets that disease's profile
   (rendered from its visible facts) before the searched chunks.
4. Token budgets trim entities, relations and chunks; the reference list numbers each
   source document by how often it occurs among the chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import zip_longest
from typing import TypeVar

from meddiag.backends import formats
from meddiag.backends.base import (
    Backend,
    QueryScope,
    Rendered,
    ScoredChunk,
    ScoredEntity,
    ScoredRelation,
    fit_budget,
    passages,
    to_kg_entity,
    to_kg_triple,
)
from meddiag.backends.profiles import named_first
from meddiag.knowledge.model import Relation

T = TypeVar("T")


def round_robin(*lists: Iterable[T], key: Callable[[T], object] = lambda x: x) -> list[T]:
    """Interleave ranked lists, keeping each item's first appearance (LightRAG's merge)."""
    seen: set[object] = set()
    out: list[T] = []
    for row in zip_longest(*[list(x) for x in lists]):
        for item in row:
            if item is None:
                continue
            k = key(item)
            if k not in seen:
                seen.add(k)
                out.append(item)
    return out


def rank_one_hop(scope: QueryScope, starts: Sequence[ScoredEntity], budget_rows: int) -> list[ScoredRelation]:
    """The visible one-hop relations of the start entities, best first.

    Seed relations come first (the caller asked for them); then relations whose far end is
    reached from more start entities; then LightRAG's order: edge degree, then weight.
    """
    hop = scope.one_hop([s.entity.id for s in starts])
    seeds = set(scope.request.seeds)

    def support(rel: Relation) -> int:
        return max(len(hop.reached.get(rel.subject, ())), len(hop.reached.get(rel.object, ())))

    def seeded(rel: Relation) -> bool:
        return rel.subject in seeds or rel.object in seeds

    first = {id(r): (seeded(r), support(r)) for r in hop.relations.values()}
    rels = sorted(hop.relations.values(), key=lambda r: first[id(r)], reverse=True)
    # Degrees only matter for the rows that can still make the budget.
    head = rels[: budget_rows * 2]
    edge_rank = {id(r): scope.degree(r.subject) + scope.degree(r.object) for r in head}
    head.sort(
        key=lambda r: (
            *first[id(r)],
            edge_rank[id(r)],
            r.frequency if r.frequency is not None else 1.0,
        ),
        reverse=True,
    )
    return [ScoredRelation(r, float(edge_rank[id(r)])) for r in head]


def entities_of_relations(scope: QueryScope, rels: Sequence[ScoredRelation]) -> list[ScoredEntity]:
    ids = list(dict.fromkeys(n for r in rels for n in (r.relation.subject, r.relation.object)))
    found = scope.entities(ids)
    return [ScoredEntity(found[i], 0.0, "relation") for i in ids if i in found]


class LightRAG(Backend):
    name = "lightrag"

    def _retrieve(self, scope: QueryScope) -> Rendered:
        req, budgets = scope.request, self.budgets
        entities: list[ScoredEntity] = []
        relations: list[ScoredRelation] = []
        chunks: list[ScoredChunk] = []

        # Relationship and chunk searches depend on nothing found here: start them first.
        scope.prefetch(
            ([("relationships", [scope.high_text], req.top_k)] if req.wants_graph else [])
            + ([("chunks", self._chunk_texts(scope), req.top_k)] if req.wants_text else [])
        )
        if req.wants_graph:
            # 1. low level: entities, then their one-hop relations
            local_entities = scope.low_level_entities(req.top_k)
            rel_rows = budgets.relations // 12  # a relation row is about a dozen words
            local_relations = rank_one_hop(scope, local_entities, rel_rows)
            # 2. high level: relationships, then their end entities
            high_text = scope.high_text
            global_relations = scope.relation_hits(high_text, req.top_k)
            global_entities = entities_of_relations(scope, global_relations)
            # 3. merge both levels
            entities = round_robin(local_entities, global_entities, key=lambda s: s.entity.id)
            relations = round_robin(local_relations, global_relations, key=lambda s: s.relation.key)

        if req.wants_text:
            by_query, *rest = scope.chunk_hits_many(self._chunk_texts(scope), req.top_k)
            by_names = rest[0] if rest else []
            chunks = named_first(scope, round_robin(by_query, by_names, key=lambda c: c.chunk.id), req.top_k)

        # 4. token budgets
        names = scope.names({n for r in relations for n in (r.relation.subject, r.relation.object)})
        kg_entities = fit_budget(
            (to_kg_entity(s.entity, rank=float(scope.degree(s.entity.id))) for s in entities),
            lambda e: f"{e.name} {e.type} {e.description}",
            budgets.entities,
        )
        kg_triples = fit_budget(
            (to_kg_triple(r.relation, names, rank=r.score) for r in relations),
            lambda t: t.description,
            budgets.relations,
        )
        texts = passages(chunks, budgets.chunks)
        with scope.stages.stage("render"):
            return Rendered(
                formats.render_lightrag(kg_entities, kg_triples, texts),
                formats.lightrag_items(kg_entities, kg_triples, texts),
            )

    @staticmethod
    def _chunk_texts(scope: QueryScope) -> list[str]:
        """Mix mode searches chunks by the query and by the entities it names."""
        query, named = scope.request.query, scope.low_text
        return [query, named] if named != query else [query]
