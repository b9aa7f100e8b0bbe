"""One row per hop: the semantic channel's card beside the relational channel's card."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest

import streamlit as st

from meddiag.schema import AskResult, RelationalHop, SemanticHop, TextEvidence
from meddiag.ui.citation_list import provenance_text
from meddiag.ui.subgraph import graph_html, legend_markdown, triples_to_graph
from meddiag.ui.triples_table import render_triples


def _logic(steps: Sequence[str]) -> None:
    if steps:
        st.markdown("**Logic draft**")
        st.markdown("\n".join(f"{i}. {s}" for i, s in enumerate(steps, start=1)))


def _passage(p: TextEvidence) -> None:
    title = p.title or p.doc_id or p.ref_id
    score = f" · score {p.score:.2f}" if p.score is not None else ""
    with st.expander(f"Passage {p.ref_id}: {title}{score}"):
        st.caption(f"{p.doc_id} · {p.source}")
        st.text(p.text)
        st.caption(f"Provenance: {provenance_text(p.provenance)}")


def render_semantic_hop(hop: SemanticHop) -> None:
    tag = " · expansion" if hop.expansion else ""
    st.markdown(f"##### Semantic · hop {hop.index}{tag}")
    st.markdown(f"**Sub-query** {hop.sub_query}")
    if hop.grounded_query != hop.sub_query:
        st.markdown(f"**Grounded query** {hop.grounded_query}")
    if hop.unresolved:
        st.warning(f"Unresolved references: {', '.join(hop.unresolved)}")
    if hop.summary:
        st.markdown(f"**Summary** {hop.summary}")
    st.markdown(f"**Sub-answer** {hop.sub_answer or '—'}")
    _logic(hop.logic)
    st.caption(f"{len(hop.passages)} passages kept")
    for p in hop.passages:
        _passage(p)


def render_relational_hop(hop: RelationalHop, *, key: str) -> None:
    tag = " · expansion" if hop.expansion else ""
    st.markdown(f"##### Relational · hop {hop.index}{tag}")
    queries = ", ".join(str(q) for q in hop.resolved_queries or hop.triple_queries)
    st.markdown(f"**Triple queries** `{queries}`")
    if hop.unresolved:
        st.warning(f"Unresolved placeholders: {', '.join(hop.unresolved)}")
    render_triples(hop.triples, key=f"{key}.triples")
    if hop.dropped:
        st.caption(f"{hop.dropped} spurious or low-confidence triples dropped")
    if hop.summary:
        st.markdown(f"**Summary** {hop.summary}")
    st.markdown(f"**Sub-answer** {hop.sub_answer or '—'}")
    _logic(hop.logic)
    if hop.triples:
        nodes, edges = triples_to_graph(hop.triples)
        st.markdown(legend_markdown([n.type for n in nodes]))
        st.iframe(graph_html(nodes, edges), height=400)


def render_hop_rows(result: AskResult, *, key: str) -> None:
    """Pair the channels' hops by position; a channel with fewer hops leaves its column empty."""
    pairs = list(zip_longest(result.semantic.hops, result.relational.hops))
    if not pairs:
        st.info("No hops ran (check the channel selection).")
    for i, (sem, rel) in enumerate(pairs, start=1):
        with st.container(border=True):
            left, right = st.columns(2, gap="medium")
            with left:
                if sem is not None:
                    render_semantic_hop(sem)
                else:
                    st.caption(f"No semantic hop {i}.")
            with right:
                if rel is not None:
                    render_relational_hop(rel, key=f"{key}.hop{i}")
                else:
                    st.caption(f"No relational hop {i}.")
    for label, verification in (
        ("Semantic", result.semantic.verification),
        ("Relational", result.relational.verification),
    ):
        if verification is not None:
            verdict = "sufficient" if verification.sufficient else "insufficient"
            st.caption(f"{label} verification: evidence {verdict} — {verification.reason}")
