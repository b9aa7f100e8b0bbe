"""PathRAG (Chen et al., 2025): relational paths between retrieved nodes, pruned by flow.

1. Node retrieval: seeds, entities the query names, and the entity-vector search.
2. Path search: for every pair of retrieved nodes, the simple paths of at most three hops
   between them (edges taken in either direction). The search is bounded: neighbour lists
   are fetched per query as needed (never a copy of the graph), three-hop paths only through
   a limited number of expanded intermediates, and a cap of paths per pair.
3. Flow-based pruning: from the start node, a unit of resource spreads along the tree of
   that pair's candidate paths; each node hands α·S/out-degree to each successor
   (out-degree counted in that tree), and a branch whose flow falls under θ is dropped with
   everything behind it. A path's reliability is the mean flow over its edges.
4. The most reliable paths form the low-level relationship block, rendered as sentences,
   least reliable first (the paper puts the best last, nearest the question); the nodes on
   them, ranked by how many kept paths pass through them, form the low-level entity block.
5. High level: relationship-vector search for the high-level keywords → relationships and
   their end entities; chunk-vector search gives the Sources in mix and semantic modes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from meddiag.backends import formats
from meddiag.backends.base import (
    Backend,
    QueryScope,
    Rendered,
    ScoredRelation,
    fit_budget,
    passages,
    to_kg_entity,
    to_kg_triple,
)
from meddiag.backends.profiles import named_first
from meddiag.knowledge.model import Relation
from meddiag.schema import KGEntity, KGPath, RetrievedItem

ALPHA = 0.8  # decay per hop
THRESHOLD = 0.005  # θ: our graph's hubs make the paper's 0.3 prune almost everything
MAX_HOPS = 3
MAX_NODES = 12  # retrieved nodes paired with each other
MAX_PATHS_PER_PAIR = 48
MAX_EXPANSIONS = 40  # neighbour lists fetched for three-hop paths, per query
MAX_EXPANSION_DEGREE = 400  # an intermediate with more neighbours is a hub: not expanded
TOP_PATHS = 40


@dataclass(frozen=True)
class Step:
    """One edge of a path as walked: from `node` along `relation` (either direction)."""

    relation: Relation
    source: str
    target: str


@dataclass(frozen=True)
class ScoredPath:
    start: str
    steps: tuple[Step, ...]
    flows: tuple[float, ...]

    @property
    def nodes(self) -> list[str]:
        return [self.start, *(s.target for s in self.steps)]

    @property
    def reliability(self) -> float:
        return sum(self.flows) / len(self.flows)


# --------------------------------------------------------------------------- flow pruning


def spread_flow(
    start: str, paths: Sequence[Sequence[Step]], *, alpha: float = ALPHA, threshold: float = THRESHOLD
) -> list[ScoredPath]:
    """Flow-based pruning of one start node's candidate paths.

    The candidate paths form a tree of prefixes rooted at `start`. S(start) = 1; a prefix
    ending in node u with k distinct continuations gives each of them α·S(u)/k. A path
    survives only if every edge's flow is at least `threshold`.
    """
    children: dict[tuple[str, ...], set[str]] = {}
    for path in paths:
        prefix: tuple[str, ...] = (start,)
        for step in path:
            children.setdefault(prefix, set()).add(step.target)
            prefix = (*prefix, step.target)
    kept: list[ScoredPath] = []
    for path in paths:
        resource, prefix, flows = 1.0, (start,), []
        for step in path:
            resource = alpha * resource / len(children[prefix])
            if resource < threshold:
                break
            flows.append(resource)
            prefix = (*prefix, step.target)
        else:
            kept.append(ScoredPath(start, tuple(path), tuple(flows)))
    return kept


# --------------------------------------------------------------------------- bounded path search


class Neighbours:
    """Per-query neighbour lists, fetched from the graph store on first use.

    The retrieved nodes' lists come from `QueryScope.one_hop`, which does not expand hubs.
    """

    def __init__(self, scope: QueryScope, retrieved: Sequence[str] = ()) -> None:
        self.scope = scope
        self._cache: dict[str, dict[str, Relation]] = {}
        self.expansions = 0
        if retrieved:
            hop = scope.one_hop(retrieved)
            self._cache.update({n: hop.neighbours(n) for n in retrieved})

    def of(self, node: str) -> dict[str, Relation]:
        if node not in self._cache:
            self.expansions += 1
            out: dict[str, Relation] = {}
            for rel in self.scope.relations(node):
                other = rel.object if rel.subject == node else rel.subject
                if other != node:
                    out.setdefault(other, rel)
            self._cache[node] = out
        return self._cache[node]


def _step(rel: Relation, source: str) -> Step:
    return Step(rel, source, rel.object if rel.subject == source else rel.subject)


def candidate_paths(nb: Neighbours, source: str, target: str, touches: Counter[str]) -> list[list[Step]]:
    """Simple paths of ≤ 3 hops from source to target, shortest first, capped per pair.

    Intermediates adjacent to more retrieved nodes (`touches`) come first, so the cap keeps
    the paths through the entities most connected to the query.
    """
    ns, nt = nb.of(source), nb.of(target)
    out: list[list[Step]] = []
    if target in ns:
        out.append([_step(ns[target], source)])
    middles = sorted((ns.keys() & nt.keys()) - {source, target}, key=lambda m: (-touches[m], m))
    for m in middles[: MAX_PATHS_PER_PAIR - len(out)]:
        out.append([_step(ns[m], source), _step(nt[m], m)])
    # Three hops only out of a specific node: through a hub they would be pruned anyway.
    if MAX_HOPS < 3 or len(ns) > MAX_EXPANSION_DEGREE:
        return out
    for a in sorted(ns.keys() - {target}, key=lambda a: (-touches[a], a)):
        if len(out) >= MAX_PATHS_PER_PAIR or nb.expansions >= MAX_EXPANSIONS:
            break
        if nb.scope.degree(a) > MAX_EXPANSION_DEGREE:
            continue
        na = nb.of(a)
        for b in sorted((na.keys() & nt.keys()) - {source, target, a}):
            out.append([_step(ns[a], source), _step(na[b], a), _step(nt[b], b)])
            if len(out) >= MAX_PATHS_PER_PAIR:
                break
    return out


def retrieve_paths(scope: QueryScope, nodes: Sequence[str]) -> list[ScoredPath]:
    """Flow-pruned paths between every pair of retrieved nodes, most reliable first."""
    nb = Neighbours(scope, nodes)
    touches: Counter[str] = Counter(m for n in nodes for m in nb.of(n))
    kept: list[ScoredPath] = []
    for i, source in enumerate(nodes):
        for target in nodes[i + 1 :]:
            kept += spread_flow(source, candidate_paths(nb, source, target, touches))
    kept.sort(key=lambda p: (-p.reliability, len(p.steps)))
    return kept


# --------------------------------------------------------------------------- rendering


def to_kg_path(path: ScoredPath, names: dict[str, str], entities: dict[str, KGEntity], rank: int) -> KGPath:
    nodes = [names[n] for n in path.nodes]
    edges = [s.relation.predicate for s in path.steps]
    return KGPath(
        nodes=nodes,
        edges=edges,
        sentence=formats.path_sentence(nodes, edges, entities),
        reliability_rank=rank,
        level="low",
    )


def path_items(paths: Sequence[ScoredPath]) -> list[RetrievedItem]:
    """Side channel for path rows (rendered least reliable first): node ids and the edges' provenance."""
    start = formats.ROW_ID_START["pathrag"]
    return [
        formats.retrieved_item(
            formats.PATHRAG_LOW_RELATIONS,
            i,
            "path",
            p.nodes,
            None,
            list(dict.fromkeys(src for s in p.steps for src in s.relation.sources)),
        )
        for i, p in enumerate(paths, start=start)
    ]


