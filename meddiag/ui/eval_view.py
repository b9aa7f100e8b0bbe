"""The Evaluation page's pieces: run history, charts, case table, drill-down and error tags."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from meddiag.errors import MedDiagError
from meddiag.schema import AskResult
from meddiag.ui.annotations import ERROR_TYPES, ErrorTag, ErrorTagStore
from meddiag.ui.case_view import render_case
from meddiag.ui.eval_charts import group_bars, latency_histogram, rank_histogram, top_k_curve

if TYPE_CHECKING:
    from meddiag.eval.runner import EvalReport


@dataclass(frozen=True)
class CaseRow:
    """One evaluated case as the page shows it."""

    case_id: str
    gold: list[str]
    gold_rank: int | None
    top10: list[str]
    seconds: float
    result: AskResult | None
    gold_labels: tuple[str, ...] = ()
    in_kb: bool = True
    baseline_rank: int | None = None
    error: str = ""
    gold_facts: int | None = None
    gold_facts_own: int | None = None  # resting only on the case's own publications
    gold_facts_thinned: int | None = None  # visible, but their frequency drew on those publications

    @property
    def own_share(self) -> float | None:
        """Share of the gold disease's facts that only the case's own publications support."""
        if not self.gold_facts or self.gold_facts_own is None:
            return None
        return self.gold_facts_own / self.gold_facts

    @property
    def thinned_share(self) -> float | None:
        """Share of its facts that the case's publications support only together with other
        sources: visible under leave-publication-out, but without their pooled frequency."""
        if not self.gold_facts or self.gold_facts_thinned is None:
            return None
        return self.gold_facts_thinned / self.gold_facts


@dataclass(frozen=True)
class EvalRun:
    """One finished evaluation, labelled by what was varied (backend, channels)."""

    label: str
    backend: str
    channels: str
    summary: dict
    cases: list[CaseRow]
    markdown: str = ""

    @property
    def ranks(self) -> list[int | None]:
        return [c.gold_rank for c in self.cases]


def share_within(ranks: Sequence[int | None], k: int) -> float:
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


# What the case table and the drill-down can be narrowed to, for inspecting errors.
CASE_FILTERS: dict[str, Callable[[CaseRow], bool]] = {
    "all cases": lambda c: True,
    "not ranked first": lambda c: c.gold_rank != 1,
    "not in the top 10": lambda c: c.gold_rank is None or c.gold_rank > 10,
    "with an error": lambda c: bool(c.error),
}


def _top3(case: CaseRow) -> str:
    """The three best diseases, by name where the stored answer has it (as a clinician says them)."""
    names = {d.id: d.name for d in case.result.synthesis.differential if d.name} if case.result else {}
    return "; ".join(names.get(d, d) for d in case.top10[:3])


# The case table's column for facts a left-out paper thins rather than hides.
THIN_COLUMN = "Gold facts also from own paper (%)"


def cases_frame(cases: Sequence[CaseRow]) -> pd.DataFrame:
    rows = [
        {
            "Case": c.case_id,
            "Gold": ", ".join(c.gold_labels or c.gold),
            "Gold rank": c.gold_rank,
            "Baseline rank": c.baseline_rank,
            "Gold in KB": c.in_kb,
            "Gold facts from own paper (%)": None if c.own_share is None else round(100 * c.own_share),
            THIN_COLUMN: None if c.thinned_share is None else round(100 * c.thinned_share),
            "Top 3": _top3(c),
            "Seconds": round(c.seconds, 2),
            "Error": c.error,
        }
        for c in cases
    ]
    columns = [
        "Case",
        "Gold",
        "Gold rank",
        "Baseline rank",
        "Gold in KB",
        "Gold facts from own paper (%)",
        THIN_COLUMN,
        "Top 3",
        "Seconds",
        "Error",
    ]
    return pd.DataFrame(rows, columns=columns)


def render_cases_table(run: EvalRun) -> list[CaseRow]:
    """The case table, narrowed by the chosen filter; returns the cases it shows."""
    choice = (
        st.segmented_control("Show", list(CASE_FILTERS), default="all cases", key="eval.case_filter")
        or "all cases"
    )
    shown = [c for c in run.cases if CASE_FILTERS[choice](c)]
    st.dataframe(
        cases_frame(shown),
        hide_index=True,
        key="eval.cases",
        column_config={
            "Gold facts from own paper (%)": st.column_config.NumberColumn(
                help="Share of the diagnosis' phenotype facts that only this case's own publications "
                "support; leave-publication-out hides them while the case is answered. At 100 % only "
                "the disease's phenotypic series and its text are left to find it by.",
            ),
            THIN_COLUMN: st.column_config.NumberColumn(
                help="Share of the diagnosis' phenotype facts that this case's own publications "
                "support together with other sources; leave-publication-out keeps them, but without "
                "the frequency those publications were pooled into.",
            ),
        },
    )
    return shown


def render_charts(runs: Sequence[EvalRun]) -> None:
    latest = runs[-1]
    left, right = st.columns(2)
    left.plotly_chart(top_k_curve({r.label: r.ranks for r in runs}), key="eval.chart.topk")
    right.plotly_chart(rank_histogram(latest.ranks), key="eval.chart.ranks")
    left, right = st.columns(2)
    by_channels = {r.channels: r for r in runs if r.backend == latest.backend}
    left.plotly_chart(
        group_bars(
            {k: share_within(r.ranks, 1) for k, r in by_channels.items()},
            {k: share_within(r.ranks, 10) for k, r in by_channels.items()},
            f"Per channel setting ({latest.backend})",
        ),
        key="eval.chart.channels",
    )
    by_backend = {r.backend: r for r in runs if r.channels == latest.channels}
    right.plotly_chart(
        group_bars(
            {k: share_within(r.ranks, 1) for k, r in by_backend.items()},
            {k: share_within(r.ranks, 10) for k, r in by_backend.items()},
            f"Per backend (channels: {latest.channels})",
        ),
        key="eval.chart.backends",
    )
    st.plotly_chart(latency_histogram([c.seconds for c in latest.cases]), key="eval.chart.latency")


def render_tagging(store: ErrorTagStore, case: CaseRow, backend: str) -> None:
    with st.form("eval.tag_form", clear_on_submit=True):
        error_type = st.selectbox("Error type", ERROR_TYPES, key="eval.tag_type")
        comment = st.text_area("Comment", key="eval.tag_comment")
        if st.form_submit_button("Save tag"):
            store.add(
                ErrorTag(
                    case_id=case.case_id,
                    error_type=error_type,
                    comment=comment,
                    backend=backend,
                    gold=case.gold,
                    gold_rank=case.gold_rank,
                )
            )
            st.success(f"Tagged {case.case_id} as “{error_type}”.")
    try:
        earlier = store.for_case(case.case_id)
    except MedDiagError as err:
        st.error(str(err))
        return
    for tag in earlier:
        st.caption(f"{tag.created:%Y-%m-%d %H:%M} · {tag.error_type} · {tag.comment}")


def render_tag_summary(store: ErrorTagStore) -> None:
    try:
        summary = store.summary()
    except MedDiagError as err:
        st.error(str(err))
        return
    frame = pd.DataFrame({"Error type": list(summary), "Cases": list(summary.values())})
    st.dataframe(frame, hide_index=True, key="eval.tag_summary")
    st.caption(f"Saved in {Path(store.path).name} under the MedDiag home folder.")


def render_drilldown(run: EvalRun, store: ErrorTagStore, cases: Sequence[CaseRow] | None = None) -> None:
    """Every hop of one case; `cases` (default: all of the run's) are the ones to pick from."""
    cases = run.cases if cases is None else cases
    ids = [c.case_id for c in cases]
    if not ids:
        st.info("No case to inspect." if run.cases else "No case was evaluated.")
        return
    picked = st.selectbox("Inspect a case", ids, key="eval.case")
    case = cases[ids.index(picked)]
    gold = ", ".join(
        f"{label} ({i})" for label, i in zip(case.gold_labels, case.gold, strict=False)
    ) or ", ".join(case.gold)
    st.markdown(f"**Gold:** {gold} · **rank:** {case.gold_rank or 'not ranked'}")
    if case.error:
        st.error(case.error)
    if not case.in_kb:
        st.caption("The correct diagnosis is not in the knowledge base.")
    elif caption := gold_facts_caption(case, run.summary.get("protocol", "leave-publication-out")):
        st.caption(caption)
    render_tagging(store, case, run.backend)
    if case.result is None:
        st.info("This case has no stored answer to inspect.")
    else:
        render_case(case.result, key="eval.case")


def gold_facts_caption(case: CaseRow, protocol: str) -> str:
    """How much of the diagnosis' knowledge the case's own publications carry, in words;
    "" when they carry none of it."""
    if not case.gold_facts:
        return ""
    left_out = protocol != "full"
    parts = []
    if case.gold_facts_own:
        hidden = " (hidden while this case was answered)" if left_out else ""
        parts.append(
            f"{case.gold_facts_own} of the diagnosis' {case.gold_facts} phenotype facts rest only on "
            f"this case's own publications{hidden}."
        )
    if case.gold_facts_thinned:
        how = (
            "were seen without the frequency those publications were pooled into"
            if left_out
            else "have a frequency pooled over all of them"
        )
        parts.append(f"{case.gold_facts_thinned} more rest on them and on other sources, and {how}.")
    return " ".join(parts)


def run_from_report(report: EvalReport, *, backend: str, channels: str) -> EvalRun:
    """The page's view of a runner report."""
    cases = [
        CaseRow(
            case_id=rec.case_id,
            gold=list(rec.gold),
            gold_rank=rec.rank,
            top10=list(rec.top10),
            seconds=rec.seconds,
            result=rec.result,
            gold_labels=tuple(rec.gold_labels),
            in_kb=rec.in_kb,
            baseline_rank=rec.baseline_rank,
            error=rec.error or "",
            gold_facts=rec.gold_facts,
            gold_facts_own=rec.gold_facts_own,
            gold_facts_thinned=rec.gold_facts_thinned,
        )
        for rec in report.records
    ]
    label = f"{backend} · {channels}"
    if report.summary.get("input") == "structured":
        label += " · patient form"  # runs that differ only in how cases were asked stay apart
    if report.summary.get("genes"):
        label += " · genes named"  # a different scenario, never to be mistaken for the benchmark
    return EvalRun(label, backend, channels, dict(report.summary), cases, report.markdown)
