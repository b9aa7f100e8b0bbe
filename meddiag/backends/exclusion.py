"""Leaving sources out at retrieval time, never by rebuilding.

A triple, hyperedge or chunk whose every source is excluded is invisible
(`meddiag.knowledge.model.visible`). Generated text is subtler: a disease profile chunk or
a hyperedge sentence states several facts at once, so it stays visible while one of its
facts rests only on an excluded publication — and would leak that fact through its
wording. Such items are rendered again from the facts still visible (the same layout and
ids as at build time, see `meddiag.knowledge.documents`), or dropped when no fact is left.
A fact that mixes sources keeps only what the others support: its frequency is pooled
over all of them, so the graph's triple loses it, a profile states the fact as reported
without a frequency and a frequency-band hyperedge leaves it out
(`meddiag.knowledge.model.keeps_frequency`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from meddiag.errors import BackendError
from meddiag.knowledge.documents import profile_doc_id, render_profile
from meddiag.knowledge.hyperedges import disease_hyperedges
from meddiag.knowledge.model import Chunk, Hyperedge, touches, visible
from meddiag.knowledge.relations import DiseaseFacts

if TYPE_CHECKING:
    from meddiag.backends.base import QueryScope, ScoredChunk, ScoredHyperedge

PROFILE_PREFIX = profile_doc_id("")  # "profile/"
HYPEREDGE_PREFIX = "he/"


def disease_facts(scope: QueryScope, disease_id: str) -> DiseaseFacts:
    """Every fact about a disease, excluded ones included: the layout of generated text depends
    on all of them, and the renderers leave the excluded ones out themselves."""
    key = ("facts", disease_id)
    if key in scope.cache:
        return scope.cache[key]
    with scope.stages.stage("graph"):
        relations = scope.kb.graph.relations(disease_id)
    ids = {disease_id} | {n for r in relations for n in (r.subject, r.object)}
    entities = scope.entities(ids)
    disease = entities.get(disease_id)
    if disease is None:
        raise BackendError(
            f"The knowledge base has a generated text about {disease_id} but no such disease; "
            "rebuild the knowledge base."
        )
    labels = {i: e.name for i, e in entities.items()}
    facts = DiseaseFacts(disease_id, disease.name, tuple(relations), labels)
    scope.cache[key] = facts
    return facts


def rerender_profile_chunk(chunk: Chunk, scope: QueryScope) -> Chunk | None:
    """The profile chunk with the same id, rendered without the excluded facts; None if none remain."""
    if not chunk.doc_id.startswith(PROFILE_PREFIX):
        raise BackendError(
            f"The generated passage {chunk.id} is not a disease profile, so it cannot be rendered "
            "without the excluded sources; rebuild the knowledge base."
        )
    disease_id = chunk.doc_id[len(PROFILE_PREFIX) :]
    redone = render_profile(disease_id, disease_facts(scope, disease_id), scope.exclude)
    return next((c for c in redone if c.id == chunk.id), None)


def rerender_hyperedge(hyperedge: Hyperedge, scope: QueryScope) -> Hyperedge | None:
    """The hyperedge with the same id, stated without the excluded facts; None if none remain."""
    parts = hyperedge.id.split("/")
    if len(parts) < 4 or not hyperedge.id.startswith(HYPEREDGE_PREFIX):
        raise BackendError(
            f"The hyperedge {hyperedge.id} does not name its disease, so it cannot be stated without "
            "the excluded sources; rebuild the knowledge base."
        )
    disease_id = "/".join(parts[1:-2])
    redone = disease_hyperedges(disease_facts(scope, disease_id), scope.exclude)
    return next((h for h in redone if h.id == hyperedge.id), None)


def visible_chunks(hits: Sequence[ScoredChunk], scope: QueryScope) -> list[ScoredChunk]:
    """Chunk hits as the excluded sources leave them: hidden, re-rendered, or unchanged."""
    from meddiag.backends.base import ScoredChunk

    exclude = scope.exclude
    out: list[ScoredChunk] = []
    for hit in hits:
        chunk = hit.chunk
        if not visible(chunk.sources, exclude):
            continue
        if chunk.generated and touches(chunk.sources, exclude):
            redone = rerender_profile_chunk(chunk, scope)
            if redone is None:
                continue
            hit = ScoredChunk(redone, hit.score)
        out.append(hit)
    return out


def visible_hyperedges(hits: Sequence[ScoredHyperedge], scope: QueryScope) -> list[ScoredHyperedge]:
    """Hyperedge hits as the excluded sources leave them: hidden, re-stated, or unchanged."""
    from meddiag.backends.base import ScoredHyperedge

    exclude = scope.exclude
    out: list[ScoredHyperedge] = []
    for hit in hits:
        if not visible(hit.hyperedge.sources, exclude):
            continue
        if touches(hit.hyperedge.sources, exclude):
            redone = rerender_hyperedge(hit.hyperedge, scope)
            if redone is None:
                continue
            hit = ScoredHyperedge(redone, hit.score)
        out.append(hit)
    return out
