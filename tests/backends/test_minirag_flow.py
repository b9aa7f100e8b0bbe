"""MiniRAG's reasoning paths on a hand-made graph, against scores computed by hand."""

from __future__ import annotations

import pytest

from meddiag.backends.base import Keywords, QueryScope, RetrievalRequest, ScoredRelation, Stages
from meddiag.backends.minirag import MiniRAG, rank_answers, reasoning_paths
from meddiag.context_filter import filter_context
from meddiag.knowledge.model import Entity, Relation
from tests.backends.fakes import FakeKB

# P1, P2: the patient's findings (start nodes). D1 shows both, D2 only P1. P1 sits under the
# grouping term G, which D3 is annotated with: D3 is reached only through G, in two hops.
ENTITIES = [
    Entity(id=i, type="Phenotype" if i[0] in "PG" else "Disease", name=name)
    for i, name in {
        "P1": "finding one",
        "P2": "finding two",
        "G": "grouping finding",
        "D1": "disease one",
        "D2": "disease two",
        "D3": "disease three",
    }.items()
]


def _has(disease: str, finding: str) -> Relation:
    return Relation(subject=disease, predicate="HAS_PHENOTYPE", object=finding, sources=["HPO"])


RELATIONS = [
    _has("D1", "P1"),
    _has("D1", "P2"),
    _has("D2", "P1"),
    _has("D3", "G"),
    Relation(subject="P1", predicate="IS_A", object="G", sources=["HPO"]),
]


def _kb() -> FakeKB:
    kb = FakeKB()
    kb.graph.upsert_entities(ENTITIES)
    kb.graph.upsert_relations(RELATIONS)
    return kb


def _scope(kb: FakeKB) -> QueryScope:
    request = RetrievalRequest("q", Keywords([], []), ("P1", "P2"), 10, frozenset(), "relational")
    return QueryScope(kb, request, Stages())


def test_paths_score_start_nodes_answer_type_and_relationship_votes() -> None:
    scope = _scope(_kb())
    voted = ScoredRelation(RELATIONS[2], 0.5)  # D2 HAS_PHENOTYPE P1, returned by the relationship search
    paths = {p.nodes: p.score for p in reasoning_paths(scope, ["P1", "P2"], "Disease", [voted])}

    # one hop: 1 (a start node) + 1 (ends in a Disease) + the edge's vote
    assert paths[("P1", "D1")] == pytest.approx(2.0)
    assert paths[("P1", "D2")] == pytest.approx(2.5)
    assert paths[("P1", "G")] == pytest.approx(1.0)
    # back into the other start node: 2 start nodes, P2 is no Disease, no votes
    assert paths[("P1", "D1", "P2")] == pytest.approx(2.0)
    # through the small intermediate G into a Disease: 1 + 1, no votes
    assert paths[("P1", "G", "D3")] == pytest.approx(2.0)
    # and nothing else: D2 is not reached from P2, and G leads on to no start node
    assert set(paths) == {
        ("P1", "D1"),
        ("P1", "D2"),
        ("P1", "G"),
        ("P2", "D1"),
        ("P1", "D1", "P2"),
        ("P2", "D1", "P1"),
        ("P1", "G", "D3"),
    }


def test_answers_sum_the_scores_of_the_paths_through_them() -> None:
    scope = _scope(_kb())
    paths = reasoning_paths(scope, ["P1", "P2"], "Disease", [])
    types = {e.id: e.type for e in ENTITIES}
    ranked = dict(rank_answers(paths, "Disease", types))
    # D1: P1→D1 (2) + P2→D1 (2) + P1→D1→P2 (2) + P2→D1→P1 (2); D2: P1→D2 (2); D3: P1→G→D3 (2)
    assert ranked == pytest.approx({"D1": 8.0, "D2": 2.0, "D3": 2.0})


def test_the_path_answers_join_the_entities_of_the_context() -> None:
    """The answer-type nodes the paths rank are the backend's entities beside its start nodes."""
    parsed = filter_context(MiniRAG(_kb()).retrieve("which disease?", seeds=["P1", "P2"], mode="relational"))
    names = [e.name for e in parsed.kg.entities]
    assert names[:2] == ["finding one", "finding two"]  # the start nodes (seeds) first
    assert names[2] == "disease one"  # then the best answer
    assert {"disease two", "disease three"} <= set(names)


def test_scope_lookups_read_a_one_shot_iterator_once() -> None:
    scope = _scope(_kb())
    found = scope.entities(i for i in ("D1", "D2", "missing"))
    assert set(found) == {"D1", "D2"}
    assert scope.names(i for i in ("D3", "missing")) == {"D3": "disease three", "missing": "missing"}
