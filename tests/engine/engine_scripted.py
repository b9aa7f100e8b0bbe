"""A scripted reasoner and backend for testing the engine's wiring in isolation.

They are deliberately simple and deterministic, so that a wiring test fails only when the
graph misroutes, mis-threads `#N`/`Entity#N`, loses events or mishandles citations. The
end-to-end tests use the real offline reasoner and backends instead.
"""

from __future__ import annotations

import re
import threading
import time
import zlib
from dataclasses import dataclass, field

from meddiag.backends.formats import lightrag_items, render_lightrag
from meddiag.errors import ReasonerError
from meddiag.reasoning.base import RankedEntity, SubAnswer
from meddiag.reasoning.fallback import FallbackLog, with_fallback
from meddiag.schema import (
    Agreement,
    Citation,
    DifferentialEntry,
    Finding,
    KGEntity,
    KGEvidence,
    KGTriple,
    ParsedQuestion,
    PatientInput,
    RawContext,
    RelationalHop,
    RelationalResult,
    SemanticHop,
    SemanticResult,
    Synthesis,
    TextEvidence,
    TriplePattern,
    Verification,
)

LABELS = {"HP:0001166": "Arachnodactyly", "HP:0001083": "Ectopia lentis", "HP:0001250": "Seizure"}


@dataclass
class ScriptedReasoner:
    name: str = "scripted"
    delay: float = 0.0  # seconds per step, to make channel overlap measurable
    slow_channel: str | None = None  # this channel's steps take three times as long
    sufficient: bool = True
    expansions: list[str] = field(default_factory=list)
    bad_citation: bool = False
    fallback_in_filter: bool = False  # the filter step fails as an LLM step would, and falls back
    log: FallbackLog = field(default_factory=FallbackLog)
    threads: dict[str, set[int]] = field(default_factory=lambda: {"semantic": set(), "relational": set()})
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _step(self, channel: str | None = None) -> None:
        if channel:
            with self._lock:
                self.threads[channel].add(threading.get_ident())
        if self.delay:
            time.sleep(self.delay * (3 if channel == self.slow_channel else 1))

    def parse_question(self, question: str, patient: PatientInput | None = None) -> ParsedQuestion:
        findings = [
            Finding(hpo_id=i, label=label) for i, label in LABELS.items() if label.lower() in question.lower()
        ]
        if patient is not None:
            findings += [Finding(hpo_id=i, label=LABELS.get(i, i), match="id") for i in patient.observed]
        return ParsedQuestion(text=question or "structured", kind="diagnosis", findings=findings)

    def plan_semantic(self, parsed: ParsedQuestion, initial: list[TextEvidence]) -> list[str]:
        self._step("semantic")
        return [
            "Which disease has " + ", ".join(f.label for f in parsed.findings),
            "What gene causes #1",
            "#7",
        ]

    def ground(self, sub_query: str, answers: dict[int, SubAnswer]) -> tuple[str, list[str]]:
        self._step("semantic")
        unresolved: list[str] = []

        def sub(m: re.Match[str]) -> str:
            n = int(m.group(1))
            if n in answers and answers[n].entities:
                return answers[n].entities[0].name
            unresolved.append(m.group(0))
            return m.group(0)

        return re.sub(r"#(\d+)", sub, sub_query), unresolved

    def filter_passages(self, sub_query, passages, parsed):
        self._step("semantic")
        if not self.fallback_in_filter:
            return passages

        def attempt() -> list:
            raise ReasonerError(f"endpoint timed out ({sub_query[:20]})")

        return with_fallback("filter_passages", attempt, lambda: passages, self.log)

    def summarise_passages(self, sub_query, passages):
        self._step("semantic")
        return " ".join(p.text for p in passages)[:200]

    def answer_semantic(self, sub_query, summary, passages, parsed):
        self._step("semantic")
        return SubAnswer(
            text="Marfan syndrome", entities=[RankedEntity(id="OMIM:154700", name="Marfan syndrome", score=1)]
        )

    def draft_logic_semantic(self, hop: SemanticHop, parsed):
        self._step("semantic")
        return [f"{len(hop.passages)} passages point to {hop.sub_answer}"]

    def plan_relational(self, parsed: ParsedQuestion, initial: KGEvidence) -> list[list[TriplePattern]]:
        self._step("relational")
        first = [
            TriplePattern(subject="?", predicate="HAS_PHENOTYPE", object=f.hpo_id) for f in parsed.findings
        ]
        return [first, [TriplePattern(subject="Entity#1", predicate="ASSOCIATED_GENE", object="?")]]

    def resolve(self, patterns, bindings):
        self._step("relational")
        unresolved: list[str] = []
        out = []
        for p in patterns:
            slots = []
            for slot in (p.subject, p.object):
                m = re.fullmatch(r"Entity#(\d+)", slot)
                if m and int(m.group(1)) in bindings:
                    slot = bindings[int(m.group(1))].entities[0].id
                elif m:
                    unresolved.append(slot)
                slots.append(slot)
            out.append(TriplePattern(subject=slots[0], predicate=p.predicate, object=slots[1]))
        return out, unresolved

    def filter_triples(self, patterns, triples, parsed):
        self._step("relational")
        return triples, 0

    def summarise_triples(self, triples):
        self._step("relational")
        return "; ".join(t.key for t in triples)

    def answer_relational(self, patterns, triples, parsed):
        self._step("relational")
        return SubAnswer(
            text="Marfan syndrome", entities=[RankedEntity(id="OMIM:154700", name="Marfan syndrome", score=1)]
        )

    def draft_logic_relational(self, hop: RelationalHop, parsed):
        self._step("relational")
        return [f"{len(hop.triples)} triples"]

    def verify(self, parsed, answers):
        return Verification(sufficient=self.sufficient, reason="scripted")

    def expand(self, parsed, answers, verification, channel=None):
        return list(self.expansions)

    def synthesise(
        self,
        parsed,
        semantic: SemanticResult,
        relational: RelationalResult,
        semantic_answers,
        relational_answers,
    ):
        citations: list[Citation] = []
        for hop in semantic.hops:
            for p in hop.passages[:1]:
                citations.append(
                    Citation(
                        n=len(citations) + 1,
                        kind="passage",
                        channel="semantic",
                        hop=hop.index,
                        doc_id=p.doc_id,
                    )
                )
        for hop in relational.hops:
            for t in hop.triples[:1]:
                citations.append(
                    Citation(
                        n=len(citations) + 1,
                        kind="triple",
                        channel="relational",
                        hop=hop.index,
                        subject=t.subject,
                        predicate=t.predicate,
                        object=t.object,
                    )
                )
        if self.bad_citation:
            citations.append(
                Citation(
                    n=len(citations) + 1, kind="passage", channel="semantic", hop=1, doc_id="never/retrieved"
                )
            )
        return Synthesis(
            answer="Marfan syndrome",
            differential=[
                DifferentialEntry(
                    id="OMIM:154700", name="Marfan syndrome", score=1.0, citations=[c.n for c in citations]
                )
            ],
            citations=citations,
            agreement=Agreement(status="agree", detail="scripted"),
        )


