"""Node events: every engine node runs inside `node()`, which times it and reports it.

An event goes two ways: into the state (`events`, merged by `operator.add`, so the
finished `AskResult` carries the whole trace) and live through LangGraph's custom stream
(`get_stream_writer`), so a page can show progress while the channels are still running.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from meddiag.engine.state import RunContext
from meddiag.reasoning.fallback import collecting_fallbacks
from meddiag.schema import NodeEvent

EventChannel = Literal["semantic", "relational", "parent"]
PAYLOAD_CHARS = 200

S = TypeVar("S", bound=Mapping[str, Any])
S_contra = TypeVar("S_contra", bound=Mapping[str, Any], contravariant=True)


class EngineNode(Protocol[S_contra]):
    """A node as LangGraph calls it: the state, and the run's context passed as `runtime=`."""

    def __call__(self, state: S_contra, *, runtime: Runtime[RunContext]) -> dict[str, Any]: ...


@dataclass
class Step:
    """What a node body returns: its state update, a short summary for the trace, and its hop."""

    update: dict[str, Any] = field(default_factory=dict)
    payload: str = ""
    hop: int | None = None


def short(text: str, limit: int = PAYLOAD_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def node(
    name: str,
    channel: EventChannel,
    body: Callable[[S, RunContext], Step],
    *,
    hop_before: Callable[[S], int | None] | None = None,
) -> EngineNode[S]:
    """Wrap a node body as a LangGraph node that emits one `NodeEvent` per run.

    A reasoner step that falls back while the body runs marks this node's event and joins
    the ask's fallbacks; they are collected per node in a context variable, so the other
    channel's steps, running at the same time, are never attributed here. `hop_before` names the hop when the body fails
    before it could say (for the error event).
    """

    def run(state: S, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        write = get_stream_writer()
        start = time.perf_counter() - ctx.started
        try:
            with collecting_fallbacks() as new:
                step = body(state, ctx)
        except Exception as exc:
            hop = hop_before(state) if hop_before else None
            end = time.perf_counter() - ctx.started
            write(
                NodeEvent(
                    node=name,
                    channel=channel,
                    hop=hop,
                    status="error",
                    start=start,
                    end=end,
                    payload=short(str(exc) or type(exc).__name__),
                )
            )
            raise
        end = time.perf_counter() - ctx.started
        ctx.fallbacks.extend(new)
        payload = step.payload if not new else f"{step.payload} [fallback: {'; '.join(new)}]"
        event = NodeEvent(
            node=name,
            channel=channel,
            hop=step.hop,
            status="fallback" if new else "ok",
            start=start,
            end=end,
            payload=short(payload),
        )
        write(event)
        return {**step.update, "events": [event]}

    run.__name__ = f"{channel}_{name}"
    return run
