"""Evaluation & error inspection: run a benchmark on phenopackets, chart it, inspect and tag cases."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import streamlit as st

from meddiag.errors import MedDiagError
from meddiag.eval.runner import Protocol_
from meddiag.schema import BACKENDS
from meddiag.ui.annotations import ErrorTagStore, default_tag_file
from meddiag.ui.background import run_with_updates
from meddiag.ui.eval_view import (
    render_cases_table,
    render_charts,
    render_drilldown,
    render_tag_summary,
    run_from_report,
)
from meddiag.ui.navigation import require_navigation
from meddiag.ui.resources import get_service, session_defaults
from meddiag.ui.state import EVAL_REPORT

require_navigation(__file__)

service = get_service()
defaults = session_defaults()
store = ErrorTagStore(default_tag_file(service.settings.home))
st.title("Evaluation & error inspection")

upload = st.file_uploader("Phenopacket file (.json or .jsonl)", type=["json", "jsonl"], key="eval.upload")
path_text = st.text_input("…or a path on this machine", key="eval.path", placeholder="phenopackets-dev.jsonl")
c1, c2, c3, c4, c5 = st.columns(5)
limit = c1.number_input("Sample size", min_value=1, max_value=5000, value=20, key="eval.limit")
seed = c2.number_input("Seed", min_value=0, value=0, key="eval.seed")
protocol = c3.selectbox("Protocol", get_args(Protocol_), key="eval.protocol")
backend = c4.selectbox("Backend", BACKENDS, index=BACKENDS.index(defaults.backend), key="eval.backend")
channels = c5.selectbox("Channels", ["both", "semantic", "relational"], key="eval.channels")
baseline = st.checkbox("Also run the phenotype-similarity baseline", key="eval.baseline")
structured_input = st.checkbox(
    "Ask through the patient form's fields instead of the written vignette",
    key="eval.structured",
    help="Sends each case's HPO terms, excluded findings, age and sex as typed fields, so "
    "errors from reading the vignette's wording drop out of the comparison.",
)
name_genes = st.checkbox(
    "Name each case's variant genes in its question",
    key="eval.genes",
    help="A separate scenario: a clinician who already has a molecular finding. The "
    "phenotype-only benchmark never names the gene.",
)

if st.button("Run evaluation", type="primary", key="eval.run"):
    if upload is None and not path_text.strip():
        st.error("Please upload a phenopacket file or type its path.")
    else:
        if upload is not None:
            target = service.settings.home / "uploads" / Path(upload.name).name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(upload.getvalue())
        else:
            target = path_text.strip()
        bar = st.progress(0.0, text="Loading cases…")
        try:
            report = run_with_updates(
                lambda emit: service.evaluate(
                    target,
                    limit=int(limit),
                    seed=int(seed),
                    protocol=protocol,
                    backend=backend,
                    channels=channels,
                    baseline=baseline,
                    input_form="structured" if structured_input else "text",
                    genes=name_genes,
                    progress=lambda s, f: emit((s, f)),
                ),
                lambda update: bar.progress(min(max(update[1], 0.0), 1.0), text=update[0]),
            )
        except MedDiagError as err:
            st.error(str(err))
        else:
            runs = st.session_state.setdefault(EVAL_REPORT, [])
            runs.append(run_from_report(report, backend=backend, channels=channels))
        bar.empty()

runs = st.session_state.get(EVAL_REPORT, [])
if runs:
    latest = runs[-1]
    st.subheader(f"Latest run: {latest.label} · {len(latest.cases)} cases")
    st.markdown(latest.markdown)
    with st.expander("Summary (JSON)"):
        st.json(latest.summary)
    render_charts(runs)
    shown = render_cases_table(latest)
    render_drilldown(latest, store, shown)

st.subheader("Error tags")
render_tag_summary(store)
