"""The hop loop both channels share: when to run another hop, when to verify, when to expand."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langgraph.graph import END

from meddiag.reasoning.base import SubAnswer

MAX_EXPANSIONS = 2  # new sub-queries in the one expansion round


def ordered(answers: Mapping[int, SubAnswer]) -> list[SubAnswer]:
    """Sub-answers in hop order (the order `#N` and `Entity#N` count in)."""
    return [answers[i] for i in sorted(answers)]


def after_hop(next_hop: str, done: str = "verify") -> Callable[[Mapping[str, Any]], str]:
    """Route to the next hop while sub-queries are pending, else to `done`."""

    def route(state: Mapping[str, Any]) -> str:
        return next_hop if state.get("pending") else done

    return route


def after_verify(state: Mapping[str, Any]) -> str:
    """One expansion round at most, and only when the evidence was judged insufficient."""
    verification = state.get("verification")
    if verification is not None and not verification.sufficient and not state.get("expanded"):
        return "expand"
    return END
