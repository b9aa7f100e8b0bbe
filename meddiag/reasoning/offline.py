"""The offline reasoner: deterministic, evidence-bound judgement at every engine step.

No model and no network. Questions are understood by phrase linking to HPO (with
negation), the relational channel's candidates are ranked by phenotype similarity
(`meddiag.diagnosis.ranking`), the semantic channel's by how well each disease's passages
cover the patient's findings over the HPO hierarchy, and every sentence it writes is
filled from the evidence it was handed: names, findings, doc ids and triples that a hop
retrieved. Citations are only ever made to passages and triples found in the hops.

The steps live in one module per concern (`offline_semantic`, `offline_relational`,
`offline_synthesis`); this class composes them and decides when the evidence suffices.
"""

from __future__ import annotations

from collections.abc import Sequence

from meddiag.reasoning.base import RankedEntity, SubAnswer
from meddiag.reasoning.offline_evidence import EvidenceReader, observed
from meddiag.reasoning.offline_params import OfflineParams
from meddiag.reasoning.offline_relational import RelationalSteps
from meddiag.reasoning.offline_semantic import SemanticSteps
from meddiag.reasoning.offline_synthesis import Synthesiser
from meddiag.reasoning.resources import ReasoningResources
from meddiag.reasoning.text_match import is_disease, normalise_predicate
from meddiag.reasoning.wording import join_words
from meddiag.schema import (
    ChannelName,
    KGEvidence,
    KGTriple,
    ParsedQuestion,
    PatientInput,
    RelationalHop,
    RelationalResult,
    SemanticHop,
    SemanticResult,
    Synthesis,
    TextEvidence,
    TriplePattern,
    Verification,
)

__all__ = ["OfflineParams", "OfflineReasoner", "is_disease", "normalise_predicate"]