@dataclass
class ScriptedBackend:
    """Answers in LightRAG's context format; remembers every call."""

    fail: Exception | None = None
    calls: list[dict] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def retrieve(self, query, *, keywords=None, seeds=(), top_k=20, exclude_sources=frozenset(), mode="mix"):
        with self._lock:
            self.calls.append(
                {"query": query, "seeds": tuple(seeds), "mode": mode, "exclude": exclude_sources}
            )
        if self.fail is not None:
            raise self.fail
        # Named by what was asked, not by call order, which differs between runs.
        n = f"{mode}-{zlib.crc32(query.encode()) % 10_000}"
        entities = [KGEntity(name="Marfan syndrome", type="Disease", description="x", id="OMIM:154700")]
        triples = [
            KGTriple(
                subject="Marfan syndrome",
                predicate="HAS_PHENOTYPE",
                object=f"Finding {n}",
                subject_id="OMIM:154700",
                object_id=f"X:{n}",
                provenance=["OMIM:154700"],
            )
        ]
        passages = [TextEvidence(ref_id="0", doc_id=f"profile/{n}", text=f"Marfan syndrome, call {n}.")]
        return RawContext(
            backend="lightrag",
            query=query,
            text=render_lightrag(entities, triples, passages),
            items=lightrag_items(entities, triples, passages),
        )
