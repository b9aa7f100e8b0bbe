"""Knowledge graph explorer: find an entity, draw its neighbourhood, walk to a neighbour."""

from __future__ import annotations

import streamlit as st

from meddiag.errors import MedDiagError
from meddiag.ui.navigation import require_navigation
from meddiag.ui.resources import get_service
from meddiag.ui.state import EXPLORER_ENTITY
from meddiag.ui.subgraph import TYPE_COLOURS, graph_html, legend_markdown, neighbourhood_to_graph
from meddiag.ui.triples_table import relations_frame

require_navigation(__file__)

ENTITY_TYPES = ["Disease", "Phenotype", "Gene", "Inheritance", "Onset", "DiseaseClass"]

service = get_service()
st.title("Knowledge graph explorer")

query = st.text_input(
    "Entity name or id", key="explorer.query", placeholder="e.g. Marfan syndrome, HP:0001166, FBN1"
)
try:
    hits = service.search_entities(query, limit=20) if query.strip() else []
except MedDiagError as err:
    st.error(str(err))
    hits = []
if query.strip() and not hits:
    st.info(f"Nothing in the knowledge base matches “{query}”.")
if hits:
    labels = {e.id: f"{e.name} · {e.id} ({e.type})" for e in hits}
    picked = st.selectbox("Matches", list(labels), format_func=labels.__getitem__, key="explorer.match")
    if st.button("Show neighbourhood", key="explorer.show"):
        st.session_state[EXPLORER_ENTITY] = picked

entity_id = st.session_state.get(EXPLORER_ENTITY)
if entity_id:
    c1, c2, c3 = st.columns([1, 1, 3])
    depth = c1.slider("Depth", 1, 3, 1, key="explorer.depth")
    max_nodes = c2.slider("Max nodes", 10, 200, 50, step=10, key="explorer.max_nodes")
    types = c3.multiselect("Entity types", ENTITY_TYPES, key="explorer.types", placeholder="all types")
    try:
        entities, relations = service.neighbourhood(
            entity_id, depth=depth, max_nodes=max_nodes, types=types or None
        )
    except MedDiagError as err:
        st.error(str(err))
        st.stop()
    names = {e.id: e.name for e in entities}
    focus = next((e for e in entities if e.id == entity_id), None)
    st.subheader(f"{names.get(entity_id, entity_id)} · {entity_id}")
    if focus is not None and focus.description:
        st.caption(focus.description)
    st.caption(f"{len(entities)} entities · {len(relations)} relations")
    nodes, edges = neighbourhood_to_graph(entities, relations)
    st.markdown(legend_markdown([n.type for n in nodes] or list(TYPE_COLOURS)))
    st.iframe(graph_html(nodes, edges, height_px=520, focus=entity_id), height=540)
    st.dataframe(relations_frame(relations, names), hide_index=True, key="explorer.relations")

    neighbours = {e.id: f"{e.name} · {e.id} ({e.type})" for e in entities if e.id != entity_id}
    if neighbours:
        step = st.selectbox(
            "Move to a neighbour", list(neighbours), format_func=neighbours.__getitem__, key="explorer.next"
        )
        if st.button("Go", key="explorer.go"):
            st.session_state[EXPLORER_ENTITY] = step
            st.rerun()
