"""Fan-in: the reasoner writes the differential from both channels; the engine checks its citations.

A citation must point at a passage or a triple that the named hop actually retrieved and
kept; anything else would show a clinician a source the answer did not rest on, so the
check raises `CitationError` instead of passing the answer on.
"""

from __future__ import annotations

from meddiag.engine.events import Step
from meddiag.engine.state import EngineState, RunContext
from meddiag.errors import CitationError
from meddiag.schema import (
    Agreement,
    Citation,
    KGTriple,
    RelationalResult,
    SemanticResult,
    Synthesis,
    TextEvidence,
)


def _passage_matches(c: Citation, p: TextEvidence) -> bool:
    if c.doc_id:
        return c.doc_id in (p.doc_id, p.ref_id)
    snippet = c.text.rstrip("…").strip()
    return bool(snippet) and snippet in p.text


def _triple_matches(c: Citation, t: KGTriple) -> bool:
    return (
        c.subject in (t.subject, t.subject_id)
        and c.predicate == t.predicate
        and c.object in (t.object, t.object_id)
    )


def _resolves(c: Citation, semantic: SemanticResult, relational: RelationalResult) -> bool:
    if c.kind == "passage":
        return any(_passage_matches(c, p) for h in semantic.hops if h.index == c.hop for p in h.passages)
    return any(_triple_matches(c, t) for h in relational.hops if h.index == c.hop for t in h.triples)


def check_citations(synthesis: Synthesis, semantic: SemanticResult, relational: RelationalResult) -> None:
    """Raise `CitationError` unless every citation resolves to evidence of the hop it names."""
    numbers = {c.n for c in synthesis.citations}
    if len(numbers) != len(synthesis.citations):
        raise CitationError("The answer numbers two different citations the same; it cannot be shown as is.")
    for c in synthesis.citations:
        if not _resolves(c, semantic, relational):
            what = (
                (c.doc_id or c.text[:80])
                if c.kind == "passage"
                else f"({c.subject}, {c.predicate}, {c.object})"
            )
            raise CitationError(
                f"Citation [{c.n}] points at {c.kind} {what!r}, which hop {c.hop} of the {c.channel} "
                "channel did not retrieve; the answer was withheld rather than shown with a false source."
            )
    for entry in synthesis.differential:
        missing = sorted(set(entry.citations) - numbers)
        if missing:
            raise CitationError(
                f"The candidate {entry.name} cites [{', '.join(map(str, missing))}], "
                "which is not in the citation list; the answer was withheld."
            )


def single_channel(synthesis: Synthesis, ran: str) -> Synthesis:
    """Say plainly that only one channel ran when the other was switched off."""
    if synthesis.agreement.status == "single-channel":
        return synthesis
    return synthesis.model_copy(
        update={
            "agreement": Agreement(
                status="single-channel",
                detail=f"Only the {ran} channel ran; the other channel was switched off for this question.",
            )
        }
    )


def synthesise(state: EngineState, ctx: RunContext) -> Step:
    semantic = state.get("semantic") or SemanticResult()
    relational = state.get("relational") or RelationalResult()
    synthesis = ctx.reasoner.synthesise(
        state["parsed"],
        semantic,
        relational,
        state.get("semantic_answers") or [],
        state.get("relational_answers") or [],
    )
    check_citations(synthesis, semantic, relational)
    if ctx.channels != "both":
        synthesis = single_channel(synthesis, ctx.channels)
    top = ", ".join(d.name for d in synthesis.differential[:3])
    return Step(
        {"synthesis": synthesis},
        f"{len(synthesis.differential)} candidates ({top}); {len(synthesis.citations)} citations; "
        f"channels {synthesis.agreement.status}",
    )
