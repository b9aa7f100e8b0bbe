"""The parent graph: parse → initial retrieval → context filter → both channels at once → synthesis.

The two channel subgraphs are nodes of one superstep, so LangGraph runs them concurrently
and synthesis starts once both have finished; their outputs go to disjoint state keys
(events are merged by a reducer), so nothing depends on which channel finishes first.
The sequential variant chains the channels instead; it exists to measure the gain.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from langgraph.graph import END, START, StateGraph

from meddiag.engine.events import Step, node, short
from meddiag.engine.inputs import not_understood_answer, retrieval_query, retrieval_seeds, understood
from meddiag.engine.relational import relational_channel
from meddiag.engine.retrieval import retrieve_raw, split_context
from meddiag.engine.semantic import semantic_channel
from meddiag.engine.state import EngineInput, EngineState, RunContext
from meddiag.engine.synthesis import synthesise
from meddiag.schema import Agreement, Synthesis

PARENT: Final = "parent"
SEMANTIC, RELATIONAL = "semantic_channel", "relational_channel"


def parse_question(state: EngineState, ctx: RunContext) -> Step:
    parsed = ctx.reasoner.parse_question(state.get("question") or "", state.get("patient"))
    parsed = parsed.model_copy(update={"exclude_sources": sorted(ctx.exclude_sources)})
    observed = sum(not f.excluded for f in parsed.findings)
    note = f"{parsed.kind}: {observed} findings present, {len(parsed.findings) - observed} absent"
    if parsed.age_years is not None:
        note += f", age {parsed.age_years:g}"
    if parsed.sex:
        note += f", {parsed.sex}"
    if parsed.onset is not None:
        note += f", {parsed.onset.label}"
    if parsed.warnings:
        note += "; " + "; ".join(parsed.warnings)
    return Step({"parsed": parsed, "understood": understood(parsed)}, note)


def not_understood(state: EngineState, ctx: RunContext) -> Step:
    answer = not_understood_answer(state["parsed"])
    synthesis = Synthesis(
        answer=answer,
        agreement=Agreement(
            status="single-channel", detail="No channel ran: nothing in the question was recognised."
        ),
    )
    return Step({"synthesis": synthesis}, short(answer))


def initial_retrieval(state: EngineState, ctx: RunContext) -> Step:
    parsed = state["parsed"]
    raw = retrieve_raw(ctx, retrieval_query(parsed), mode="mix", seeds=retrieval_seeds(parsed))
    return Step({"raw": raw}, f"{ctx.backend_name}: {len(raw.text):,} characters of context")


def context_filter(state: EngineState, ctx: RunContext) -> Step:
    initial = split_context(ctx, state["raw"])
    return Step(
        {"initial": initial},
        f"{len(initial.text)} passages → semantic; {len(initial.kg.triples)} triples, "
        f"{len(initial.kg.entities)} entities → relational",
    )


# --------------------------------------------------------------------------- routing


def _after_parse(state: EngineState) -> str:
    return "initial_retrieval" if state.get("understood") else "not_understood"


def _fan_out(state: EngineState) -> list[str]:
    wanted = {"both": [SEMANTIC, RELATIONAL], "semantic": [SEMANTIC], "relational": [RELATIONAL]}
    return wanted[state.get("channels", "both")]


def _first_channel(state: EngineState) -> str:
    return _fan_out(state)[0]


def _after_semantic(state: EngineState) -> str:
    return RELATIONAL if state.get("channels", "both") == "both" else "synthesis"


def build(*, sequential: bool = False) -> StateGraph[Any, Any, Any, Any]:
    g = StateGraph(EngineState, context_schema=RunContext, input_schema=EngineInput)
    g.add_node("parse_question", node("parse_question", PARENT, parse_question))
    g.add_node("not_understood", node("not_understood", PARENT, not_understood))
    g.add_node("initial_retrieval", node("initial_retrieval", PARENT, initial_retrieval))
    g.add_node("context_filter", node("context_filter", PARENT, context_filter))
    g.add_node(SEMANTIC, semantic_channel())
    g.add_node(RELATIONAL, relational_channel())
    g.add_node("synthesis", node("synthesis", PARENT, synthesise))

    g.add_edge(START, "parse_question")
    g.add_conditional_edges("parse_question", _after_parse, ["initial_retrieval", "not_understood"])
    g.add_edge("not_understood", END)
    g.add_edge("initial_retrieval", "context_filter")
    if sequential:
        g.add_conditional_edges("context_filter", _first_channel, [SEMANTIC, RELATIONAL])
        g.add_conditional_edges(SEMANTIC, _after_semantic, [RELATIONAL, "synthesis"])
    else:
        g.add_conditional_edges("context_filter", _fan_out, [SEMANTIC, RELATIONAL])
        g.add_edge(SEMANTIC, "synthesis")
    g.add_edge(RELATIONAL, "synthesis")
    g.add_edge("synthesis", END)
    return g


@lru_cache(maxsize=2)
def parent_graph(sequential: bool = False) -> Any:
    """The compiled parent graph (stateless; one per mode, shared by every ask)."""
    return build(sequential=sequential).compile()
