"""Plotly charts of an evaluation run: top-k curve, rank histogram, group bars, latency."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

MISS = "not ranked"


def top_k_curve(runs: Mapping[str, Sequence[int | None]], k_max: int = 10) -> go.Figure:
    """Share of cases whose gold diagnosis is within the top k, one line per run."""
    fig = go.Figure()
    ks = list(range(1, k_max + 1))
    for label, ranks in runs.items():
        n = len(ranks) or 1
        shares = [sum(1 for r in ranks if r is not None and r <= k) / n for k in ks]
        fig.add_trace(go.Scatter(x=ks, y=shares, mode="lines+markers", name=label))
    fig.update_layout(
        title="Top-k accuracy", xaxis_title="k", yaxis_title="share of cases", yaxis_range=[0, 1], height=320
    )
    return fig


def rank_histogram(ranks: Sequence[int | None], k_max: int = 10) -> go.Figure:
    """Gold ranks 1..k_max, then one bar for worse ranks and one for misses."""
    labels = [str(k) for k in range(1, k_max + 1)] + [f">{k_max}", MISS]
    counts = dict.fromkeys(labels, 0)
    for r in ranks:
        key = MISS if r is None else (str(r) if r <= k_max else f">{k_max}")
        counts[key] += 1
    fig = go.Figure(go.Bar(x=labels, y=list(counts.values()), marker_color="#1f77b4"))
    fig.update_layout(
        title="Rank of the correct diagnosis", xaxis_title="rank", yaxis_title="cases", height=320
    )
    return fig


def group_bars(top1: Mapping[str, float], top10: Mapping[str, float], title: str) -> go.Figure:
    """Top-1 and top-10 per group (channel setting or backend)."""
    groups = list(top1)
    fig = go.Figure(
        [
            go.Bar(name="top-1", x=groups, y=[top1[g] for g in groups]),
            go.Bar(name="top-10", x=groups, y=[top10.get(g, 0.0) for g in groups]),
        ]
    )
    fig.update_layout(
        title=title, barmode="group", yaxis_range=[0, 1], yaxis_title="share of cases", height=320
    )
    return fig


def latency_histogram(seconds: Sequence[float]) -> go.Figure:
    fig = go.Figure(go.Histogram(x=list(seconds), nbinsx=20, marker_color="#d62728"))
    fig.update_layout(title="Latency per case", xaxis_title="seconds", yaxis_title="cases", height=320)
    return fig
