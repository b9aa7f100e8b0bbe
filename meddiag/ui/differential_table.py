"""The ranked differential diagnosis as a table with score bars."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from meddiag.diagnosis.ranking import DEFAULT_PARAMS
from meddiag.schema import NEAR_TIE, Agreement, ChannelName, DifferentialEntry, near_ties, shared_places

AGREEMENT_COLOURS = {"agree": "green", "partial": "orange", "disagree": "red", "single-channel": "gray"}


ChannelScores = Mapping[ChannelName, Mapping[str, float]]


def _shown(score: float | None) -> float | None:
    """A channel score as the table shows it (the synthesis records them unrounded)."""
    return None if score is None else round(score, 4)


# How a row's place comes from its MONDO series (`schema.SeriesRole`), as the table says it.
_SERIES_NOTES = {
    "scored_by": "no curated feature of its own visible: scored as its series member {member}",
    "shrunk_toward": "its own curated features match no finding: placed through its series member {member}",
    None: "scored through its series: {member}",  # rows recorded before the role was kept
}


def series_note(entry: DifferentialEntry) -> str:
    """What the row owes to its disease series, or "" when nothing."""
    return _SERIES_NOTES[entry.series_role].format(member=entry.series_member) if entry.series else ""


def differential_frame(
    entries: Sequence[DifferentialEntry], channel_scores: ChannelScores | None = None
) -> pd.DataFrame:
    """One row per candidate; with the synthesis' `channel_scores`, each channel's own score
    beside the fused one, so a row's place can be traced to the graph or the text."""
    scores = channel_scores or {}
    graph, text = scores.get("relational", {}), scores.get("semantic", {})
    rows = [
        {
            "Rank": rank,
            "Disease": e.name,
            "ID": e.id,
            "Other ids": ", ".join(e.aliases),
            "Score": e.score,
            "Graph score": _shown(graph.get(e.id)),
            "Text score": _shown(text.get(e.id)),
            "Findings for": "; ".join(
                [
                    *(f"named gene {g}" for g in e.genes),
                    *e.for_,
                    *([series_note(e)] if e.series else []),
                ]
            ),
            "Findings against": "; ".join(e.against),
            "Channels": ", ".join(e.channels),
            "Citations": " ".join(f"[{n}]" for n in e.citations),
        }
        for rank, e in zip(shared_places(entries), entries, strict=True)
    ]
    columns = [
        "Rank",
        "Disease",
        "ID",
        "Other ids",
        "Score",
        "Findings for",
        "Findings against",
        "Channels",
        "Citations",
    ]
    if scores:
        at = columns.index("Score") + 1
        columns[at:at] = ["Graph score", "Text score"]
    return pd.DataFrame(rows, columns=columns)


def near_tie_note(entries: Sequence[DifferentialEntry]) -> str:
    """A line naming the places whose scores lie within `NEAR_TIE` of the row above (they read
    alike in the table), or "" when there are none."""
    places = shared_places(entries)
    pairs = [f"{places[i - 1]} and {places[i]}" for i, near in enumerate(near_ties(entries)) if near]
    if not pairs:
        return ""
    return (
        f"Places {', '.join(pairs)} differ by less than {NEAR_TIE:g} in score: "
        "practically level on this evidence, so their order is no preference."
    )


def render_differential(
    entries: Sequence[DifferentialEntry], *, key: str, channel_scores: ChannelScores | None = None
) -> None:
    if not entries:
        st.info("No candidate diagnosis was supported by the retrieved evidence.")
        return
    # Scores are ranking scores, not probabilities: they may exceed 1 or fall below 0.
    scores = [e.score for e in entries]
    low, high = min(0.0, *scores), max(1.0, *scores)
    st.dataframe(
        differential_frame(entries, channel_scores),
        hide_index=True,
        key=key,
        column_config={
            "Score": st.column_config.ProgressColumn(
                "Score", min_value=float(low), max_value=float(high), format="%.2f"
            ),
            "Graph score": st.column_config.NumberColumn(
                "Graph score",
                format="%.3f",
                help="The knowledge graph's phenotype score, plus "
                f"{DEFAULT_PARAMS.gene_weight:g} for a disease of a gene named in the question "
                "(blank: not scored)",
            ),
            "Text score": st.column_config.NumberColumn(
                "Text score",
                format="%.3f",
                help="Share of the findings the passages state (blank: not scored)",
            ),
            "Other ids": st.column_config.TextColumn(
                "Other ids",
                help="The disease's other catalogue entries (Orphanet, MONDO, a second OMIM number) "
                "whose facts this row pools",
            ),
            "Findings for": st.column_config.TextColumn(width="large"),
            "Findings against": st.column_config.TextColumn(width="medium"),
            "Rank": st.column_config.NumberColumn(
                "Rank", help="Rows with exactly the same score share a place, listed by catalogue id"
            ),
        },
    )
    if note := near_tie_note(entries):
        st.caption(note)


def render_agreement(agreement: Agreement) -> None:
    st.badge(
        f"Channels: {agreement.status}",
        color=AGREEMENT_COLOURS.get(agreement.status, "gray"),  # type: ignore[arg-type]
        help=agreement.detail,
    )
    st.caption(agreement.detail)
