"""The relational channel: SPO triple patterns answered hop by hop from knowledge-graph facts.

plan → per hop (resolve → retrieve → kg_filter → summarise → answer → draft_logic) → verify,
and when the evidence is insufficient one bounded expansion round run as extra hops.
A pattern slot ``Entity#N`` stands for hop N's answer entities; once resolved, the entity
ids in the patterns seed the backend's graph search.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final

from langgraph.graph import StateGraph

from meddiag.engine.events import Step, node, short
from meddiag.engine.loop import MAX_EXPANSIONS, ordered, verify_answers, wire_hop_loop
from meddiag.engine.retrieval import merge_triples, retrieve
from meddiag.engine.state import RelationalInput, RelationalOutput, RelationalState, RunContext
from meddiag.errors import ReasonerError
from meddiag.schema import KGEvidence, RelationalHop, RelationalResult, TriplePattern

CHANNEL: Final = "relational"

# A knowledge-base id such as HP:0001250, OMIM:154700, ORPHA:558, MONDO:0007947.
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*:[A-Za-z0-9_.-]+$")
_PLACEHOLDER = re.compile(r"Entity#\d+")
_PATTERN = re.compile(r"\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)")


def patterns_text(patterns: list[TriplePattern]) -> str:
    return "; ".join(str(p) for p in patterns)


def seeds_of(patterns: list[TriplePattern]) -> list[str]:
    """Entity ids named in resolved patterns (placeholders and ``?`` are not ids)."""
    slots = (slot.strip() for p in patterns for slot in (p.subject, p.object))
    return list(dict.fromkeys(s for s in slots if _ID.match(s) and not _PLACEHOLDER.fullmatch(s)))


def parse_patterns(text: str) -> list[TriplePattern]:
    """``(S, P, O)`` groups in an expansion sub-query; a reasoner must write at least one."""
    found = [TriplePattern(subject=s, predicate=p, object=o) for s, p, o in _PATTERN.findall(text)]
    if not found:
        raise ReasonerError(
            f"The reasoner proposed the follow-up {text!r} for the knowledge graph, "
            "but it is not a (subject, predicate, object) pattern."
        )
    return found


def _hop(state: RelationalState) -> int | None:
    current = state.get("current")
    return current.index if current else None


def _current(state: RelationalState) -> RelationalHop:
    current = state.get("current")
    if current is None:  # the graph's edges make this unreachable; a loud failure beats a silent skip
        raise RuntimeError("relational channel: a hop step ran before its patterns were resolved")
    return current


def plan(state: RelationalState, ctx: RunContext) -> Step:
    hops = ctx.reasoner.plan_relational(state["parsed"], state["initial"].kg)[: ctx.max_hops]
    return Step(
        {
            "pending": [(p, False) for p in hops],
            "answers": {},
            "hops": [],
            "expanded": False,
            "current": None,
        },
        f"{len(hops)} hops: " + " | ".join(patterns_text(p) for p in hops),
    )


def resolve(state: RelationalState, ctx: RunContext) -> Step:
    (patterns, expansion), *rest = state["pending"]
    index = len(state["hops"]) + 1
    resolved, unresolved = ctx.reasoner.resolve(patterns, state["answers"])
    hop = RelationalHop(
        index=index,
        triple_queries=patterns,
        resolved_queries=resolved,
        unresolved=unresolved,
        expansion=expansion,
    )
    note = f"{patterns_text(patterns)} → {patterns_text(resolved)}"
    if unresolved:
        note += f" (unresolved: {', '.join(unresolved)})"
    return Step({"pending": rest, "current": hop}, note, index)


def retrieve_triples(state: RelationalState, ctx: RunContext) -> Step:
    hop = _current(state)
    query = patterns_text(hop.resolved_queries) or state["parsed"].text
    seeds = seeds_of(hop.resolved_queries)
    found = retrieve(ctx, query, mode="relational", seeds=seeds).kg
    # The first planned hop also sees the channel's slice of the initial retrieval.
    if hop.index == 1:
        initial = state["initial"].kg
        candidates = KGEvidence(
            entities=[*initial.entities, *found.entities],
            triples=merge_triples(initial.triples, found.triples),
            hyperedges=[*initial.hyperedges, *found.hyperedges],
            paths=[*initial.paths, *found.paths],
        )
    else:
        candidates = found
    return Step(
        {"candidates": candidates},
        f"{len(found.triples)} triples retrieved ({len(seeds)} seeds), {len(candidates.triples)} candidates",
        hop.index,
    )


def kg_filter(state: RelationalState, ctx: RunContext) -> Step:
    hop = _current(state)
    candidates = state["candidates"].triples
    kept, dropped = ctx.reasoner.filter_triples(hop.resolved_queries, candidates, state["parsed"])
    return Step(
        {"current": hop.model_copy(update={"triples": kept, "dropped": dropped}), "candidates": KGEvidence()},
        f"kept {len(kept)} of {len(candidates)} triples, dropped {dropped}",
        hop.index,
    )


def summarise(state: RelationalState, ctx: RunContext) -> Step:
    hop = _current(state)
    summary = ctx.reasoner.summarise_triples(hop.triples)
    return Step({"current": hop.model_copy(update={"summary": summary})}, short(summary), hop.index)


def answer(state: RelationalState, ctx: RunContext) -> Step:
    hop = _current(state)
    sub = ctx.reasoner.answer_relational(hop.resolved_queries, hop.triples, state["parsed"])
    done = hop.model_copy(update={"sub_answer": sub.text, "answer_entities": [e.id for e in sub.entities]})
    return Step(
        {"current": done, "answers": {**state["answers"], hop.index: sub}}, short(sub.text), hop.index
    )


def draft_logic(state: RelationalState, ctx: RunContext) -> Step:
    hop = _current(state)
    logic = ctx.reasoner.draft_logic_relational(hop, state["parsed"])
    done = hop.model_copy(update={"logic": logic})
    return Step({"hops": [*state["hops"], done], "current": None}, f"{len(logic)} reasoning steps", hop.index)


def verify(state: RelationalState, ctx: RunContext) -> Step:
    answers, verification, payload = verify_answers(state, ctx.reasoner)
    return Step(
        {
            "verification": verification,
            "relational": RelationalResult(hops=state["hops"], verification=verification),
            "relational_answers": answers,
        },
        payload,
    )


def expand(state: RelationalState, ctx: RunContext) -> Step:
    verification = state["verification"]
    assert verification is not None  # routed here only after verify
    texts = ctx.reasoner.expand(state["parsed"], ordered(state["answers"]), verification, channel=CHANNEL)[
        :MAX_EXPANSIONS
    ]
    hops = [parse_patterns(t) for t in texts]
    return Step(
        {"pending": [(p, True) for p in hops], "expanded": True},
        f"{len(hops)} new hops: " + " | ".join(patterns_text(p) for p in hops),
    )


def build() -> StateGraph[Any, Any, Any, Any]:
    g = StateGraph(
        RelationalState,
        context_schema=RunContext,
        input_schema=RelationalInput,
        output_schema=RelationalOutput,
    )
    g.add_node("plan", node("plan", CHANNEL, plan))
    g.add_node("resolve", node("resolve", CHANNEL, resolve))
    g.add_node("retrieve", node("retrieve", CHANNEL, retrieve_triples, hop_before=_hop))
    g.add_node("kg_filter", node("kg_filter", CHANNEL, kg_filter, hop_before=_hop))
    g.add_node("summarise", node("summarise", CHANNEL, summarise, hop_before=_hop))
    g.add_node("answer", node("answer", CHANNEL, answer, hop_before=_hop))
    g.add_node(
        "draft_logic",
        node("draft_logic", CHANNEL, draft_logic, hop_before=_hop),
    )
    g.add_node("verify", node("verify", CHANNEL, verify))
    g.add_node("expand", node("expand", CHANNEL, expand))
    wire_hop_loop(g, "resolve", ["retrieve", "kg_filter", "summarise", "answer", "draft_logic"])
    return g


@lru_cache(maxsize=1)
def relational_channel() -> Any:
    """The compiled relational subgraph (stateless; shared by every ask)."""
    return build().compile()
