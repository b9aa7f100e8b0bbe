"""The semantic channel: text sub-queries answered hop by hop from retrieved passages.

plan → per hop (ground → retrieve → filter → summarise → answer → draft_logic) → verify,
and when the evidence is insufficient one bounded expansion round run as extra hops.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from langgraph.graph import StateGraph

from meddiag.engine.events import Step, node, short
from meddiag.engine.loop import MAX_EXPANSIONS, ordered, verify_answers, wire_hop_loop
from meddiag.engine.retrieval import merge_passages, retrieve
from meddiag.engine.state import RunContext, SemanticInput, SemanticOutput, SemanticState
from meddiag.schema import SemanticHop, SemanticResult

CHANNEL: Final = "semantic"


def _hop(state: SemanticState) -> int | None:
    current = state.get("current")
    return current.index if current else None


def _current(state: SemanticState) -> SemanticHop:
    current = state.get("current")
    if current is None:  # the graph's edges make this unreachable; a loud failure beats a silent skip
        raise RuntimeError("semantic channel: a hop step ran before its hop was grounded")
    return current


def plan(state: SemanticState, ctx: RunContext) -> Step:
    queries = ctx.reasoner.plan_semantic(state["parsed"], state["initial"].text)[: ctx.max_hops]
    return Step(
        {
            "pending": [(q, False) for q in queries],
            "answers": {},
            "hops": [],
            "expanded": False,
            "current": None,
        },
        f"{len(queries)} sub-queries: " + " | ".join(queries),
    )


def ground(state: SemanticState, ctx: RunContext) -> Step:
    (sub_query, expansion), *rest = state["pending"]
    index = len(state["hops"]) + 1
    grounded, unresolved = ctx.reasoner.ground(sub_query, state["answers"])
    hop = SemanticHop(
        index=index, sub_query=sub_query, grounded_query=grounded, unresolved=unresolved, expansion=expansion
    )
    note = f"{sub_query} → {grounded}" + (f" (unresolved: {', '.join(unresolved)})" if unresolved else "")
    return Step({"pending": rest, "current": hop}, note, index)


def retrieve_passages(state: SemanticState, ctx: RunContext) -> Step:
    hop = _current(state)
    found = retrieve(ctx, hop.grounded_query, mode="semantic").text
    # The first planned hop also sees the channel's slice of the initial retrieval.
    candidates = merge_passages(state["initial"].text, found) if hop.index == 1 else found
    return Step(
        {"candidates": candidates},
        f"{len(found)} passages retrieved, {len(candidates)} candidates",
        hop.index,
    )


def filter_passages(state: SemanticState, ctx: RunContext) -> Step:
    hop = _current(state)
    kept = ctx.reasoner.filter_passages(hop.grounded_query, state["candidates"], state["parsed"])
    return Step(
        {"current": hop.model_copy(update={"passages": kept}), "candidates": []},
        f"kept {len(kept)} of {len(state['candidates'])} passages",
        hop.index,
    )


def summarise(state: SemanticState, ctx: RunContext) -> Step:
    hop = _current(state)
    summary = ctx.reasoner.summarise_passages(hop.grounded_query, hop.passages)
    return Step({"current": hop.model_copy(update={"summary": summary})}, short(summary), hop.index)


def answer(state: SemanticState, ctx: RunContext) -> Step:
    hop = _current(state)
    sub = ctx.reasoner.answer_semantic(hop.grounded_query, hop.summary, hop.passages, state["parsed"])
    return Step(
        {
            "current": hop.model_copy(update={"sub_answer": sub.text}),
            "answers": {**state["answers"], hop.index: sub},
        },
        short(sub.text),
        hop.index,
    )


def draft_logic(state: SemanticState, ctx: RunContext) -> Step:
    hop = _current(state)
    logic = ctx.reasoner.draft_logic_semantic(hop, state["parsed"])
    done = hop.model_copy(update={"logic": logic})
    return Step({"hops": [*state["hops"], done], "current": None}, f"{len(logic)} reasoning steps", hop.index)


def verify(state: SemanticState, ctx: RunContext) -> Step:
    answers, verification, payload = verify_answers(state, ctx.reasoner)
    return Step(
        {
            "verification": verification,
            "semantic": SemanticResult(hops=state["hops"], verification=verification),
            "semantic_answers": answers,
        },
        payload,
    )


def expand(state: SemanticState, ctx: RunContext) -> Step:
    verification = state["verification"]
    assert verification is not None  # routed here only after verify
    queries = ctx.reasoner.expand(state["parsed"], ordered(state["answers"]), verification, channel=CHANNEL)[
        :MAX_EXPANSIONS
    ]
    return Step(
        {"pending": [(q, True) for q in queries], "expanded": True},
        f"{len(queries)} new sub-queries: " + " | ".join(queries),
    )


def build() -> StateGraph[Any, Any, Any, Any]:
    g = StateGraph(
        SemanticState, context_schema=RunContext, input_schema=SemanticInput, output_schema=SemanticOutput
    )
    g.add_node("plan", node("plan", CHANNEL, plan))
    g.add_node("ground", node("ground", CHANNEL, ground))
    g.add_node("retrieve", node("retrieve", CHANNEL, retrieve_passages, hop_before=_hop))
    g.add_node("filter", node("filter", CHANNEL, filter_passages, hop_before=_hop))
    g.add_node("summarise", node("summarise", CHANNEL, summarise, hop_before=_hop))
    g.add_node("answer", node("answer", CHANNEL, answer, hop_before=_hop))
    g.add_node(
        "draft_logic",
        node("draft_logic", CHANNEL, draft_logic, hop_before=_hop),
    )
    g.add_node("verify", node("verify", CHANNEL, verify))
    g.add_node("expand", node("expand", CHANNEL, expand))
    wire_hop_loop(g, "ground", ["retrieve", "filter", "summarise", "answer", "draft_logic"])
    return g


@lru_cache(maxsize=1)
def semantic_channel() -> Any:
    """The compiled semantic subgraph (stateless; shared by every ask)."""
    return build().compile()
