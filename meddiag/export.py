"""Render an `AskResult` as Markdown (CLI output, case export) or plain JSON."""

from __future__ import annotations

import json

from meddiag.engine.inputs import lab_value_lines, onset_line
from meddiag.reasoning.fallback import summarise_fallbacks
from meddiag.schema import AskResult, Citation, shared_places

NOTICE = "_Research and education tool — not for clinical decisions._"


def ask_result_json(result: AskResult) -> str:
    """The CLI/export JSON: the wire model with `for` spelled as in the schema alias."""
    return json.dumps(result.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2)


def _citation_line(c: Citation) -> str:
    prov = f" — {', '.join(c.provenance)}" if c.provenance else ""
    if c.kind == "triple":
        return f"[{c.n}] ({c.subject}, {c.predicate}, {c.object}){prov} · {c.channel} hop {c.hop}"
    text = c.text if len(c.text) <= 240 else c.text[:237] + "..."
    return f"[{c.n}] {c.doc_id}: {text}{prov} · {c.channel} hop {c.hop}"


def ask_result_markdown(result: AskResult, *, hops: bool = True) -> str:
    """A readable report of one question: differential, answer, citations and, optionally, every hop."""
    syn = result.synthesis
    lines = [f"# {result.question or 'Structured patient input'}", ""]
    lines.append(
        f"Backend **{result.backend}** · channels **{result.channels}** · reasoner **{result.reasoner.name}**"
        + (
            f" (fell back to offline: {summarise_fallbacks(result.reasoner.fallbacks)})"
            if result.reasoner.fallbacks
            else ""
        )
    )
    if result.excluded_sources:
        lines.append(f"Sources left out: {', '.join(result.excluded_sources)}")
    if (onset := onset_line(result.parsed)) is not None:
        lines.append(f"Onset: {onset}")
    if result.parsed.lab_values:
        lines += ["", f"Laboratory values read: {'; '.join(lab_value_lines(result.parsed))}", ""]
    for warning in result.parsed.warnings:
        lines.append(f"> Note: {warning}")
    if syn.differential or result.parsed.asks_for_diagnosis:
        lines += ["", "## Differential", ""]
    if syn.differential:
        lines.append("| # | Disease | Score | For | Against | Channels | Citations |")
        lines.append("|---|---|---|---|---|---|---|")
        for i, d in zip(shared_places(syn.differential), syn.differential, strict=True):
            lines.append(
                f"| {i} | {d.name} ({', '.join([d.id, *d.aliases])}) | {d.score:.3f} | {'; '.join(d.for_[:5])} | "
                f"{'; '.join(d.against[:5])} | {', '.join(d.channels)} | "
                f"{' '.join(f'[{n}]' for n in d.citations)} |"
            )
    elif result.parsed.asks_for_diagnosis:
        lines.append("No candidate diagnosis.")
    lines += ["", f"**Channel agreement:** {syn.agreement.status} — {syn.agreement.detail}", ""]
    lines += ["## Answer", "", syn.answer, "", "## Citations", ""]
    lines += [_citation_line(c) for c in syn.citations] or ["None."]
    if hops:
        lines += ["", "## Semantic channel", ""]
        for h in result.semantic.hops:
            tag = " (expansion)" if h.expansion else ""
            lines += [f"### Hop {h.index}{tag}: {h.grounded_query}", "", h.sub_answer, ""]
            lines += [f"- {step}" for step in h.logic]
            lines.append("")
        lines += ["## Relational channel", ""]
        for rh in result.relational.hops:
            tag = " (expansion)" if rh.expansion else ""
            patterns = ", ".join(str(p) for p in rh.resolved_queries)
            lines += [f"### Hop {rh.index}{tag}: {patterns}", "", rh.sub_answer, ""]
            lines += [f"- {step}" for step in rh.logic]
            lines.append("")
    lines += ["", NOTICE]
    return "\n".join(lines)