class OfflineReasoner:
    """Deterministic default reasoner; thread-safe (holds only read-only resources)."""

    name = "offline"

    def __init__(self, resources: ReasoningResources, params: OfflineParams | None = None) -> None:
        self.res = resources
        self.params = params or OfflineParams()
        self.fallbacks: list[str] = []  # always empty: nothing to fall back from
        evidence = EvidenceReader(resources, self.params)
        self._semantic = SemanticSteps(resources, self.params, evidence)
        self._relational = RelationalSteps(resources, self.params, evidence)
        self._synthesis = Synthesiser(resources, self.params, evidence)
        self._evidence = evidence

    # ------------------------------------------------------------------ understanding

    def parse_question(self, question: str, patient: PatientInput | None = None) -> ParsedQuestion:
        return self.res.linker.parse_question(question, patient)

    # ------------------------------------------------------------------ semantic channel

    def plan_semantic(self, parsed: ParsedQuestion, initial: list[TextEvidence]) -> list[str]:
        return self._semantic.plan(parsed)

    def ground(self, sub_query: str, answers: dict[int, SubAnswer]) -> tuple[str, list[str]]:
        return self._semantic.ground(sub_query, answers)

    def filter_passages(
        self, sub_query: str, passages: list[TextEvidence], parsed: ParsedQuestion
    ) -> list[TextEvidence]:
        return self._semantic.filter(sub_query, passages, parsed)

    def summarise_passages(self, sub_query: str, passages: list[TextEvidence]) -> str:
        return self._semantic.summarise(sub_query, passages)

    def answer_semantic(
        self, sub_query: str, summary: str, passages: list[TextEvidence], parsed: ParsedQuestion
    ) -> SubAnswer:
        return self._semantic.answer(sub_query, summary, passages, parsed)

    def draft_logic_semantic(self, hop: SemanticHop, parsed: ParsedQuestion) -> list[str]:
        return self._semantic.draft_logic(hop, parsed)

    # ------------------------------------------------------------------ relational channel

    def plan_relational(self, parsed: ParsedQuestion, initial: KGEvidence) -> list[list[TriplePattern]]:
        return self._relational.plan(parsed, initial)

    def resolve(
        self, patterns: list[TriplePattern], bindings: dict[int, SubAnswer]
    ) -> tuple[list[TriplePattern], list[str]]:
        return self._relational.resolve(patterns, bindings)

    def filter_triples(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> tuple[list[KGTriple], int]:
        return self._relational.filter(patterns, triples, parsed)

    def summarise_triples(self, triples: list[KGTriple]) -> str:
        return self._relational.summarise(triples)

    def answer_relational(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> SubAnswer:
        return self._relational.answer(patterns, triples, parsed)

    def draft_logic_relational(self, hop: RelationalHop, parsed: ParsedQuestion) -> list[str]:
        return self._relational.draft_logic(hop, parsed)

    # ------------------------------------------------------------------ both channels

    def verify(self, parsed: ParsedQuestion, answers: list[SubAnswer]) -> Verification:
        if not answers:
            return Verification(sufficient=False, reason="No hop produced an answer.")
        if parsed.kind != "diagnosis":
            if any(a.entities for a in answers):
                return Verification(
                    sufficient=True, reason="The hops returned the entities the question asks for."
                )
            return Verification(sufficient=False, reason="No hop returned an entity the question asks for.")
        ranked = _last_diseases(answers)
        if not ranked:
            return Verification(sufficient=False, reason="No candidate disease was found.")
        top = ranked[0]
        need = min(self.params.sufficient_findings, len(observed(parsed)))
        if len(top.for_) < need:
            return Verification(
                sufficient=False,
                reason=f"{top.name} is supported by only {len(top.for_)} of the patient's findings.",
            )
        if len(ranked) > 1:
            second = ranked[1]
            margin = top.score - second.score
            if margin < self.params.sufficient_margin * max(abs(top.score), 1e-9):
                return Verification(
                    sufficient=False,
                    reason=f"{top.name} and {second.name} are nearly tied ({top.score:g} vs {second.score:g}).",
                )
        return Verification(
            sufficient=True,
            reason=f"{top.name} is supported by {len(top.for_)} finding(s) with a clear margin.",
        )

    def expand(
        self,
        parsed: ParsedQuestion,
        answers: list[SubAnswer],
        verification: Verification,
        channel: ChannelName | None = None,
    ) -> list[str]:
        """At most two follow-ups; relational ones are written as ``(S, P, O)`` patterns."""
        if verification.sufficient:
            return []
        channel = channel or next((a.channel for a in reversed(answers) if a.channel), None)
        ranked = _last_diseases(answers)
        if channel == "relational":
            if len(ranked) >= 2:
                a, b = ranked[0].id, ranked[1].id
                return [f"({a}, HAS_PHENOTYPE, ?); ({b}, HAS_PHENOTYPE, ?)"]
            return []
        if channel != "semantic":
            return []
        out: list[str] = []
        if len(ranked) >= 2:
            out.append(f"Which features distinguish {ranked[0].name} from {ranked[1].name}?")
        seen = observed(parsed)
        informative = self._evidence.informative
        rest = [f for f in seen if f not in informative(seen, self.params.plan_findings)]
        if rest:
            labels = [self.res.in_sentence(f.label) for f in informative(rest, self.params.plan_findings)]
            out.append(f"Which diseases present with {join_words(labels)}?")
        return out[:2]

    # ------------------------------------------------------------------ fan-in

    def synthesise(
        self,
        parsed: ParsedQuestion,
        semantic: SemanticResult,
        relational: RelationalResult,
        semantic_answers: list[SubAnswer],
        relational_answers: list[SubAnswer],
    ) -> Synthesis:
        return self._synthesis.synthesise(parsed, semantic, relational, semantic_answers, relational_answers)


def _last_diseases(answers: Sequence[SubAnswer]) -> list[RankedEntity]:
    """The latest hop's disease ranking (a later hop refines an earlier one)."""
    for a in reversed(answers):
        ranked = [e for e in a.entities if is_disease(e.id)]
        if ranked:
            return ranked
    return []
