"""PathRAG's flow-based pruning on a hand-made graph, against flows computed by hand."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from meddiag.backends.base import Keywords, QueryScope, RetrievalRequest, Stages
from meddiag.backends.pathrag import ALPHA, Neighbours, Step, candidate_paths, retrieve_paths, spread_flow
from meddiag.knowledge.model import Entity, Relation
from tests.backends.fakes import FakeKB


def _rel(a: str, b: str) -> Relation:
    return Relation(subject=a, predicate="IS_A", object=b, sources=["HPO"])


def _path(*nodes: str) -> list[Step]:
    return [Step(_rel(a, b), a, b) for a, b in itertools.pairwise(nodes)]


# A → B → D, A → C → D, A → C → E → D: from A, B and C share A's resource; C splits its share.
PATHS = [_path("A", "B", "D"), _path("A", "C", "D"), _path("A", "C", "E", "D")]


def test_flows_spread_from_the_start_divided_by_out_degree_and_decayed() -> None:
    kept = {tuple(p.nodes): p for p in spread_flow("A", PATHS, alpha=0.8, threshold=0.0)}
    # A→B = A→C = 0.8·1/2 = 0.4; B→D = 0.8·0.4/1 = 0.32; C→D = C→E = 0.8·0.4/2 = 0.16; E→D = 0.8·0.16 = 0.128
    assert kept[("A", "B", "D")].flows == pytest.approx((0.4, 0.32))
    assert kept[("A", "C", "D")].flows == pytest.approx((0.4, 0.16))
    assert kept[("A", "C", "E", "D")].flows == pytest.approx((0.4, 0.16, 0.128))
    # reliability = mean edge flow
    assert kept[("A", "B", "D")].reliability == pytest.approx(0.36)
    assert kept[("A", "C", "D")].reliability == pytest.approx(0.28)
    assert kept[("A", "C", "E", "D")].reliability == pytest.approx(0.688 / 3)


def test_a_branch_under_the_threshold_is_pruned_with_everything_behind_it() -> None:
    kept = {tuple(p.nodes) for p in spread_flow("A", PATHS, alpha=0.8, threshold=0.15)}
    assert kept == {("A", "B", "D"), ("A", "C", "D")}  # E→D carries 0.128 < 0.15
    kept = {tuple(p.nodes) for p in spread_flow("A", PATHS, alpha=0.8, threshold=0.2)}
    assert kept == {("A", "B", "D")}  # C→D and C→E carry 0.16 < 0.2


def test_default_decay_is_the_papers_alpha() -> None:
    assert ALPHA == 0.8


def _scope(kb: FakeKB) -> QueryScope:
    request = RetrievalRequest("q", Keywords([], []), (), 10, frozenset(), "relational")
    return QueryScope(kb, request, Stages())


def _graph() -> FakeKB:
    kb = FakeKB()
    kb.graph.upsert_entities(Entity(id=n, type="Phenotype", name=n) for n in "ABCDEFX")
    kb.graph.upsert_relations(
        [_rel("A", "B"), _rel("B", "D"), _rel("A", "C"), _rel("C", "D"), _rel("C", "E")]
    )
    kb.graph.upsert_relations([_rel("E", "D"), _rel("D", "F"), _rel("X", "F")])
    return kb


def test_candidate_paths_are_all_simple_paths_of_at_most_three_hops_shortest_first() -> None:
    kb = _graph()
    nb = Neighbours(_scope(kb))

    found = [tuple([p[0].source, *(s.target for s in p)]) for p in candidate_paths(nb, "A", "D", Counter())]
    assert found[:2] == [("A", "B", "D"), ("A", "C", "D")]
    assert set(found[2:]) == {("A", "C", "E", "D")}
    # edges are walked in either direction: X reaches D against F's edge direction
    found = [tuple([p[0].source, *(s.target for s in p)]) for p in candidate_paths(nb, "X", "D", Counter())]
    assert found == [("X", "F", "D")]


def test_retrieve_paths_ranks_by_reliability_and_never_copies_the_graph() -> None:
    kb = _graph()
    paths = retrieve_paths(_scope(kb), ["A", "D"])
    assert [tuple(p.nodes) for p in paths][:2] == [("A", "B", "D"), ("A", "C", "D")]
    assert all(p.reliability >= q.reliability for p, q in itertools.pairwise(paths))
    # neighbour lists are fetched per node on demand, each at most once
    assert kb.graph.calls["relations"] <= 6
