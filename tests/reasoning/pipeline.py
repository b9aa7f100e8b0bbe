"""Both channels driven step by step over hand-made evidence, as the engine drives them."""

from __future__ import annotations

from collections.abc import Sequence

from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Relation
from meddiag.reasoning.base import SubAnswer
from meddiag.reasoning.offline import OfflineReasoner
from meddiag.schema import (
    KGEvidence,
    ParsedQuestion,
    RelationalHop,
    RelationalResult,
    SemanticHop,
    SemanticResult,
    TextEvidence,
)
from tests.reasoning import world

Run = tuple[ParsedQuestion, SemanticResult, RelationalResult, list[SubAnswer], list[SubAnswer]]


def run_pipeline(
    reasoner: OfflineReasoner,
    onto: Ontology,
    question: str,
    passages: Sequence[TextEvidence] | None = None,
    relations: Sequence[Relation] | None = None,
) -> Run:
    """Every hop retrieves all of `passages` / all triples of `relations` (default: the miniature KB's)."""
    parsed = reasoner.parse_question(question)
    pool = list(passages if passages is not None else world.passages())
    sem_hops, sem_answers = [], {}
    for i, q in enumerate(reasoner.plan_semantic(parsed, []), 1):
        grounded, _unresolved = reasoner.ground(q, sem_answers)
        kept = reasoner.filter_passages(grounded, pool, parsed)
        summary = reasoner.summarise_passages(grounded, kept)
        sem_answers[i] = reasoner.answer_semantic(grounded, summary, kept, parsed)
        sem_hops.append(SemanticHop(index=i, sub_query=q, grounded_query=grounded, passages=kept))
    triples = [world.triple(r, onto) for r in (relations if relations is not None else world.relations())]
    rel_hops, rel_answers = [], {}
    for i, patterns in enumerate(reasoner.plan_relational(parsed, KGEvidence()), 1):
        resolved, _ = reasoner.resolve(patterns, rel_answers)
        kept_t, dropped = reasoner.filter_triples(resolved, triples, parsed)
        rel_answers[i] = reasoner.answer_relational(resolved, kept_t, parsed)
        rel_hops.append(
            RelationalHop(
                index=i, triple_queries=patterns, resolved_queries=resolved, triples=kept_t, dropped=dropped
            )
        )
    return (
        parsed,
        SemanticResult(hops=sem_hops),
        RelationalResult(hops=rel_hops),
        list(sem_answers.values()),
        list(rel_answers.values()),
    )
