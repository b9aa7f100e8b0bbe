import html

from meddiag.knowledge.model import Entity, Relation
from meddiag.ui.subgraph import TYPE_COLOURS, graph_html, guess_type, neighbourhood_to_graph, triples_to_graph

from .sample_case import marfan_triples
from .vis_html import vis_data


def test_triples_become_one_node_per_entity_coloured_by_type():
    nodes, edges = triples_to_graph(marfan_triples())
    by_id = {n.id: n for n in nodes}
    assert set(by_id) == {"OMIM:154700", "HP:0001166", "HGNC:3603", "OMIM:236200", "HP:0001083"}
    assert by_id["OMIM:154700"].type == "Disease"
    assert by_id["HGNC:3603"].type == "Gene"
    assert by_id["HP:0001166"].type == "Phenotype"
    assert len(edges) == 3


def test_inheritance_terms_are_typed_by_predicate_not_hp_prefix():
    assert guess_type("HP:0000006", "HAS_INHERITANCE", "object") == "Inheritance"
    assert guess_type("HP:0000006", "has inheritance", "object") == "Inheritance"
    assert guess_type("HP:0000006", "IS_A", "object") == "Phenotype"
    assert guess_type(None, "related", "subject") == "Entity"


def test_graph_html_is_offline_and_escapes_labels():
    nodes, edges = triples_to_graph(marfan_triples())
    page = graph_html(nodes, edges)
    assert "cdn.jsdelivr.net" not in page
    assert "<script src=" not in page.replace(" ", "")
    data = vis_data(page)
    labels = {n["label"] for n in data["nodes"]}
    assert html.escape("Homocystinuria <CBS>") in labels
    assert "Homocystinuria <CBS>" not in labels
    colours = {n["id"]: n["color"] for n in data["nodes"]}
    assert colours["HGNC:3603"] == TYPE_COLOURS["Gene"]
    provenance = {e["title"] for e in data["edges"]}
    assert any("PMID:111" in t for t in provenance)


def test_neighbourhood_drops_edges_to_entities_not_drawn():
    entities = [
        Entity(id="OMIM:154700", type="Disease", name="Marfan syndrome"),
        Entity(id="HP:0001166", type="Phenotype", name="Arachnodactyly"),
    ]
    relations = [
        Relation(subject="OMIM:154700", predicate="HAS_PHENOTYPE", object="HP:0001166", sources=["PMID:1"]),
        Relation(subject="OMIM:154700", predicate="ASSOCIATED_GENE", object="HGNC:3603"),
    ]
    nodes, edges = neighbourhood_to_graph(entities, relations)
    assert [n.id for n in nodes] == ["OMIM:154700", "HP:0001166"]
    assert [(e.source, e.target) for e in edges] == [("OMIM:154700", "HP:0001166")]
    page = graph_html(nodes, edges, focus="OMIM:154700")
    sizes = {n["id"]: n["size"] for n in vis_data(page)["nodes"]}
    assert sizes["OMIM:154700"] > sizes["HP:0001166"]
