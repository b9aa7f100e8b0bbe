"""Running one question through every backend and drawing one column per backend."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from meddiag.errors import MedDiagError
from meddiag.schema import BACKENDS, AskResult, ParsedContext, RawContext
from meddiag.service import MedDiagService
from meddiag.ui.differential_table import render_agreement, render_differential


@dataclass(frozen=True)
class BackendRun:
    backend: str
    raw: RawContext | None = None
    parsed: ParsedContext | None = None
    answer: AskResult | None = None
    retrieve_s: float = 0.0
    ask_s: float = 0.0
    error: str = ""


def run_backends(
    service: MedDiagService, question: str, *, max_hops: int, progress: Callable[[str, float], None]
) -> list[BackendRun]:
    """Backends run one after another: timings stay comparable on a small machine."""
    runs: list[BackendRun] = []
    for i, backend in enumerate(BACKENDS):
        progress(backend, i / len(BACKENDS))
        try:
            t0 = time.perf_counter()
            raw, parsed = service.retrieve(question, backend)
            t1 = time.perf_counter()
            answer = service.ask(question, backend=backend, max_hops=max_hops)
            t2 = time.perf_counter()
        except MedDiagError as err:
            runs.append(BackendRun(backend, error=str(err)))
            continue
        runs.append(BackendRun(backend, raw, parsed, answer, t1 - t0, t2 - t1))
    return runs


def evidence_counts(parsed: ParsedContext) -> str:
    kg = parsed.kg
    return (
        f"{len(parsed.text)} passages · {len(kg.entities)} entities · {len(kg.triples)} triples · "
        f"{len(kg.hyperedges)} hyperedges · {len(kg.paths)} paths"
    )


def render_backend_run(run: BackendRun) -> None:
    st.subheader(run.backend)
    if run.error or run.raw is None or run.parsed is None or run.answer is None:
        st.error(run.error or "This backend returned nothing.")
        return
    left, right = st.columns(2)
    left.metric("Retrieval", f"{run.retrieve_s:.2f} s")
    right.metric("Full answer", f"{run.ask_s:.2f} s")
    st.caption(f"Parsed evidence: {evidence_counts(run.parsed)}")
    with st.expander("Raw context"):
        st.code(run.raw.text, language=None)
    render_agreement(run.answer.synthesis.agreement)
    synthesis = run.answer.synthesis
    render_differential(
        synthesis.differential[:10],
        key=f"compare.{run.backend}.differential",
        channel_scores=synthesis.channel_scores,
    )
