"""Interactive pyvis (vis-network) graphs of triples and of knowledge-graph neighbourhoods.

The HTML is self-contained (`cdn_resources="in_line"`) so it draws without internet;
pyvis's template still links Bootstrap from a CDN, which the graph does not need, so those
two tags are removed. Labels and tooltips are HTML-escaped: names come from sources and uploads.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pyvis.network import Network

from meddiag.knowledge.model import Entity, Relation
from meddiag.schema import KGTriple

TYPE_COLOURS: dict[str, str] = {
    "Disease": "#d62728",
    "DiseaseClass": "#ff9896",
    "Phenotype": "#1f77b4",
    "Gene": "#2ca02c",
    "Inheritance": "#9467bd",
    "Onset": "#8c564b",
    "Entity": "#7f7f7f",
}

# The object's type follows from the predicate more reliably than from the id prefix
# (inheritance and onset terms are HP ids too).
_OBJECT_TYPE_BY_PREDICATE = {
    "HAS_PHENOTYPE": "Phenotype",
    "NOT_HAS_PHENOTYPE": "Phenotype",
    "ASSOCIATED_GENE": "Gene",
    "HAS_INHERITANCE": "Inheritance",
    "HAS_ONSET": "Onset",
}
_SUBJECT_TYPE_BY_PREDICATE = {p: "Disease" for p in _OBJECT_TYPE_BY_PREDICATE}
_TYPE_BY_PREFIX = {
    "HP": "Phenotype",
    "OMIM": "Disease",
    "ORPHA": "Disease",
    "DECIPHER": "Disease",
    "MONDO": "Disease",
    "HGNC": "Gene",
    "NCBIGene": "Gene",
    "GENE": "Gene",
}
_CDN_TAGS = re.compile(r"<(link|script)\b[^>]*https://cdn\.jsdelivr\.net[^>]*>(\s*</script>)?", re.S)


@dataclass(frozen=True)
class GraphNode:
    id: str
    label: str
    type: str
    title: str = ""


@dataclass(frozen=True)
class GraphEdge:
    source: str
    target: str
    label: str
    title: str = ""


def _predicate_key(predicate: str) -> str:
    return re.sub(r"[^A-Z]+", "_", predicate.upper()).strip("_")


def guess_type(entity_id: str | None, predicate: str, role: str) -> str:
    """An entity's type from the predicate it takes part in, else from its id prefix."""
    key = _predicate_key(predicate)
    by_role = _SUBJECT_TYPE_BY_PREDICATE if role == "subject" else _OBJECT_TYPE_BY_PREDICATE
    if key in by_role:
        return by_role[key]
    if entity_id and ":" in entity_id:
        return _TYPE_BY_PREFIX.get(entity_id.split(":", 1)[0], "Entity")
    return "Entity"


def triples_to_graph(triples: Sequence[KGTriple]) -> tuple[list[GraphNode], list[GraphEdge]]:
    nodes: dict[str, GraphNode] = {}
    edges: list[GraphEdge] = []
    for t in triples:
        ends = []
        for name, ent_id, role in ((t.subject, t.subject_id, "subject"), (t.object, t.object_id, "object")):
            node_id = ent_id or name
            if node_id not in nodes:
                kind = guess_type(ent_id, t.predicate, role)
                title = f"{name} ({ent_id})" if ent_id else name
                nodes[node_id] = GraphNode(node_id, name, kind, f"{kind}: {title}")
            ends.append(node_id)
        prov = ", ".join(t.provenance) or "no provenance recorded"
        edges.append(GraphEdge(ends[0], ends[1], t.predicate, f"{t.predicate} — {prov}"))
    return list(nodes.values()), edges


def neighbourhood_to_graph(
    entities: Sequence[Entity], relations: Sequence[Relation]
) -> tuple[list[GraphNode], list[GraphEdge]]:
    nodes = [GraphNode(e.id, e.name, e.type, f"{e.type}: {e.name} ({e.id})") for e in entities]
    known = {n.id for n in nodes}
    edges = [
        GraphEdge(
            r.subject, r.object, r.predicate, f"{r.predicate} — {', '.join(r.sources) or r.source_file}"
        )
        for r in relations
        if r.subject in known and r.object in known
    ]
    return nodes, edges


def graph_html(
    nodes: Sequence[GraphNode], edges: Sequence[GraphEdge], *, height_px: int = 380, focus: str | None = None
) -> str:
    """Self-contained vis-network HTML; the page's global `network` holds the drawn graph."""
    net = Network(height=f"{height_px}px", width="100%", directed=True, cdn_resources="in_line")
    for node in nodes:
        net.add_node(
            node.id,
            label=html.escape(node.label),
            title=html.escape(node.title or node.label),
            color=TYPE_COLOURS.get(node.type, TYPE_COLOURS["Entity"]),
            size=22 if node.id == focus else 14,
            borderWidth=3 if node.id == focus else 1,
        )
    for edge in edges:
        net.add_edge(edge.source, edge.target, label=html.escape(edge.label), title=html.escape(edge.title))
    net.set_options(
        '{"physics": {"stabilization": {"iterations": 200}}, "edges": {"font": {"size": 9}, "arrows": {"to": true}}}'
    )
    return _CDN_TAGS.sub("", net.generate_html())


# Streamlit's markdown badge colours closest to TYPE_COLOURS.
LEGEND_COLOURS = {
    "Disease": "red",
    "DiseaseClass": "orange",
    "Phenotype": "blue",
    "Gene": "green",
    "Inheritance": "violet",
    "Onset": "gray",
    "Entity": "gray",
}


def legend_markdown(types: Sequence[str]) -> str:
    """A one-line colour legend for the entity types present."""
    present = [t for t in TYPE_COLOURS if t in set(types)]
    return " ".join(f":{LEGEND_COLOURS[t]}-badge[{t}]" for t in present)
