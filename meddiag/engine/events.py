"""Node events: every engine node runs inside `node()`, which times it and reports it.

An event goes two ways: into the state (`events`, merged by `operator.add`, so the
finished `AskResult` carries the whole trace) and live through LangGraph's custom stream
(`get_stream_writer`), so a page can show progress while the channels are still running.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from meddiag.engine.state import RunContext
from meddiag.schema import NodeEvent

EventChannel = Literal["semantic", "relational", "parent"]
PAYLOAD_CHARS = 200

S = TypeVar("S", bound=Mapping[str, Any])


@dataclass
class Step:
    """What a node body returns: its state update, a short summary for the trace, and its hop."""

    update: dict[str, Any] = field(default_factory=dict)
    payload: str = ""
    hop: int | None = None


def short(text: str, limit: int = PAYLOAD_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reasoner_fallbacks(ctx: RunContext) -> list[str]:
    """The reasoner's append-only fallback log (an LLM reasoner's); empty for the offline one."""
    found = getattr(ctx.reasoner, "fallbacks", None)
    return list(found) if isinstance(found, list) else []


def node(
    name: str,
    channel: EventChannel,
    body: Callable[[S, RunContext], Step],
    *,
    steps: tuple[str, ...] = (),
    hop_before: Callable[[S], int | None] | None = None,
) -> Callable[[S, Runtime[RunContext]], dict[str, Any]]:
    """Wrap a node body as a LangGraph node that emits one `NodeEvent` per run.

    `steps` names the reasoner methods the body calls: a fallback the reasoner logs for one
    of them while the node runs marks the node's event (the other channel's steps, running
    at the same time, are not this node's). `hop_before` names the hop when the body fails
    before it could say (for the error event).
    """

    def run(state: S, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        write = get_stream_writer()
        seen = len(reasoner_fallbacks(ctx))
        start = time.perf_counter() - ctx.started
        try:
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
        new = [f for f in reasoner_fallbacks(ctx)[seen:] if f.split(":", 1)[0] in steps]
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
