"""The engine's typed state: the parent graph's, each channel subgraph's, and the per-run context.

Per-run dependencies (reasoner, backend, options, clock) travel in `RunContext` as the
LangGraph runtime context, not in the state, so one compiled graph serves every ask and
concurrent asks on one `Engine` share nothing mutable.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Literal, Protocol, TypedDict

from meddiag.engine.memo import RetrievalMemo
from meddiag.reasoning.base import Reasoner, SubAnswer
from meddiag.reasoning.fallback import FallbackLog
from meddiag.schema import (
    Channels,
    KGEvidence,
    NodeEvent,
    ParsedContext,
    ParsedQuestion,
    PatientInput,
    RawContext,
    RelationalHop,
    RelationalResult,
    SemanticHop,
    SemanticResult,
    Synthesis,
    TextEvidence,
    TriplePattern,
    Verification,
)


class Retriever(Protocol):
    """What the engine needs of a backend (`meddiag.backends.base.Backend` has it)."""

    def retrieve(
        self,
        query: str,
        *,
        seeds: Sequence[str] = (),
        top_k: int = 20,
        exclude_sources: frozenset[str] = frozenset(),
        mode: Literal["mix", "semantic", "relational"] = "mix",
    ) -> RawContext: ...


@dataclass(frozen=True)
class RunContext:
    """Everything one `ask` needs besides its state; read by nodes through `Runtime.context`."""

    reasoner: Reasoner
    backend: Retriever
    backend_name: str
    started: float  # time.perf_counter() at the start of the run; event times are relative to it
    channels: Channels = "both"
    max_hops: int = 4
    exclude_sources: frozenset[str] = frozenset()
    top_k: int = 20
    # This ask's retrievals, so an identical one (same query, mode, seeds) runs once.
    memo: RetrievalMemo = field(default_factory=RetrievalMemo, compare=False, repr=False)
    # This ask's reasoner fallbacks, gathered node by node (never another ask's).
    fallbacks: FallbackLog = field(default_factory=FallbackLog, compare=False, repr=False)


# --------------------------------------------------------------------------- parent graph


class EngineInput(TypedDict, total=False):
    question: str
    patient: PatientInput | None
    channels: Channels  # routing reads it from the state; nodes read it from RunContext


class EngineState(EngineInput, total=False):
    parsed: ParsedQuestion
    understood: bool
    raw: RawContext
    initial: ParsedContext
    semantic: SemanticResult
    semantic_answers: list[SubAnswer]
    relational: RelationalResult
    relational_answers: list[SubAnswer]
    synthesis: Synthesis
    events: Annotated[list[NodeEvent], operator.add]


# --------------------------------------------------------------------------- channels


class SemanticInput(TypedDict, total=False):
    parsed: ParsedQuestion
    initial: ParsedContext


class SemanticOutput(TypedDict, total=False):
    semantic: SemanticResult
    semantic_answers: list[SubAnswer]
    events: Annotated[list[NodeEvent], operator.add]


class SemanticState(SemanticInput, SemanticOutput, total=False):
    pending: list[tuple[str, bool]]  # (sub-query, expansion) still to run, in order
    current: SemanticHop | None
    candidates: list[TextEvidence]  # retrieved for the current hop, before filtering
    answers: dict[int, SubAnswer]  # by 1-based hop index, for ``#N``
    hops: list[SemanticHop]
    verification: Verification | None
    expanded: bool


class RelationalInput(TypedDict, total=False):
    parsed: ParsedQuestion
    initial: ParsedContext


class RelationalOutput(TypedDict, total=False):
    relational: RelationalResult
    relational_answers: list[SubAnswer]
    events: Annotated[list[NodeEvent], operator.add]


class RelationalState(RelationalInput, RelationalOutput, total=False):
    pending: list[tuple[list[TriplePattern], bool]]  # (patterns, expansion) still to run
    current: RelationalHop | None
    candidates: KGEvidence  # retrieved for the current hop, before the KG filter
    answers: dict[int, SubAnswer]  # by 1-based hop index, for ``Entity#N``
    hops: list[RelationalHop]
    verification: Verification | None
    expanded: bool
