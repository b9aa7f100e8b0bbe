"""Compare backends: one question through all four retrieval backends, side by side."""

from __future__ import annotations

import streamlit as st

from meddiag.ui.backend_comparison import render_backend_run, run_backends
from meddiag.ui.navigation import require_navigation
from meddiag.ui.resources import get_service, session_defaults
from meddiag.ui.state import COMPARE_RESULTS

require_navigation(__file__)

service = get_service()
st.title("Compare backends")
question = st.text_area(
    "Question", key="compare.question", placeholder="Ask the same question to every backend"
)

if st.button("Compare", type="primary", key="compare.run"):
    if not question.strip():
        st.error("Please type a question to compare.")
    else:
        bar = st.progress(0.0, text="Comparing…")
        st.session_state[COMPARE_RESULTS] = run_backends(
            service,
            question,
            max_hops=session_defaults().max_hops,
            progress=lambda backend, f: bar.progress(f, text=f"{backend}…"),
        )
        bar.empty()

runs = st.session_state.get(COMPARE_RESULTS)
if runs:
    for run, column in zip(runs, st.columns(len(runs)), strict=True):
        with column:
            render_backend_run(run)
