"""The local store's precomputed relation lists, degrees and name index answer exactly what the
graph itself answers, honour exclusions, and follow every change of the graph."""

from __future__ import annotations

from itertools import chain, combinations

import networkx as nx
import pytest

from meddiag.knowledge.model import Entity, Relation, visible
from meddiag.stores.local_graph import LocalGraphStore, rank_names
from tests.stores.tiny_kb import AORTIC, ARACHNO, MARFAN, tiny_entities, tiny_relations

SELF_LOOP = Relation(subject=MARFAN, predicate="EQUIVALENT_TO", object=MARFAN, sources=["PMID:7"])


def reference_relations(
    g: nx.MultiDiGraph, node: str, direction: str, predicates: list[str] | None, exclude: frozenset[str]
) -> list[Relation]:
    """What the networkx graph answers, walked edge by edge (a self-loop once in "both")."""
    found: list[Relation] = []
    if direction in ("out", "both"):
        found += [r for _, _, r in g.out_edges(node, data="relation")]
    if direction in ("in", "both"):
        found += [
            r
            for _, _, r in g.in_edges(node, data="relation")
            if not (direction == "both" and r.subject == r.object)
        ]
    return [r for r in found if (not predicates or r.predicate in predicates) and visible(r.sources, exclude)]


@pytest.fixture
def store() -> LocalGraphStore:
    s = LocalGraphStore()
    s.upsert_entities(tiny_entities())
    s.upsert_relations([*tiny_relations(), SELF_LOOP])
    return s


def every_source(store: LocalGraphStore) -> list[str]:
    return sorted({s for r in store.iter_relations() for s in r.sources})


def test_relations_and_degrees_match_the_graph_for_every_node_direction_and_exclusion(store):
    sources = every_source(store)
    exclusions = [frozenset(c) for c in chain.from_iterable(combinations(sources, n) for n in (0, 1, 2))]
    exclusions.append(frozenset(sources))
    for node in [e.id for e in store.iter_entities()]:
        assert store.degree(node) == store._g.degree(node)
        for direction in ("out", "in", "both"):
            for predicates in (None, ["HAS_PHENOTYPE"], ["IS_A", "ASSOCIATED_GENE"]):
                for exclude in exclusions:
                    found = store.relations(
                        node, direction=direction, predicates=predicates, exclude_sources=exclude
                    )
                    assert found == reference_relations(store._g, node, direction, predicates, exclude)


def test_neighbour_filter_matches_the_graph_for_every_node_direction_and_neighbour_set(store):
    # Small neighbour sets take the indexed lookup, large ones the scan: both must keep graph order.
    nodes = [e.id for e in store.iter_entities()]
    # A second relation to the same far end checks that the index keeps every one, in order.
    store.upsert_relations([Relation(subject=MARFAN, predicate="NOT_HAS_PHENOTYPE", object=ARACHNO)])
    neighbour_sets = [set(c) for n in (1, 2, 3) for c in combinations(nodes, n)] + [set(nodes), set()]
    for node in nodes:
        for direction in ("out", "in", "both"):
            for exclude in (frozenset(), frozenset({"PMID:1"})):
                everything = reference_relations(store._g, node, direction, None, exclude)
                for wanted in neighbour_sets:
                    found = store.relations(
                        node, direction=direction, neighbours=wanted, exclude_sources=exclude
                    )
                    expected = [
                        r for r in everything if (r.object if r.subject == node else r.subject) in wanted
                    ]
                    assert found == expected, (node, direction, wanted)


def test_a_self_loop_counts_twice_in_the_degree_and_once_in_both_directions(store):
    assert store.degree(MARFAN) == store._g.degree(MARFAN)
    assert [r for r in store.relations(MARFAN) if r.subject == r.object] == [SELF_LOOP]


def test_exclusion_hides_only_relations_resting_on_excluded_sources_alone(store):
    keys = {r.key for r in store.relations(MARFAN, exclude_sources=frozenset({"PMID:1"}))}
    cited = {r.key: r.sources for r in store.relations(MARFAN)}
    assert keys == {k for k, sources in cited.items() if not sources or set(sources) - {"PMID:1"}}
    assert keys != set(cited), "some relation of the tiny graph rests on PMID:1 alone"
    # The same exclusion asked again (now remembered) answers the same.
    assert {r.key for r in store.relations(MARFAN, exclude_sources=frozenset({"PMID:1"}))} == keys


def test_changes_to_the_graph_reach_relations_degrees_and_names(store):
    before = store.degree(ARACHNO)
    assert store.search_names("zebra finger") == []
    store.upsert_entities([Entity(id="HP:9000001", type="Phenotype", name="Zebra finger sign")])
    store.upsert_relations([Relation(subject="HP:9000001", predicate="IS_A", object=ARACHNO)])
    assert store.degree(ARACHNO) == before + 1
    assert "HP:9000001|IS_A|" + ARACHNO in {r.key for r in store.relations(ARACHNO)}
    assert [e.id for e in store.search_names("zebra finger")] == ["HP:9000001"]
    store.clear()
    assert store.relations(ARACHNO) == [] and store.degree(ARACHNO) == 0
    assert store.search_names("arachnodactyly") == []


@pytest.mark.parametrize(
    "needle",
    ["arachnodactyly", "ARACHNO", "fingers", "a", "syndrome", "spider fingers", "nothing like it", "s\x00"],
)
@pytest.mark.parametrize("types", [None, ["Phenotype"], ["Disease", "Gene"]])
def test_name_search_answers_what_ranking_every_entity_answers(store, needle, types):
    everything = list(store.iter_entities())
    expected = [e.id for e in rank_names(everything, needle, types, 5)]
    assert [e.id for e in store.search_names(needle, types=types, limit=5)] == expected


def test_name_search_still_finds_by_synonym_and_prefers_exact_names(store):
    assert store.search_names("spider fingers")[0].id == ARACHNO
    assert store.search_names("Arachnodactyly", limit=1)[0].id == ARACHNO
    assert AORTIC in {e.id for e in store.search_names("aort")}


@pytest.mark.parametrize(
    "needle", ["", "a", "ar", "arachnodactyly", "fingers", "s\x00", "syndrome\x01", "\x01", "zzz", "mfs"]
)
@pytest.mark.parametrize("types", [None, ["Phenotype"], ["Disease", "Gene"]])
def test_name_candidates_are_every_entity_whose_names_contain_the_needle_in_graph_order(store, needle, types):
    of_type = [e for e in store.iter_entities() if not types or e.type in types]
    if "\x00" in needle or "\x01" in needle:  # a separator is never in a name: every entity, for ranking
        expected = [e.id for e in of_type]
    else:
        expected = [e.id for e in of_type if any(needle in n.lower() for n in [e.name, *e.synonyms])]
    assert [e.id for e in store.name_index().candidates(needle, types)] == expected
