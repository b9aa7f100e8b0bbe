"""A plotly timeline of engine node events: one lane per channel, so overlap is visible."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from meddiag.schema import NodeEvent

LANES = ("parent", "semantic", "relational")
LANE_COLOURS = {"parent": "#7f7f7f", "semantic": "#1f77b4", "relational": "#d62728"}
STATUS_PATTERN = {"ok": "", "fallback": "/", "error": "x"}


def event_label(e: NodeEvent) -> str:
    return e.node if e.hop is None else f"{e.node} (hop {e.hop})"


def timeline_figure(events: Sequence[NodeEvent]) -> go.Figure:
    """Horizontal bars from each node's start to end, one trace per channel."""
    fig = go.Figure()
    for lane in LANES:
        lane_events = [e for e in events if e.channel == lane]
        if not lane_events:
            continue
        fig.add_trace(
            go.Bar(
                name=lane,
                orientation="h",
                y=[lane] * len(lane_events),
                base=[e.start for e in lane_events],
                x=[max(e.end - e.start, 1e-4) for e in lane_events],
                marker={
                    "color": LANE_COLOURS[lane],
                    "pattern": {"shape": [STATUS_PATTERN.get(e.status, "") for e in lane_events]},
                    "line": {"color": "white", "width": 1},
                },
                customdata=[[event_label(e), e.status, e.payload[:120]] for e in lane_events],
                hovertemplate="%{customdata[0]}<br>%{base:.3f}s → %{x:.3f}s long"
                "<br>%{customdata[1]}<br>%{customdata[2]}<extra>%{fullData.name}</extra>",
            )
        )
    fig.update_layout(
        barmode="overlay",
        height=240,
        margin={"l": 10, "r": 10, "t": 30, "b": 30},
        xaxis_title="seconds since the question arrived",
        yaxis={"categoryorder": "array", "categoryarray": list(reversed(LANES))},
        legend={"orientation": "h", "y": 1.15},
    )
    return fig


def overlap_seconds(events: Sequence[NodeEvent]) -> float:
    """How long the semantic and relational channels ran at the same time."""

    def span(channel: str) -> tuple[float, float] | None:
        lane = [e for e in events if e.channel == channel]
        return (min(e.start for e in lane), max(e.end for e in lane)) if lane else None

    sem, rel = span("semantic"), span("relational")
    if sem is None or rel is None:
        return 0.0
    return max(0.0, min(sem[1], rel[1]) - max(sem[0], rel[0]))
