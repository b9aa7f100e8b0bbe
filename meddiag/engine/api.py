"""The engine's entry point: `Engine.ask` runs one question through the LangGraph engine.

An `Engine` holds only immutable references (knowledge base, backend, reasoner); every
ask gets its own `RunContext`, so several asks may run at once on one engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from meddiag.config import Settings, get_settings
from meddiag.engine.graph import parent_graph
from meddiag.engine.inputs import check_max_hops, check_patient, clean_question
from meddiag.engine.state import EngineInput, Retriever, RunContext
from meddiag.errors import InputError
from meddiag.reasoning.base import Reasoner
from meddiag.reasoning.offline import OfflineReasoner
from meddiag.reasoning.resources import ReasoningResources
from meddiag.schema import (
    BACKENDS,
    AskResult,
    BackendName,
    Channels,
    NodeEvent,
    PatientInput,
    ReasonerInfo,
    RelationalResult,
    SemanticResult,
)

if TYPE_CHECKING:
    from meddiag.knowledge.handle import KnowledgeBaseHandle

EventCallback = Callable[[NodeEvent], None]
_STEPS_PER_HOP = 8


class Engine:
    """One knowledge base, one backend, one reasoner; `ask` as often and as concurrently as needed."""

    def __init__(
        self,
        kb: KnowledgeBaseHandle,
        *,
        backend: BackendName,
        reasoner: Reasoner,
        retriever: Retriever | None = None,
    ) -> None:
        """`retriever` replaces the registry's backend (tests inject a failing one)."""
        if backend not in BACKENDS:
            raise InputError(f"Unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}.")
        self.kb = kb
        self.backend: BackendName = backend
        self.reasoner = reasoner
        if retriever is None:
            from meddiag.backends.registry import get_backend

            retriever = get_backend(backend, kb)
        self.retriever: Retriever = retriever

    def with_backend(self, name: BackendName) -> Engine:
        """The same knowledge base and reasoner behind another backend (graphs are shared)."""
        return Engine(self.kb, backend=name, reasoner=self.reasoner)

    def ask(
        self,
        question: str | None = None,
        *,
        patient: PatientInput | None = None,
        channels: Channels = "both",
        max_hops: int = 4,
        exclude_sources: frozenset[str] = frozenset(),
        on_event: EventCallback | None = None,
        sequential: bool = False,
    ) -> AskResult:
        """Answer a question (free text, structured patient input, or both).

        `on_event` is called in the caller's thread for every node as it finishes, so a page
        can show progress; `sequential=True` chains the channels (benchmarks only).
        """
        text = clean_question(question, patient)
        check_patient(patient)
        check_max_hops(max_hops)
        if channels not in ("both", "semantic", "relational"):
            raise InputError(f"Unknown channel choice {channels!r}; choose both, semantic or relational.")
        ctx = RunContext(
            reasoner=self.reasoner,
            backend=self.retriever,
            backend_name=self.backend,
            started=time.perf_counter(),
            channels=channels,
            max_hops=max_hops,
            exclude_sources=frozenset(exclude_sources),
        )
        inputs: EngineInput = {"question": text, "patient": patient, "channels": channels}
        final = self._run(inputs, ctx, sequential=sequential, on_event=on_event)
        parsed = final["parsed"]
        return AskResult(
            question=text or parsed.text,
            backend=self.backend,
            channels=channels,
            reasoner=ReasonerInfo(name=self.reasoner.name, fallbacks=list(ctx.fallbacks.entries)),
            parsed=parsed,
            semantic=final.get("semantic") or SemanticResult(),
            relational=final.get("relational") or RelationalResult(),
            synthesis=final["synthesis"],
            events=sorted(final.get("events", []), key=lambda e: (e.start, e.end)),
            excluded_sources=sorted(exclude_sources),
        )

    def _run(
        self, inputs: EngineInput, ctx: RunContext, *, sequential: bool, on_event: EventCallback | None
    ) -> dict[str, Any]:
        graph = parent_graph(sequential)
        # Each hop is a handful of supersteps in its channel; leave room for expansion hops.
        config = {"recursion_limit": 20 + (ctx.max_hops + 2) * _STEPS_PER_HOP}
        final: dict[str, Any] | None = None
        for namespace, mode, data in graph.stream(
            inputs, config=config, context=ctx, stream_mode=["custom", "values"], subgraphs=True
        ):
            if mode == "custom" and isinstance(data, NodeEvent):
                if on_event is not None:
                    on_event(data)
            elif mode == "values" and not namespace:
                final = data
        if final is None or "synthesis" not in final:
            raise RuntimeError("the engine finished without a synthesis; its graph is miswired")
        return final


def create_engine(
    settings: Settings | None = None,
    *,
    backend: BackendName | None = None,
    kb: KnowledgeBaseHandle | None = None,
) -> Engine:
    """An engine for the configured knowledge base, with the LLM reasoner when one is configured."""
    settings = settings or get_settings()
    if kb is None:
        from meddiag.knowledge.handle import open_knowledge_base

        kb = open_knowledge_base(settings)
    return Engine(kb, backend=backend or settings.backend, reasoner=make_reasoner(settings, kb))


def make_reasoner(settings: Settings, kb: KnowledgeBaseHandle) -> Reasoner:
    """The offline reasoner over this knowledge base; wrapped by the LLM reasoner when one is configured."""
    offline = OfflineReasoner(ReasoningResources.from_handle(kb))
    if not settings.uses_llm:
        return offline
    from meddiag.reasoning.llm import LLMReasoner

    return LLMReasoner(settings, fallback=offline)
