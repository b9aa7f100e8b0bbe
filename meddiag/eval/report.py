"""The evaluation summary (the `meddiag eval --json` keys) and its Markdown report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from meddiag.eval.metrics import (
    Accuracy,
    PublicationFigures,
    Report,
    accuracy,
    publication_figures,
    rank_ties_against,
)
from meddiag.eval.own_facts import OWN_SHARE_GROUPS, own_share_group
from meddiag.schema import NEAR_TIE, opens_with_near_tie

if TYPE_CHECKING:
    from meddiag.eval.runner import CaseRecord, EvalOptions


def _flat(acc: Accuracy, suffix: str = "") -> dict[str, float]:
    return {
        f"top1{suffix}": round(acc.top.get(1, 0.0), 4),
        f"top3{suffix}": round(acc.top.get(3, 0.0), 4),
        f"top10{suffix}": round(acc.top.get(10, 0.0), 4),
        f"mrr{suffix}": round(acc.mrr, 4),
    }


def _metric_keys(rep: Report) -> dict[str, Any]:
    return {**_flat(rep.all_cases), **_flat(rep.in_kb, "_in_kb")}


def by_own_share(records: Sequence[CaseRecord]) -> dict[str, dict[str, float]]:
    """In-KB accuracy grouped by how much of the gold disease's phenotype facts rest only on
    the case's own publications (`own_facts`); diseases without any such fact are left out.

    Each group also says where its misses put the gold disease — second, third to tenth, or
    further down (not in the differential at all counts as further down) — since a near miss
    and an absent diagnosis call for different fixes."""
    ranks: dict[str, list[int | None]] = {g: [] for g in OWN_SHARE_GROUPS}
    thinned: dict[str, list[int | None]] = {g: [] for g in OWN_SHARE_GROUPS}
    for r in records:
        if r.in_kb and r.gold_facts and r.gold_facts_own is not None:
            group = own_share_group(r.gold_facts_own, r.gold_facts)
            ranks[group].append(r.rank)
            if r.gold_facts_thinned:
                thinned[group].append(r.rank)
    out: dict[str, dict[str, float]] = {}
    for group, rs in ranks.items():
        acc = accuracy(rs)
        out[group] = {
            "n": acc.n,
            "top1": round(acc.top[1], 4),
            "top10": round(acc.top[10], 4),
            "missed_second": sum(1 for r in rs if r == 2),
            "missed_third_to_tenth": sum(1 for r in rs if r is not None and 3 <= r <= 10),
            "missed_below_tenth": sum(1 for r in rs if r is None or r > 10),
            # The cases whose gold also keeps facts that lose the frequency the case's papers
            # were pooled into: the group counts hidden facts only, so these lose more than it says.
            "with_thinned": len(thinned[group]),
            "top1_with_thinned": round(accuracy(thinned[group]).top[1], 4),
        }
    return out


def ties_against(records: Sequence[CaseRecord]) -> dict[str, float]:
    """In-KB accuracy with exact ties counted against the method (`metrics.rank_ties_against`),
    read from each record's differential, and how many ranks that moves (gold listed before a
    row with exactly its score). A record without its answer (an error) keeps its listed rank.

    Also how many answers open with a near tie (`schema.near_ties`: the first two rows within
    `NEAR_TIE`, which the table shows alike) and in how many of those the gold is second: a
    first place won by less than the table shows is a coin toss to a reader."""
    ranks: list[int | None] = []
    tied = near_first = near_gold_second = 0
    for r in records:
        if not r.in_kb:
            continue
        rank = r.rank
        if r.result is not None:
            rows = r.result.synthesis.differential
            if rank is not None:
                rank = rank_ties_against([e.id for e in rows], [e.tied_with for e in rows], set(r.gold))
                tied += rank != r.rank
            if opens_with_near_tie(rows):
                near_first += 1
                near_gold_second += r.rank == 2
        ranks.append(rank)
    return {
        **_flat(accuracy(ranks)),
        "moved_by_ties": tied,
        "near_tie_first": near_first,
        "near_tie_gold_second": near_gold_second,
    }


def by_publication(records: Sequence[CaseRecord], publications: Sequence[str]) -> PublicationFigures:
    """How far another set of published cases could move the in-KB figures, and the figures
    with each publication weighing one (`metrics.publication_figures`): cohorts of one paper
    are not independent patients."""
    if len(records) != len(publications):
        raise ValueError("records and publications must describe the same cases")
    pairs = [(r.rank, p) for r, p in zip(records, publications, strict=True) if r.in_kb]
    figures = publication_figures([rank for rank, _ in pairs], [p for _, p in pairs])
    return figures.model_copy(
        update={
            "ci95": {k: [round(x, 4) for x in span] for k, span in figures.ci95.items()},
            "per_publication": {k: round(v, 4) for k, v in figures.per_publication.items()},
        }
    )


def summary_dict(
    options: EvalOptions,
    metrics: Report,
    baseline: Report | None,
    *,
    cases_per_s: float,
    errors: int,
    knowledge_base: dict[str, str],
    by_own_share: dict[str, dict[str, float]] | None = None,
    publications: PublicationFigures | None = None,
    ties: dict[str, float] | None = None,
    no_publication: int = 0,
    cpu_s_per_case: float | None = None,
) -> dict[str, Any]:
    """`knowledge_base` (profile, embedder, build id) says which index answered: numbers from
    another build or embedder are not comparable. `no_publication` counts the usable cases
    that cite no PubMed id: leaving their publications out hides nothing. `cpu_s_per_case`
    is the processor time of the command and the processes it started, per case answered
    (`cpu.tree_cpu_seconds`; None where it cannot be read)."""
    latency = metrics.latency
    out: dict[str, Any] = {
        "protocol": options.protocol,
        "knowledge_base": knowledge_base,
        "backend": options.backend,
        "channels": options.channels,
        "genes": options.genes,
        "input": options.input,
        "n": metrics.all_cases.n,
        "in_kb": metrics.in_kb.n,
        "skipped": metrics.skipped,
        "errors": errors,
        **_metric_keys(metrics),
        "cases_per_s": round(cases_per_s, 3),
        "p50_s": round(latency.p50, 4) if latency else 0.0,
        "p95_s": round(latency.p95, 4) if latency else 0.0,
        "cpu_s_per_case": None if cpu_s_per_case is None else round(cpu_s_per_case, 4),
        "no_publication": no_publication,
    }
    if publications is not None:
        out["publications_in_kb"] = publications.publications
        out["ci95_in_kb"] = publications.ci95
        out["per_publication_in_kb"] = publications.per_publication
    if ties is not None:
        out["ties_against_in_kb"] = ties
    if baseline is not None:
        out["baseline"] = {"name": "resnik-bma", **_metric_keys(baseline)}
    if by_own_share is not None:
        out["by_own_publication_share"] = by_own_share
    return out


def _kb_phrase(kb: dict[str, str]) -> str:
    return f", knowledge base {kb['profile']} (embedder {kb['embedder']}, build {kb['build_id']})"


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _thinned_cell(group: dict[str, Any]) -> str:
    """The cases of a share group whose gold also loses frequencies; "—" for a summary
    written before they were counted, or a group without any."""
    if not group.get("with_thinned"):
        return "—"
    return f"{group['with_thinned']}, {_pct(group['top1_with_thinned'])}"


def render_markdown(summary: dict[str, Any], records: Sequence[CaseRecord]) -> str:
    rows = [("MedDiag (engine)", summary)]
    if "baseline" in summary:
        rows.append(("Resnik BMA baseline", summary["baseline"]))
    lines = [
        "# MedDiag evaluation",
        "",
        f"Protocol **{summary['protocol']}**, backend **{summary['backend']}**, "
        f"channels **{summary['channels']}**"
        + (", genes named in the questions" if summary.get("genes") else "")
        + (", asked as the patient form's fields" if summary.get("input") == "structured" else "")
        + _kb_phrase(summary["knowledge_base"])
        + f": {summary['n']} usable cases, {summary['in_kb']} with the "
        f"diagnosis in the knowledge base; skipped {summary['skipped'] or 'none'}; errors {summary['errors']}.",
        "",
        "| method | top-1 | top-3 | top-10 | MRR | top-1 in KB | top-3 in KB | top-10 in KB | MRR in KB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in rows:
        lines.append(
            f"| {name} | {_pct(s['top1'])} | {_pct(s['top3'])} | {_pct(s['top10'])} | {s['mrr']:.3f} | "
            f"{_pct(s['top1_in_kb'])} | {_pct(s['top3_in_kb'])} | {_pct(s['top10_in_kb'])} | "
            f"{s['mrr_in_kb']:.3f} |"
        )
    ci = summary.get("ci95_in_kb")
    if ci:
        lines += [
            "",
            f"95 % intervals in KB, resampling publications: top-1 {_pct(ci['top1'][0])} to "
            f"{_pct(ci['top1'][1])}, top-10 {_pct(ci['top10'][0])} to {_pct(ci['top10'][1])}.",
        ]
    per = summary.get("per_publication_in_kb")
    if per:
        lines += [
            "",
            f"In KB with each of the {summary['publications_in_kb']} publications weighing one: "
            f"top-1 {_pct(per['top1'])}, top-10 {_pct(per['top10'])}.",
        ]
    ties = summary.get("ties_against_in_kb")
    if ties:
        lines += [
            "",
            f"In KB with exact ties counted against the method ({ties['moved_by_ties']} cases list the "
            f"gold before a row with exactly its score, by catalogue id): top-1 {_pct(ties['top1'])}, "
            f"top-10 {_pct(ties['top10'])}, MRR {ties['mrr']:.3f}.",
        ]
        near = ties.get("near_tie_first", 0)
        if near:
            opens = "answer opens" if near == 1 else "answers open"
            lines += [
                "",
                f"{near} in-KB {opens} with two rows less than {NEAR_TIE:g} apart in score (shown alike "
                f"in the table); the gold is the second in {ties['near_tie_gold_second']} of them.",
            ]
    unpublished = summary.get("no_publication", 0)
    if unpublished and summary["protocol"] == "leave-publication-out":
        lines += [
            "",
            f"{unpublished} {'case cites' if unpublished == 1 else 'cases cite'} no PubMed id: nothing "
            "could be left out for them, so they were answered with everything visible.",
        ]
    lines += [
        "",
        f"Latency p50 {summary['p50_s']:.3f} s, p95 {summary['p95_s']:.3f} s; "
        f"{summary['cases_per_s']:.2f} cases/s"
        + (
            f"; {cpu:.3f} s of processor time per case (this command, its workers and a local Milvus)."
            if (cpu := summary.get("cpu_s_per_case")) is not None
            else "."
        ),
        "",
    ]
    groups = summary.get("by_own_publication_share")
    if groups:
        lines += [
            "## By how much of the diagnosis rests only on the case's own publications (in KB)",
            "",
            "These facts were hidden while each case was answered."
            if summary["protocol"] == "leave-publication-out"
            else "These facts stayed visible (full protocol): the cases in the lower rows were "
            "answered partly from their own report.",
            "",
            "| gold disease's facts from its own publications | cases | top-1 | top-10 "
            "| misses: gold second / 3rd–10th / further down "
            "| of them, gold also losing a frequency: cases, top-1 |",
            "|---|---|---|---|---|---|",
            *(
                f"| {group} | {g['n']} | {_pct(g['top1'])} | {_pct(g['top10'])} "
                f"| {g.get('missed_second', 0)} / {g.get('missed_third_to_tenth', 0)} / "
                f"{g.get('missed_below_tenth', 0)} | {_thinned_cell(g)} |"
                for group, g in groups.items()
            ),
            "",
            "A fact that rests on the case's publications and on another source "
            + (
                "stayed visible but lost the frequency it was pooled into"
                if summary["protocol"] == "leave-publication-out"
                else "would keep only what the other source supports, without a frequency, under "
                "leave-publication-out"
            )
            + "; the groups count only the facts resting on the case's publications alone.",
            "",
        ]
    lines += [
        "## Most frequent misses (gold not in top 10)",
        "",
    ]
    misses = Counter(
        ", ".join(r.gold_labels or r.gold) for r in records if r.in_kb and (r.rank is None or r.rank > 10)
    )
    lines += [f"- {label}: {n}" for label, n in misses.most_common(10)] or ["- none"]
    return "\n".join(lines) + "\n"
