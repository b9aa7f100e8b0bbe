"""A whole answered case: hop rows, synthesis with citations, timeline and export.

Written once for the Ask page and reused by the Evaluation page's drill-down.
"""

from __future__ import annotations

import re

import streamlit as st

from meddiag.engine.inputs import asked_about, lab_value_lines, onset_line
from meddiag.export import ask_result_json, ask_result_markdown
from meddiag.reasoning.fallback import summarise_fallbacks
from meddiag.schema import AskResult
from meddiag.ui.citation_list import render_citations
from meddiag.ui.differential_table import render_agreement, render_differential
from meddiag.ui.hop_card import render_hop_rows
from meddiag.ui.timeline import overlap_seconds, timeline_figure


def render_synthesis(result: AskResult, *, key: str) -> None:
    s = result.synthesis
    st.subheader("Synthesis")
    render_agreement(s.agreement)
    if s.differential or result.parsed.asks_for_diagnosis:  # a features question has no differential
        render_differential(s.differential, key=f"{key}.differential", channel_scores=s.channel_scores)
    st.markdown(s.answer)
    st.markdown("**Citations**")
    render_citations(s.citations)


def render_understanding(result: AskResult) -> None:
    p = result.parsed

    def listed(excluded: bool) -> str:
        return ", ".join(f"{f.label} ({f.hpo_id})" for f in p.findings if f.excluded == excluded)

    present, absent = listed(False), listed(True)
    about = asked_about(p)
    if about:  # a question about a disease or gene, not a patient
        st.caption(f"Understood as a question about {about}.")
    if present or not about:
        st.caption(f"Understood findings: {present or 'none'}")
    if absent:  # published cases often list dozens of features checked and absent
        st.caption(f"Understood as absent: {absent}")
    if (onset := onset_line(p)) is not None:
        st.caption(f"Onset: {onset} (diseases whose curated onset lies far from it are lowered)")
    if p.lab_values:
        st.caption("Laboratory values read: " + "; ".join(lab_value_lines(p)))
    if p.variant_genes:
        st.caption(
            f"Genes with a reported variant: {', '.join(p.variant_genes)} "
            "(the diseases linked to them are ranked first)"
        )
    for warning in p.warnings:
        st.warning(warning)
    if result.reasoner.fallbacks:
        st.warning(
            "The language model failed and the offline reasoner answered instead: "
            + summarise_fallbacks(result.reasoner.fallbacks)
        )


def render_timeline(result: AskResult, *, key: str) -> None:
    if not result.events:
        return
    st.subheader("Timeline")
    st.plotly_chart(timeline_figure(result.events), key=f"{key}.timeline")
    st.caption(f"The two channels ran side by side for {overlap_seconds(result.events):.2f} s.")


def case_file_stem(result: AskResult) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", result.question.lower()).strip("-")[:40] or "case"
    return f"meddiag-{result.backend}-{words}"


def render_export(result: AskResult, *, key: str) -> None:
    stem = case_file_stem(result)
    left, right = st.columns(2)
    left.download_button(
        "Export case (JSON)", ask_result_json(result), f"{stem}.json", "application/json", key=f"{key}.json"
    )
    right.download_button(
        "Export case (Markdown)", ask_result_markdown(result), f"{stem}.md", "text/markdown", key=f"{key}.md"
    )


def render_case(result: AskResult, *, key: str) -> None:
    st.caption(
        f"Backend {result.backend} · channels {result.channels} · reasoner {result.reasoner.name}"
        + (f" · sources left out: {', '.join(result.excluded_sources)}" if result.excluded_sources else "")
    )
    render_understanding(result)
    st.subheader("Hops")
    render_hop_rows(result, key=key)
    render_synthesis(result, key=key)
    render_timeline(result, key=key)
    render_export(result, key=key)
