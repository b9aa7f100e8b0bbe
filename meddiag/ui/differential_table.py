"""The ranked differential diagnosis as a table with score bars."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from meddiag.schema import Agreement, DifferentialEntry

AGREEMENT_COLOURS = {"agree": "green", "partial": "orange", "disagree": "red", "single-channel": "gray"}


def differential_frame(entries: Sequence[DifferentialEntry]) -> pd.DataFrame:
    rows = [
        {
            "Rank": i,
            "Disease": e.name,
            "ID": e.id,
            "Score": e.score,
            "Findings for": "; ".join(e.for_) or (f"scored as its series: {e.series}" if e.series else ""),
            "Findings against": "; ".join(e.against),
            "Channels": ", ".join(e.channels),
            "Citations": " ".join(f"[{n}]" for n in e.citations),
        }
        for i, e in enumerate(entries, start=1)
    ]
    columns = ["Rank", "Disease", "ID", "Score", "Findings for", "Findings against", "Channels", "Citations"]
    return pd.DataFrame(rows, columns=columns)


def render_differential(entries: Sequence[DifferentialEntry], *, key: str) -> None:
    if not entries:
        st.info("No candidate diagnosis was supported by the retrieved evidence.")
        return
    # Scores are ranking scores, not probabilities: they may exceed 1 or fall below 0.
    scores = [e.score for e in entries]
    low, high = min(0.0, *scores), max(1.0, *scores)
    st.dataframe(
        differential_frame(entries),
        hide_index=True,
        key=key,
        column_config={
            "Score": st.column_config.ProgressColumn(
                "Score", min_value=float(low), max_value=float(high), format="%.2f"
            ),
            "Findings for": st.column_config.TextColumn(width="large"),
            "Findings against": st.column_config.TextColumn(width="medium"),
        },
    )


def render_agreement(agreement: Agreement) -> None:
    st.badge(
        f"Channels: {agreement.status}",
        color=AGREEMENT_COLOURS.get(agreement.status, "gray"),  # type: ignore[arg-type]
        help=agreement.detail,
    )
    st.caption(agreement.detail)
