"""HyperGraphRAG (Luo et al., 2025): retrieval over a bipartite graph of hyperedges and entities.

A hyperedge is an n-ary fact, one sentence joining several entities (here: a disease and
all its features of one frequency band, its absent features, or its inheritance, onset and
genes). Entities and hyperedges each have their vectors.

1. Entity-based: low-level keywords → entity vector search (plus seeds and the entities
   the query names) → the hyperedges those entities belong to. Hyperedges hang off their
   disease, so the diseases linked to the most retrieved entities are visited first and
   their hyperedges ranked by how many retrieved entities they contain.
2. Hyperedge-based: the query and its high-level keywords → hyperedge vector search →
   the member entities of those hyperedges.
3. Both lists merged round-robin; the knowledge comes with its source chunks (the disease
   profile each hyperedge was stated from) and, in mix mode, the chunk vector search.
"""

from __future__ import annotations

from collections.abc import Sequence

from meddiag.backends import formats
from meddiag.backends.base import (
    Backend,
    QueryScope,
    Rendered,
    ScoredChunk,
    ScoredEntity,
    ScoredHyperedge,
    fit_budget,
    passages,
    to_kg_entity,
)
from meddiag.backends.exclusion import disease_facts
from meddiag.backends.lightrag import round_robin
from meddiag.backends.profiles import disease_profile, named_first
from meddiag.knowledge.hyperedges import disease_hyperedges
from meddiag.knowledge.model import Hyperedge
from meddiag.schema import KGHyperedge

MAX_DISEASES = 12  # diseases whose hyperedges are gathered for the retrieved entities
SOURCE_CHUNKS_PER_HYPEREDGE = 1
DISEASE_TYPES = ("Disease",)


def entity_hyperedges(scope: QueryScope, entities: Sequence[ScoredEntity]) -> list[ScoredHyperedge]:
    """Hyperedges containing the retrieved entities, those containing more of them first."""
    ids = [s.entity.id for s in entities]
    diseases = [s.entity.id for s in entities if s.entity.type in DISEASE_TYPES]
    support = scope.support(ids, types=DISEASE_TYPES)
    diseases += [d for d, _ in sorted(support.items(), key=lambda kv: (-kv[1], kv[0]))]
    wanted = set(ids)
    found: list[ScoredHyperedge] = []
    for disease_id in list(dict.fromkeys(diseases))[:MAX_DISEASES]:
        for he in disease_hyperedges(disease_facts(scope, disease_id), scope.exclude):
            overlap = len(wanted & set(he.members))
            if overlap:
                found.append(ScoredHyperedge(he, float(overlap)))
    found.sort(key=lambda h: -h.score)
    return found


def source_chunks(scope: QueryScope, hyperedges: Sequence[ScoredHyperedge]) -> list[ScoredChunk]:
    """The profile chunk each hyperedge was stated from: the one sharing most of its members."""
    out: list[ScoredChunk] = []
    for scored in hyperedges:
        he = scored.hyperedge
        disease_id = he.members[0] if he.members else ""
        if not he.id.startswith(f"he/{disease_id}/"):
            continue
        members = set(he.members)
        ranked = sorted(disease_profile(scope, disease_id), key=lambda c: -len(members & set(c.entity_ids)))
        out += [ScoredChunk(c, scored.score) for c in ranked[:SOURCE_CHUNKS_PER_HYPEREDGE]]
    return out


def shared_predicate(scope: QueryScope, hyperedge: Hyperedge) -> str | None:
    """The predicate linking a hyperedge's head (its disease) to every other member, if they share one.

    Lets the parser expand a frequency-band hyperedge into HAS_PHENOTYPE triples; a group
    mixing inheritance, onset and genes shares none and stays an n-ary fact.
    """
    if len(hyperedge.members) < 2:
        return None
    head, others = hyperedge.members[0], set(hyperedge.members[1:])
    found = {r.predicate for r in scope.relations(head) if r.subject == head and r.object in others}
    return found.pop() if len(found) == 1 else None


def to_kg_hyperedge(he: ScoredHyperedge, names: dict[str, str]) -> KGHyperedge:
    h = he.hyperedge
    return KGHyperedge(
        text=h.text, members=[names.get(m, m) for m in h.members], provenance=h.sources, id=h.id
    )


class HyperGraphRAG(Backend):
    name = "hypergraphrag"

    def _retrieve(self, scope: QueryScope) -> Rendered:
        req, budgets = scope.request, self.budgets
        entities: list[ScoredEntity] = []
        hyperedges: list[ScoredHyperedge] = []
        chunks: list[ScoredChunk] = []

        # The hyperedge and chunk searches depend on nothing found here: start them first.
        scope.prefetch(
            ([("hyperedges", [scope.high_text], req.top_k)] if req.wants_graph else [])
            + ([("chunks", [req.query], req.top_k)] if req.wants_text else [])
        )
        if req.wants_graph:
            # 1. entity-based: entities → their hyperedges
            local_entities = scope.low_level_entities(req.top_k)
            with scope.stages.stage("hyperedges"):
                local_edges = entity_hyperedges(scope, local_entities)
            # 2. hyperedge-based: hyperedges → their member entities
            global_edges = scope.hyperedge_hits(scope.high_text, req.top_k)
            member_ids = list(dict.fromkeys(m for h in global_edges for m in h.hyperedge.members))
            found = scope.entities(member_ids)
            global_entities = [ScoredEntity(found[i], 0.0, "hyperedge") for i in member_ids if i in found]
            # 3. merge both routes
            entities = round_robin(local_entities, global_entities, key=lambda s: s.entity.id)
            hyperedges = round_robin(local_edges, global_edges, key=lambda h: h.hyperedge.id)
            hyperedges = fit_budget(hyperedges, lambda h: h.hyperedge.text, budgets.relations)

        if req.wants_text:
            # the knowledge's source chunks, then (mix and semantic) the chunk vector search
            by_knowledge = source_chunks(scope, hyperedges[: req.top_k])
            by_vector = scope.chunk_hits(req.query, req.top_k)
            merged = round_robin(by_vector, by_knowledge, key=lambda c: c.chunk.id)
            chunks = named_first(scope, merged, req.top_k)

        names = scope.names({m for h in hyperedges for m in h.hyperedge.members})
        kg_entities = fit_budget(
            (to_kg_entity(s.entity) for s in entities), lambda e: e.description, budgets.entities
        )
        kg_hyperedges = [to_kg_hyperedge(h, names) for h in hyperedges]
        texts = passages(chunks, budgets.chunks)
        with scope.stages.stage("render"):
            items = formats.hypergraphrag_items(kg_entities, kg_hyperedges, texts)
            by_id = {h.hyperedge.id: h.hyperedge for h in hyperedges}
            for item in items:
                if item.kind == "hyperedge" and item.ids and item.ids[0] in by_id:
                    item.predicate = shared_predicate(scope, by_id[item.ids[0]])
            return Rendered(formats.render_hypergraphrag(kg_entities, kg_hyperedges, texts), items)
