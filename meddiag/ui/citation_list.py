"""Numbered citations, each opening its passage or triple with provenance."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from meddiag.schema import Citation


def citation_label(c: Citation) -> str:
    if c.kind == "passage":
        return f"[{c.n}] passage {c.doc_id or '(no document id)'} — {c.channel} hop {c.hop}"
    return f"[{c.n}] triple ({c.subject}, {c.predicate}, {c.object}) — {c.channel} hop {c.hop}"


def provenance_text(provenance: Sequence[str]) -> str:
    # PMIDs stay text: the app runs offline and must not imply links it cannot open.
    return ", ".join(provenance) if provenance else "no provenance recorded"


def render_citation(c: Citation) -> None:
    with st.expander(citation_label(c)):
        if c.kind == "passage":
            st.markdown(f"**Document** `{c.doc_id}`")
            st.text(c.text)
        else:
            st.markdown(f"**{c.subject}** — *{c.predicate}* — **{c.object}**")
            if c.text:
                st.text(c.text)
        st.caption(f"Provenance: {provenance_text(c.provenance)}")


def render_citations(citations: Sequence[Citation]) -> None:
    if not citations:
        st.caption("No citations.")
        return
    for c in citations:
        render_citation(c)
