"""The hop loop both channels share: when to run another hop, when to verify, when to expand."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from langgraph.graph import END, START, StateGraph

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


def wire_hop_loop(g: StateGraph[Any, Any, Any, Any], first: str, stages: Sequence[str]) -> None:
    """The edges both channels share: plan, then hops (`first`, *stages*), verify, one expansion.

    START → plan → (first → … → last)* → verify → [expand → (first → … → last)*] → END.
    """
    chain = [first, *stages]
    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", after_hop(first), [first, "verify"])
    for a, b in pairwise(chain):
        g.add_edge(a, b)
    g.add_conditional_edges(chain[-1], after_hop(first), [first, "verify"])
    g.add_conditional_edges("verify", after_verify, ["expand", END])
    g.add_conditional_edges("expand", after_hop(first, done=END), [first, END])


def verify_answers(state: Mapping[str, Any], reasoner: Any) -> tuple[list[SubAnswer], Any, str]:
    """Both channels' verify step: (answers in hop order, verification, the event's payload)."""
    answers = ordered(state["answers"])
    verification = reasoner.verify(state["parsed"], answers)
    verdict = "sufficient: " if verification.sufficient else "insufficient: "
    return answers, verification, verdict + verification.reason
