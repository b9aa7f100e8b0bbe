"""One contract for both graph stores: the local networkx store and Neo4j (over ArcadeDB's Bolt)."""

from __future__ import annotations

import pytest

from meddiag.knowledge.model import Entity, Relation
from tests.stores.tiny_kb import (
    AD,
    AORTIC,
    ARACHNO,
    CBS,
    ECTOPIA,
    FBN1,
    HCU,
    HYPERMOBILE,
    LDS,
    MARFAN,
    ROOT,
    TGFBR2,
    tiny_relations,
)


def keys(relations: list[Relation]) -> set[str]:
    return {r.key for r in relations}


def test_get_returns_the_stored_entity_with_its_fields(graph_store):
    entity = graph_store.get(ARACHNO)
    assert entity is not None
    assert entity.name == "Arachnodactyly"
    assert entity.type == "Phenotype"
    assert entity.synonyms == ["Spider fingers", "Long slender fingers"]
    assert graph_store.get("HP:9999999") is None


def test_get_many_skips_unknown_ids(graph_store):
    found = graph_store.get_many([MARFAN, "OMIM:000000", FBN1])
    assert set(found) == {MARFAN, FBN1}
    assert found[FBN1].type == "Gene"


def test_relations_keep_predicate_data_and_provenance(graph_store):
    stored = {r.key: r for r in tiny_relations()}
    found = graph_store.relations(MARFAN)
    assert len(found) == 5
    for rel in found:
        assert rel == stored[rel.key]
    marfan_arachno = next(r for r in graph_store.relations(MARFAN) if r.object == ARACHNO)
    assert marfan_arachno.frequency == pytest.approx(0.9)
    assert marfan_arachno.frequency_label == "90%"
    assert marfan_arachno.sources == ["PMID:1", "OMIM:154700"]
    assert marfan_arachno.source_file == "phenotype.hpoa"


def test_relations_follow_direction_and_predicate_filters(graph_store):
    out = keys(graph_store.relations(AORTIC, direction="out"))
    assert out == {f"{AORTIC}|IS_A|{ROOT}"}
    incoming = keys(graph_store.relations(AORTIC, direction="in"))
    assert incoming == {
        f"{MARFAN}|HAS_PHENOTYPE|{AORTIC}",
        f"{LDS}|HAS_PHENOTYPE|{AORTIC}",
        f"{HCU}|NOT_HAS_PHENOTYPE|{AORTIC}",
    }
    assert keys(graph_store.relations(AORTIC)) == out | incoming
    assert keys(graph_store.relations(AORTIC, predicates=["NOT_HAS_PHENOTYPE"])) == {
        f"{HCU}|NOT_HAS_PHENOTYPE|{AORTIC}"
    }
    assert len(graph_store.relations(AORTIC, limit=2)) == 2
    with pytest.raises(ValueError):
        graph_store.relations(AORTIC, direction="sideways")


def test_relations_resting_only_on_excluded_sources_are_hidden(graph_store):
    visible = keys(graph_store.relations(MARFAN, exclude_sources=frozenset({"PMID:1"})))
    assert f"{MARFAN}|HAS_PHENOTYPE|{ECTOPIA}" not in visible  # PMID:1 only
    assert f"{MARFAN}|HAS_PHENOTYPE|{ARACHNO}" in visible  # also OMIM:154700
    assert f"{MARFAN}|ASSOCIATED_GENE|{FBN1}" in visible  # cites nothing: always visible
    both_gone = keys(graph_store.relations(MARFAN, exclude_sources=frozenset({"PMID:1", "OMIM:154700"})))
    assert f"{MARFAN}|HAS_PHENOTYPE|{ARACHNO}" not in both_gone
    assert f"{MARFAN}|HAS_PHENOTYPE|{AORTIC}" in both_gone


