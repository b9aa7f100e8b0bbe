"""Compact per-node relation lists of a loaded graph, built once and read by every query.

A networkx MultiDiGraph answers "the relations of X" by walking its nested dicts and
building edge views, and "the degree of X" through degree views: ~1 ms per call on the
full knowledge base, and a retrieval makes hundreds of such calls. The lists here are
tuples in exactly the order the graph yields its edges, so reading them gives the same
answer; the store drops them whenever the graph changes.

Exclusion stays exact without a per-relation check: only relations citing an excluded
source can become invisible, so an inverted index (source → relations) finds the few
hidden ones for an exclusion set, and that set is remembered for the next queries.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence

import networkx as nx

from meddiag.knowledge.model import Relation, visible

# Exclusion sets remembered (one per evaluated case or ask; each holds a few relation ids).
HIDDEN_CACHE_SIZE = 256


class Adjacency:
    """Out-, in- and both-direction relation lists and degrees of every node of one graph."""

    def __init__(self, graph: nx.MultiDiGraph) -> None:
        self.out: dict[str, tuple[Relation, ...]] = {}
        self.inc: dict[str, tuple[Relation, ...]] = {}
        self.both: dict[str, tuple[Relation, ...]] = {}
        self.degree: dict[str, int] = {}
        by_source: dict[str, list[Relation]] = {}
        for node in graph:
            out = tuple(r for _, _, r in graph.out_edges(node, data="relation"))
            inc = tuple(r for _, _, r in graph.in_edges(node, data="relation"))
            self.out[node], self.inc[node] = out, inc
            # A self-loop is listed once in both directions: as outgoing.
            self.both[node] = out + tuple(r for r in inc if r.subject != r.object)
            # networkx counts a self-loop twice in a node's degree; so does out + in.
            self.degree[node] = len(out) + len(inc)
            for rel in out:
                for source in dict.fromkeys(rel.sources):
                    by_source.setdefault(source, []).append(rel)
        self._by_source = by_source
        # Per node and direction, lazily: far end -> positions of the relations reaching it.
        self._far: dict[tuple[str, str], dict[str, tuple[int, ...]]] = {}
        self._hidden: OrderedDict[frozenset[str], frozenset[int]] = OrderedDict()
        self._lock = threading.Lock()

    def hidden(self, exclude: frozenset[str]) -> frozenset[int]:
        """`id()`s of the relations whose every source is in `exclude` (invisible ones)."""
        if not exclude:
            return frozenset()
        with self._lock:
            found = self._hidden.get(exclude)
            if found is not None:
                self._hidden.move_to_end(exclude)
                return found
        found = frozenset(
            id(rel)
            for source in exclude
            for rel in self._by_source.get(source, ())
            if not visible(rel.sources, exclude)
        )
        with self._lock:
            self._hidden[exclude] = found
            while len(self._hidden) > HIDDEN_CACHE_SIZE:
                self._hidden.popitem(last=False)
        return found

    def relations(
        self,
        entity_id: str,
        direction: str,
        predicates: Sequence[str] | None,
        exclude: frozenset[str],
        neighbours: Collection[str] | None = None,
    ) -> list[Relation]:
        """The node's relations in graph order, with the predicate, neighbour and visibility filters."""
        lists = self.both if direction == "both" else self.out if direction == "out" else self.inc
        rels = lists.get(entity_id, ())
        hidden = self.hidden(exclude)
        if neighbours is not None:
            rels = self._towards(entity_id, direction, rels, neighbours)
        if predicates:
            wanted = set(predicates)
            return [r for r in rels if r.predicate in wanted and (not hidden or id(r) not in hidden)]
        if hidden:
            return [r for r in rels if id(r) not in hidden]
        return list(rels)

    def _towards(
        self, entity_id: str, direction: str, rels: tuple[Relation, ...], neighbours: Collection[str]
    ) -> tuple[Relation, ...]:
        """The node's relations whose far end is one of `neighbours`, in graph order.

        "Does X touch any of these hubs?" is asked of ~150 nodes per retrieval, each with a
        few hundred relations and only a handful of hubs to look for, so each node's
        relations are indexed by far end once and then looked up instead of scanned.
        """
        if len(neighbours) >= len(rels):
            return tuple(r for r in rels if (r.object if r.subject == entity_id else r.subject) in neighbours)
        key = (entity_id, direction)
        index = self._far.get(key)
        if index is None:
            positions: dict[str, list[int]] = {}
            for i, r in enumerate(rels):
                positions.setdefault(r.object if r.subject == entity_id else r.subject, []).append(i)
            index = {far: tuple(p) for far, p in positions.items()}
            self._far[key] = index  # a racing thread builds the same index; either copy is right
        return tuple(rels[i] for i in sorted({i for n in neighbours for i in index.get(n, ())}))
