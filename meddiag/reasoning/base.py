"""The step functions both channels call, behind one interface.

The engine (LangGraph nodes) owns control flow, retrieval and events; a reasoner owns
the judgement at each step. `OfflineReasoner` is the deterministic default;
`LLMReasoner` asks an OpenAI-compatible endpoint and falls back to the offline one.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import Field

from meddiag.schema import (
    ChannelName,
    KGEvidence,
    KGTriple,
    Model,
    ParsedQuestion,
    PatientInput,
    RelationalHop,
    RelationalResult,
    SemanticHop,
    SemanticResult,
    SeriesRole,
    Synthesis,
    TextEvidence,
    TriplePattern,
    Verification,
)


class RankedEntity(Model):
    """An entity a sub-answer proposes (usually a disease), with its score and why."""

    id: str
    name: str
    score: float
    for_: list[str] = Field(default_factory=list, alias="for")
    against: list[str] = Field(default_factory=list)
    # Reasons against it that are not findings: the patient's sex, no known causal gene.
    caveats: list[str] = Field(default_factory=list)
    # Frequent features of the disease the patient is not reported to have (ranker's view).
    absent: list[str] = Field(default_factory=list)
    # The member of its MONDO series its place comes from ("Name (id)"), and how
    # (`DifferentialEntry.series`).
    series: str = ""
    series_role: SeriesRole | None = None
    series_class: str = ""
    genes: list[str] = Field(default_factory=list)  # genes named in the question it is associated with


class SubAnswer(Model):
    """A hop's answer: a sentence for people and ranked entities for later hops (`#N`, `Entity#N`)."""

    text: str
    entities: list[RankedEntity] = Field(default_factory=list)
    channel: ChannelName | None = None  # which channel answered (lets `expand` write text or SPO patterns)


class Reasoner(Protocol):
    name: str

    # -- understanding the question
    def parse_question(self, question: str, patient: PatientInput | None = None) -> ParsedQuestion:
        """Findings linked to HPO (with negation), age, sex, genes, named diseases, question kind."""

    # -- semantic channel
    def plan_semantic(self, parsed: ParsedQuestion, initial: list[TextEvidence]) -> list[str]:
        """Sub-queries in order; a later one may point back to an earlier answer as ``#N`` (1-based)."""

    def ground(self, sub_query: str, answers: dict[int, SubAnswer]) -> tuple[str, list[str]]:
        """Replace ``#N`` by earlier answers; return (grounded query, unresolved references)."""

    def filter_passages(
        self, sub_query: str, passages: list[TextEvidence], parsed: ParsedQuestion
    ) -> list[TextEvidence]:
        """Keep only passages relevant to this sub-query."""

    def summarise_passages(self, sub_query: str, passages: list[TextEvidence]) -> str: ...

    def answer_semantic(
        self, sub_query: str, summary: str, passages: list[TextEvidence], parsed: ParsedQuestion
    ) -> SubAnswer: ...

    def draft_logic_semantic(self, hop: SemanticHop, parsed: ParsedQuestion) -> list[str]:
        """Explicit reasoning steps from the hop's evidence to its sub-answer."""

    # -- relational channel
    def plan_relational(self, parsed: ParsedQuestion, initial: KGEvidence) -> list[list[TriplePattern]]:
        """Per hop, SPO patterns; ``Entity#N`` stands for hop N's answer entities."""

    def resolve(
        self, patterns: list[TriplePattern], bindings: dict[int, SubAnswer]
    ) -> tuple[list[TriplePattern], list[str]]:
        """Fill ``Entity#N`` placeholders; return (resolved patterns, unresolved placeholders)."""

    def filter_triples(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> tuple[list[KGTriple], int]:
        """Drop spurious or low-confidence triples; return (kept, number dropped)."""

    def summarise_triples(self, triples: list[KGTriple]) -> str: ...

    def answer_relational(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> SubAnswer: ...

    def draft_logic_relational(self, hop: RelationalHop, parsed: ParsedQuestion) -> list[str]: ...

    # -- both channels
    def verify(self, parsed: ParsedQuestion, answers: list[SubAnswer]) -> Verification:
        """Is the evidence sufficient to answer the question?"""

    def expand(
        self,
        parsed: ParsedQuestion,
        answers: list[SubAnswer],
        verification: Verification,
        channel: ChannelName | None = None,
    ) -> list[str]:
        """At most two new sub-queries when the evidence is insufficient (semantic text or SPO text)."""

    # -- fan-in
    def synthesise(
        self,
        parsed: ParsedQuestion,
        semantic: SemanticResult,
        relational: RelationalResult,
        semantic_answers: list[SubAnswer],
        relational_answers: list[SubAnswer],
    ) -> Synthesis:
        """Ranked differential, agreement, cited answer; citations point only at retrieved evidence."""