def test_relations_can_be_limited_to_given_neighbours(graph_store):
    everything = graph_store.relations(AORTIC)
    wanted = {MARFAN, ROOT, "HP:9999999"}
    among = graph_store.relations(AORTIC, neighbours=wanted)
    assert keys(among) == {f"{MARFAN}|HAS_PHENOTYPE|{AORTIC}", f"{AORTIC}|IS_A|{ROOT}"}
    assert keys(among) == {r.key for r in everything if {r.subject, r.object} & wanted}
    assert graph_store.relations(AORTIC, neighbours=set()) == []
    hidden = graph_store.relations(
        MARFAN, neighbours={ECTOPIA, ARACHNO}, exclude_sources=frozenset({"PMID:1"})
    )
    assert keys(hidden) == {f"{MARFAN}|HAS_PHENOTYPE|{ARACHNO}"}


def test_upsert_replaces_a_relation_instead_of_duplicating_it(mutable_graph_store):
    updated = Relation(
        subject=MARFAN, predicate="HAS_PHENOTYPE", object=ECTOPIA, frequency=0.7, sources=["PMID:9"]
    )
    assert mutable_graph_store.upsert_relations([updated]) == 1
    found = [r for r in mutable_graph_store.relations(MARFAN, direction="out") if r.object == ECTOPIA]
    assert len(found) == 1
    assert found[0].frequency == pytest.approx(0.7)
    assert found[0].sources == ["PMID:9"]


def test_relations_to_unknown_entities_are_not_written(mutable_graph_store):
    dangling = Relation(subject=MARFAN, predicate="HAS_PHENOTYPE", object="HP:7777777")
    assert mutable_graph_store.upsert_relations([dangling]) == 0
    assert mutable_graph_store.get("HP:7777777") is None
    assert all(r.object != "HP:7777777" for r in mutable_graph_store.relations(MARFAN))


def test_upsert_entities_updates_fields(mutable_graph_store):
    mutable_graph_store.upsert_entities(
        [Entity(id=FBN1, type="Gene", name="FBN1", description="fibrillin 1")]
    )
    assert mutable_graph_store.get(FBN1).description == "fibrillin 1"


def test_degree_counts_edges_in_both_directions(graph_store):
    assert graph_store.degree(MARFAN) == 5
    assert graph_store.degree(AORTIC) == 4
    assert graph_store.degree("HP:9999999") == 0


def test_name_search_ranks_exact_then_synonym_then_prefix_then_substring(graph_store):
    assert [e.id for e in graph_store.search_names("marfan syndrome")] == [MARFAN]
    assert graph_store.search_names("spider fingers")[0].id == ARACHNO
    assert graph_store.search_names("mfs")[0].id == MARFAN
    hits = [e.id for e in graph_store.search_names("a")]
    assert len(hits) == len(set(hits))
    assert graph_store.search_names("syndrome", types=["Phenotype"]) == []
    names = [e.id for e in graph_store.search_names("aort")]
    assert names[0] == AORTIC
    assert graph_store.search_names("autosomal", limit=1)[0].id in {AD, "HP:0000007"}
    assert graph_store.search_names("   ") == []


def test_exact_name_lookup_matches_whole_names_and_synonyms_only(graph_store):
    found = graph_store.entities_named(["Marfan syndrome", "  spider FINGERS ", "mfs", "marfan", "nothing"])
    assert {name: [e.id for e in es] for name, es in found.items()} == {
        "Marfan syndrome": [MARFAN],
        "  spider FINGERS ": [ARACHNO],
        "mfs": [MARFAN],
    }  # a part of a name ("marfan") or an unknown name finds nothing
    assert found["mfs"][0].name == "Marfan syndrome"
    assert graph_store.entities_named([]) == {} and graph_store.entities_named(["  "]) == {}


def test_neighbourhood_respects_depth_types_and_max_nodes(graph_store):
    entities, relations = graph_store.neighbourhood(MARFAN, depth=1, max_nodes=50)
    assert {e.id for e in entities} == {MARFAN, ARACHNO, ECTOPIA, AORTIC, FBN1, AD}
    assert entities[0].id == MARFAN
    assert keys(relations) == keys(graph_store.relations(MARFAN))

    phenos, rels = graph_store.neighbourhood(MARFAN, depth=2, types=["Phenotype"])
    assert {e.id for e in phenos} == {MARFAN, ARACHNO, ECTOPIA, AORTIC, ROOT}
    assert f"{ARACHNO}|IS_A|{ROOT}" in keys(rels)

    small, small_rels = graph_store.neighbourhood(MARFAN, depth=3, max_nodes=3)
    ids = {e.id for e in small}
    assert len(small) == 3 and MARFAN in ids
    assert all(r.subject in ids and r.object in ids for r in small_rels)

    assert graph_store.neighbourhood("HP:9999999") == ([], [])