class PathRAG(Backend):
    name = "pathrag"

    def _retrieve(self, scope: QueryScope) -> Rendered:
        req, budgets = scope.request, self.budgets
        high_entities: list[KGEntity] = []
        high_relations: list[ScoredRelation] = []
        low_entities: list[KGEntity] = []
        low_paths: list[ScoredPath] = []

        # The high-level and chunk searches depend on nothing found here: start them first.
        scope.prefetch(
            ([("relationships", [scope.high_text], req.top_k)] if req.wants_graph else [])
            + ([("chunks", [req.query], req.top_k)] if req.wants_text else [])
        )
        if req.wants_graph:
            # 1-3. retrieved nodes → bounded paths between pairs → flow pruning
            retrieved = scope.low_level_entities(req.top_k)
            node_ids = [s.entity.id for s in retrieved][: max(MAX_NODES, len(req.seeds))]
            with scope.stages.stage("paths"):
                low_paths = retrieve_paths(scope, node_ids)[:TOP_PATHS]
            # Seeds must show their relations even when no path joins them to another node.
            seed_relations = [ScoredRelation(r, 1.0) for s in req.seeds for r in scope.relations(s)]
            # 4. nodes on kept paths, most-travelled first, after the retrieved nodes
            travelled = Counter(n for p in low_paths for n in p.nodes)
            low_ids = list(dict.fromkeys([*node_ids, *(n for n, _ in travelled.most_common())]))
            found = scope.entities(low_ids)
            low_entities = [
                to_kg_entity(found[i], rank=float(scope.degree(i)), level="low")
                for i in low_ids
                if i in found
            ]
            # 5. high level: relationship vectors and their end entities
            high_text = scope.high_text
            high_relations = seed_relations + scope.relation_hits(high_text, req.top_k)
            high_ids = list(
                dict.fromkeys(n for r in high_relations for n in (r.relation.subject, r.relation.object))
            )
            found = scope.entities(high_ids)
            high_entities = [
                to_kg_entity(found[i], rank=float(scope.degree(i)), level="high")
                for i in high_ids
                if i in found
            ]

        texts = []
        if req.wants_text:
            texts = passages(
                named_first(scope, scope.chunk_hits(req.query, req.top_k), req.top_k), budgets.chunks
            )

        names = scope.names(
            {n for p in low_paths for n in p.nodes}
            | {n for r in high_relations for n in (r.relation.subject, r.relation.object)}
        )
        high_triples = fit_budget(
            (to_kg_triple(r.relation, names, rank=r.score, level="high") for r in high_relations),
            lambda t: t.description,
            budgets.relations // 2,
        )
        high_entities = fit_budget(high_entities, lambda e: e.description, budgets.entities // 2)
        low_entities = fit_budget(low_entities, lambda e: e.description, budgets.entities // 2)
        by_name = {e.name: e for e in [*high_entities, *low_entities]}
        # most reliable first while budgeting, then shown least reliable first (best nearest the question)
        rendered = [(p, to_kg_path(p, names, by_name, rank)) for rank, p in enumerate(low_paths, start=1)]
        kept = fit_budget(rendered, lambda pk: pk[1].sentence, budgets.relations)[::-1]
        shown, kg_paths = [p for p, _ in kept], [k for _, k in kept]
        with scope.stages.stage("render"):
            args = (high_entities, high_triples, texts, low_entities, kg_paths)
            return Rendered(
                formats.render_pathrag(*args), [*formats.pathrag_items(*args), *path_items(shown)]
            )
