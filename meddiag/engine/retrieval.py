"""The engine's one way to ask the active backend: retrieve, then split into channel evidence.

Failures of the backend that are not already typed become a `BackendError` naming the
backend, so the page can say which part failed instead of showing a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence

from meddiag.backends.base import Mode
from meddiag.context_filter import filter_context
from meddiag.engine.state import RunContext
from meddiag.errors import BackendError, MedDiagError
from meddiag.schema import KGTriple, ParsedContext, RawContext, TextEvidence


def retrieve_raw(ctx: RunContext, query: str, *, mode: Mode, seeds: Sequence[str] = ()) -> RawContext:
    """The backend's context for this query, once per ask for identical calls (`RunContext.memo`)."""
    seeds = tuple(seeds)
    return ctx.memo.get((query, mode, seeds), lambda: _retrieve_raw(ctx, query, mode=mode, seeds=seeds))


def _retrieve_raw(ctx: RunContext, query: str, *, mode: Mode, seeds: tuple[str, ...]) -> RawContext:
    try:
        return ctx.backend.retrieve(
            query,
            seeds=seeds,
            top_k=ctx.top_k,
            exclude_sources=ctx.exclude_sources,
            mode=mode,
        )
    except MedDiagError:
        raise
    except Exception as exc:
        raise BackendError(
            f"The {ctx.backend_name} retrieval backend failed while searching the knowledge base: {exc}"
        ) from exc


def split_context(ctx: RunContext, raw: RawContext) -> ParsedContext:
    try:
        return filter_context(raw)
    except MedDiagError:
        raise
    except Exception as exc:
        raise BackendError(
            f"The {ctx.backend_name} backend returned a context that could not be read: {exc}"
        ) from exc


def retrieve(ctx: RunContext, query: str, *, mode: Mode, seeds: Sequence[str] = ()) -> ParsedContext:
    return split_context(ctx, retrieve_raw(ctx, query, mode=mode, seeds=seeds))


# --------------------------------------------------------------------------- merging


def passage_key(p: TextEvidence) -> str:
    return p.doc_id + "\x00" + p.text if p.doc_id else p.text


def merge_passages(*groups: Sequence[TextEvidence]) -> list[TextEvidence]:
    """Passages of several retrievals, first occurrence kept, in order."""
    seen: dict[str, TextEvidence] = {}
    for group in groups:
        for p in group:
            seen.setdefault(passage_key(p), p)
    return list(seen.values())


def merge_triples(*groups: Sequence[KGTriple]) -> list[KGTriple]:
    seen: dict[str, KGTriple] = {}
    for group in groups:
        for t in group:
            seen.setdefault(t.key, t)
    return list(seen.values())