def test_neighbourhood_does_not_cross_hidden_relations(graph_store):
    entities, relations = graph_store.neighbourhood(MARFAN, depth=1, exclude_sources=frozenset({"PMID:1"}))
    assert ECTOPIA not in {e.id for e in entities}
    assert all("PMID:1" not in r.sources or len(r.sources) > 1 for r in relations)


def test_paths_are_simple_shortest_first_and_bounded(graph_store):
    paths = graph_store.paths(MARFAN, LDS, max_hops=2, limit=10)
    as_keys = {tuple(r.key for r in p) for p in paths}
    assert as_keys == {
        (f"{MARFAN}|HAS_PHENOTYPE|{AORTIC}", f"{LDS}|HAS_PHENOTYPE|{AORTIC}"),
        (f"{MARFAN}|HAS_INHERITANCE|{AD}", f"{LDS}|HAS_INHERITANCE|{AD}"),
    }
    assert graph_store.paths(MARFAN, LDS, max_hops=1) == []
    longer = graph_store.paths(MARFAN, TGFBR2, max_hops=3, limit=20)
    assert longer and all(len(p) == 3 for p in longer)
    assert [len(p) for p in graph_store.paths(MARFAN, HYPERMOBILE, max_hops=3, limit=50)] == sorted(
        len(p) for p in graph_store.paths(MARFAN, HYPERMOBILE, max_hops=3, limit=50)
    )
    for path in graph_store.paths(MARFAN, HYPERMOBILE, max_hops=4, limit=50):
        nodes = [MARFAN]
        for rel in path:
            nodes.append(rel.object if rel.subject == nodes[-1] else rel.subject)
        assert nodes[-1] == HYPERMOBILE
        assert len(nodes) == len(set(nodes))
    assert len(graph_store.paths(MARFAN, HYPERMOBILE, max_hops=4, limit=2)) == 2


def test_paths_skip_hidden_relations(graph_store):
    paths = graph_store.paths(MARFAN, LDS, max_hops=2, exclude_sources=frozenset({"PMID:2"}))
    assert {tuple(r.key for r in p) for p in paths} == {
        (f"{MARFAN}|HAS_INHERITANCE|{AD}", f"{LDS}|HAS_INHERITANCE|{AD}")
    }


def test_counts_group_entities_by_type_and_relations_by_predicate(graph_store):
    counts = graph_store.counts()
    assert counts["entities"] == {"Disease": 3, "Gene": 3, "Inheritance": 2, "Phenotype": 5}
    assert counts["relations"] == {
        "ASSOCIATED_GENE": 3,
        "HAS_INHERITANCE": 3,
        "HAS_PHENOTYPE": 7,
        "IS_A": 4,
        "NOT_HAS_PHENOTYPE": 1,
    }


def test_clear_empties_the_store(mutable_graph_store):
    mutable_graph_store.clear()
    assert mutable_graph_store.counts() == {"entities": {}, "relations": {}}
    assert mutable_graph_store.get(MARFAN) is None


def test_iter_entities_and_relations_read_everything_with_filters(graph_store):
    genes = {e.id for e in graph_store.iter_entities(["Gene"])}
    assert genes == {FBN1, TGFBR2, CBS}
    assert len(list(graph_store.iter_entities())) == 13
    inheritance = keys(list(graph_store.iter_relations(["HAS_INHERITANCE"])))
    assert inheritance == {
        f"{MARFAN}|HAS_INHERITANCE|{AD}",
        f"{LDS}|HAS_INHERITANCE|{AD}",
        f"{HCU}|HAS_INHERITANCE|HP:0000007",
    }
    assert keys(list(graph_store.iter_relations())) == keys(tiny_relations())
