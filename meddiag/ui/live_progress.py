"""Ask a question with live node events in an `st.status` box."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from meddiag.errors import MedDiagError
from meddiag.schema import AskResult, NodeEvent
from meddiag.ui.background import run_with_updates
from meddiag.ui.timeline import event_label


def ask_with_progress(ask: Callable[[Callable[[NodeEvent], None]], AskResult]) -> AskResult | None:
    """Run `ask(on_event)`, streaming each finished node; None (and a message) on failure."""
    with st.status("Running the diagnostic graph…", expanded=True) as box:

        def show(event: NodeEvent) -> None:
            mark = {"ok": "✓", "fallback": "↺", "error": "✗"}.get(event.status, "·")
            box.write(f"{mark} {event.channel} · {event_label(event)} — {event.end - event.start:.2f} s")
            box.update(label=f"Running the diagnostic graph… {event.channel}: {event_label(event)}")

        try:
            result = run_with_updates(ask, show)
        except MedDiagError as err:
            box.update(label="The question could not be answered.", state="error")
            st.error(str(err))
            return None
        box.update(label="Answer ready.", state="complete", expanded=False)
    return result
