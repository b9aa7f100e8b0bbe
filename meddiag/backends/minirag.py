"""MiniRAG (Fan et al., 2025): retrieval over a heterogeneous graph of chunks and entities.

Text chunks are nodes beside entity nodes: a chunk links to every entity it mentions
(`Chunk.entity_ids`), entities link to each other through relations, and an entity-name
index finds where a query starts.

1. Start nodes: seeds, the entities the query names (entity-name index), the entity-vector
   search; the expected answer type comes from the question ("which genes…" → Gene, a
   list of findings → Disease).
2. Reasoning paths of at most two hops out of the start nodes. A path scores one point per
   query entity on it, one if it ends in a node of the expected answer type, plus the
   votes of the relationship vectors: each edge of the path that the relationship-vector
   search returned adds its similarity. Two-hop paths between start nodes come from the
   start nodes' neighbour lists; other two-hop paths only through a bounded number of
   small intermediates (ontology parents and children, not hubs).
3. Entities: start nodes, then answer-type nodes ranked by the summed scores of the kept
   paths through them; relationships: the edges of the kept paths.
4. Chunks: candidates from the chunk vector search and the chunk nodes attached to the top
   answer nodes (their generated profiles); a chunk scores its vector similarity plus the
   share of path entities it mentions, and a bonus when both routes found it; a question
   about a named disease gets that disease's profile chunks first.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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
from meddiag.backends.profiles import disease_profile, named_first
from meddiag.knowledge.model import Relation

MAX_START_NODES = 15
MAX_EXPANSIONS = 40  # intermediates expanded for two-hop paths, per query
MAX_INTERMEDIATE_DEGREE = 300
MAX_PATHS = 400
TOP_ANSWERS = 5  # answer nodes whose profile chunks join the chunk candidates
BOTH_ROUTES_BONUS = 1.0


@dataclass(frozen=True)
class Path:
    nodes: tuple[str, ...]
    relations: tuple[Relation, ...]
    score: float


def neighbours(scope: QueryScope, node: str) -> dict[str, Relation]:
    out: dict[str, Relation] = {}
    for rel in scope.relations(node):
        other = rel.object if rel.subject == node else rel.subject
        if other != node:
            out.setdefault(other, rel)
    return out


def reasoning_paths(
    scope: QueryScope, starts: Sequence[str], answer_type: str, votes: Sequence[ScoredRelation]
) -> list[Path]:
    """Scored paths of ≤ 2 hops out of the start nodes, best first.

    A query yields thousands of candidate paths and keeps `MAX_PATHS`, so candidates are
    plain sort keys, ``(-score, hops, nodes, index)``, compared natively; only the kept
    ones become `Path` objects.
    """
    start_set = set(starts)
    hop = scope.one_hop(starts)  # bounded on hub start nodes
    adjacency = {s: hop.neighbours(s) for s in starts}
    types = {i: e.type for i, e in scope.entities({n for adj in adjacency.values() for n in adj}).items()}
    type_of = types.get

    # Thousands of paths share a few hundred relations, and only the few the relationship
    # search returned carry a vote: an edge with neither end among theirs scores 0 without
    # reading the relation, and the others are looked up once (`Relation.key` formats a
    # string per call). Relations stay referenced by the scope, so their ids are stable.
    by_key = {r.relation.key: r.score for r in votes}
    voted_nodes = {n for r in votes for n in (r.relation.subject, r.relation.object)}
    vote_of: dict[int, float] = {}

    def vote(rel: Relation, x: str, y: str) -> float:
        if x not in voted_nodes and y not in voted_nodes:
            return 0.0
        found = vote_of.get(id(rel))
        if found is None:
            found = vote_of[id(rel)] = by_key.get(rel.key, 0.0)
        return found

    keys: list[tuple[float, int, tuple[str, ...], int]] = []
    relations: list[tuple[Relation, ...]] = []
    add_key, add_relations = keys.append, relations.append  # ~5,000 paths per query

    # A path scores the start nodes on it + 1 if it ends in the answer type + its relations'
    # votes. Its start-node count is known from its shape, so it is not recounted per path.
    holders: dict[str, list[str]] = defaultdict(list)  # node -> start nodes it neighbours
    for t, adj in adjacency.items():
        for a in adj:
            holders[a].append(t)
    voted = {s: {a: vote(rel, s, a) for a, rel in adj.items()} for s, adj in adjacency.items()}
    for s, adj in adjacency.items():
        for a, rel in adj.items():
            v = voted[s][a]
            on_start = 1 if a in start_set else 0
            add_key(
                (-(1 + on_start + (1.0 if type_of(a) == answer_type else 0.0) + v), 1, (s, a), len(relations))
            )
            add_relations((rel,))
            # two hops back into another start node: from the start nodes' own lists
            for t in holders[a]:
                if t != s and a != t:
                    typed = 1.0 if type_of(t) == answer_type else 0.0
                    score = 2 + on_start + typed + (v + voted[t][a])
                    add_key((-score, 2, (s, a, t), len(relations)))
                    add_relations((rel, adjacency[t][a]))
    # two hops through small intermediates that are not answers themselves; an intermediate
    # several start nodes share is read once: its answer-type neighbours and their votes
    answers_beyond: dict[str, list[tuple[str, Relation, float]]] = {}
    expansions = 0
    degree = scope.degree
    for s, adj in adjacency.items():
        if expansions >= MAX_EXPANSIONS:
            break
        middles = [a for a in adj if a not in start_set and type_of(a) != answer_type]
        for a in sorted(middles, key=lambda m: (degree(m), m)):
            if expansions >= MAX_EXPANSIONS or degree(a) > MAX_INTERMEDIATE_DEGREE:
                break
            expansions += 1
            rel = adj[a]
            v = vote(rel, s, a)
            beyond = answers_beyond.get(a)
            if beyond is None:
                far = neighbours(scope, a)
                unknown = [b for b in far if b not in types]
                if unknown:
                    types.update((i, e.type) for i, e in scope.entities(unknown).items())
                beyond = answers_beyond[a] = [
                    (b, rel2, vote(rel2, a, b)) for b, rel2 in far.items() if type_of(b) == answer_type
                ]
            for b, rel2, v2 in beyond:
                if b not in start_set and b != s:
                    add_key((-(1 + 1.0 + (v + v2)), 2, (s, a, b), len(relations)))
                    add_relations((rel, rel2))
    return [Path(nodes, relations[i], -neg) for neg, _, nodes, i in heapq.nsmallest(MAX_PATHS, keys)]


def rank_answers(
    paths: Sequence[Path], answer_type: str, types: Mapping[str, str]
) -> list[tuple[str, float]]:
    """Answer-type nodes by the summed scores of the paths through them."""
    totals: dict[str, float] = defaultdict(float)
    for p in paths:
        for n in p.nodes[1:]:
            if types.get(n) == answer_type:
                totals[n] += p.score
    return sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))


def score_chunks(
    vector_hits: Sequence[ScoredChunk], graph_chunks: Sequence[ScoredChunk], path_entities: set[str]
) -> list[ScoredChunk]:
    """Chunk nodes scored by similarity, by the path entities they mention, and by being found twice."""
    by_id: dict[str, tuple[ScoredChunk, float, bool, bool]] = {}
    for hit in vector_hits:
        by_id[hit.chunk.id] = (hit, hit.score, True, False)
    for hit in graph_chunks:
        prev = by_id.get(hit.chunk.id)
        by_id[hit.chunk.id] = (prev[0] if prev else hit, prev[1] if prev else 0.0, bool(prev), True)
    scored = []
    for hit, similarity, by_vector, by_graph in by_id.values():
        mentioned = set(hit.chunk.entity_ids)
        share = len(mentioned & path_entities) / len(path_entities) if path_entities else 0.0
        bonus = BOTH_ROUTES_BONUS if by_vector and by_graph else 0.0
        scored.append(ScoredChunk(hit.chunk, similarity + share + bonus))
    scored.sort(key=lambda c: (-c.score, c.chunk.id))
    return scored


def profile_chunks(scope: QueryScope, ranked: Sequence[ScoredEntity], answer_type: str) -> list[ScoredChunk]:
    """Chunk nodes attached to the leading diseases: the answers, or the diseases the query names."""
    diseases = [e.entity.id for e in ranked if e.entity.type == "Disease"]
    if answer_type == "Disease":
        diseases = [e.entity.id for e in ranked if e.via == "path"] or diseases
    out: list[ScoredChunk] = []
    for disease_id in diseases[:TOP_ANSWERS]:
        out += [ScoredChunk(c, 0.0) for c in disease_profile(scope, disease_id)]
    return out


class MiniRAG(Backend):
    name = "minirag"

    def _retrieve(self, scope: QueryScope) -> Rendered:
        req, budgets = scope.request, self.budgets
        answer_type = req.keywords.answer_type or "Disease"

        # The relationship votes and the chunk vector route depend on nothing found here.
        scope.prefetch(
            [("relationships", [scope.high_text], req.top_k)]
            + ([("chunks", [req.query], req.top_k * 2)] if req.wants_text else [])
        )
        # 1. start nodes from the name index and the entity vectors (the graph guides the
        #    chunk search too, so this runs in every mode)
        starts = scope.low_level_entities(req.top_k)[: max(MAX_START_NODES, len(req.seeds))]
        start_ids = [s.entity.id for s in starts]
        # 2. relationship vectors vote; paths scored by query entities and answer type
        votes = scope.relation_hits(scope.high_text, req.top_k)
        with scope.stages.stage("paths"):
            paths = reasoning_paths(scope, start_ids, answer_type, votes)
        path_ids = {n for p in paths for n in p.nodes}
        types = {i: e.type for i, e in scope.entities(path_ids).items()}
        answers = rank_answers(paths, answer_type, types)
        # 3. entities: start nodes, then ranked answers
        found = scope.entities(a for a, _ in answers)
        entity_rows = [(s, s.score) for s in starts] + [
            (ScoredEntity(found[a], total, "path"), total)
            for a, total in answers
            if a in found and a not in start_ids
        ]

        chunks: list[ScoredChunk] = []
        if req.wants_text:
            # 4. chunk nodes: vector route and graph route
            vector_hits = scope.chunk_hits(req.query, req.top_k * 2)
            by_graph = profile_chunks(scope, [e for e, _ in entity_rows], answer_type)
            path_entities = {n for p in paths[: req.top_k] for n in p.nodes}
            scored = score_chunks(vector_hits, by_graph, path_entities)
            chunks = named_first(scope, scored, req.top_k)[: req.top_k]

        kept_paths = paths if req.wants_graph else []
        relations = list({r.key: r for p in kept_paths for r in p.relations}.values())
        names = scope.names({n for r in relations for n in (r.subject, r.object)})
        triples = fit_budget(
            (to_kg_triple(r, names) for r in relations), lambda t: t.description, budgets.relations
        )
        for t in triples:  # MiniRAG's edge rank: the sum of both ends' degrees
            t.rank = float(scope.degree(t.subject_id or "") + scope.degree(t.object_id or ""))
        kg_entities = (
            fit_budget(
                [to_kg_entity(s.entity, rank=round(score, 3)) for s, score in entity_rows],
                lambda e: e.description,
                budgets.entities,
            )
            if req.wants_graph
            else []
        )
        texts = passages(chunks, budgets.chunks)
        with scope.stages.stage("render"):
            return Rendered(
                formats.render_minirag(kg_entities, triples, texts),
                formats.minirag_items(kg_entities, triples, texts),
            )
