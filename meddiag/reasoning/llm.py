"""The LLM reasoner: each step asks an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio).

One prompt per step (`prompts.py`), a JSON reply validated with pydantic, a timeout and
retries from settings. Any failure — endpoint unreachable, timeout, HTTP error, a reply
that is not the requested JSON, or a reply naming evidence that no hop retrieved — makes
that step fall back to the offline reasoner, recorded in `fallbacks` (`fallback.py`).
An endpoint that cannot be reached, times out or answers with an HTTP error is not asked
again for `UNREACHABLE_PAUSE_S`: one ask runs some thirty steps, and waiting out the timeout
on each of them would keep a clinician waiting many minutes for the offline answer.

Steps that are mechanical or must be exact stay offline by design: linking the question
to HPO ids (`parse_question`), substituting ``#N`` (`ground`) and ``Entity#N`` (`resolve`).
Scores are never taken from the model: it may reorder candidates, but only among those
the evidence produced, and each keeps its evidence-based score.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, Field, ValidationError

from meddiag.config import Settings
from meddiag.errors import ReasonerError
from meddiag.knowledge.model import PREDICATES, visible
from meddiag.reasoning import prompts
from meddiag.reasoning.base import RankedEntity, Reasoner, SubAnswer
from meddiag.reasoning.fallback import FallbackLog, with_fallback
from meddiag.schema import (
    ChannelName,
    Citation,
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

R = TypeVar("R", bound=BaseModel)
_REF = re.compile(r"#(\d+)")
_PATTERN = re.compile(r"\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)")
_MARKER = re.compile(r"\[(\d+)\]")
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")
MAX_EVIDENCE = 60


# --------------------------------------------------------------------------- reply shapes


class _SubQueries(BaseModel):
    sub_queries: list[str] = Field(min_length=1, max_length=8)


class _Keep(BaseModel):
    keep: list[str]


class _KeepIndex(BaseModel):
    keep: list[int]


class _Summary(BaseModel):
    summary: str = Field(min_length=1)


class _Answer(BaseModel):
    answer: str = Field(min_length=1)
    entity_ids: list[str] = Field(default_factory=list)


class _Steps(BaseModel):
    steps: list[str] = Field(min_length=1, max_length=12)


class _Pattern(BaseModel):
    subject: str
    predicate: str
    object: str


class _Hops(BaseModel):
    hops: list[list[_Pattern]] = Field(min_length=1, max_length=8)


class _Verdict(BaseModel):
    sufficient: bool
    reason: str = Field(min_length=1)


class _Final(BaseModel):
    answer: str = Field(min_length=1)
    order: list[str] = Field(default_factory=list)


# --------------------------------------------------------------------------- transport

UNREACHABLE_PAUSE_S = 30.0


class _EndpointDown(ReasonerError):
    """The endpoint itself failed (transport, timeout, HTTP status), not one reply's content."""


class ChatClient:
    """`POST {base_url}/chat/completions` with retries; every failure becomes a `ReasonerError`."""

    def __init__(self, settings: Settings, client: httpx.Client | None = None) -> None:
        if not settings.uses_llm:
            raise ReasonerError(
                "No LLM endpoint is configured (set MEDDIAG_LLM_BASE_URL and MEDDIAG_LLM_MODEL)."
            )
        self.model = settings.llm_model
        self.retries = max(0, settings.llm_retries)
        key = settings.llm_api_key.get_secret_value()
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = client or httpx.Client(
            base_url=settings.llm_base_url.rstrip("/"), timeout=settings.llm_timeout_s, headers=headers
        )
        # Set when the endpoint failed: until then every step falls back at once, same reason.
        self._down_until = 0.0
        self._down_reason = ""

    def ask(self, prompt: str, shape: type[R]) -> R:
        """The model's reply to `prompt`, validated as `shape`; the last error after all retries."""
        if time.monotonic() < self._down_until:
            raise ReasonerError(f"the language model failed: {self._down_reason}")
        error = "no attempt"
        for _ in range(self.retries + 1):
            try:
                return shape.model_validate(_json_object(self._complete(prompt)))
            except _EndpointDown as err:
                error = str(err)
                self._down_reason, self._down_until = error, time.monotonic() + UNREACHABLE_PAUSE_S
            except ReasonerError as err:
                error = str(err)
                self._down_until = 0.0  # it answered: whatever failed, the endpoint is up
            except ValidationError as err:
                error = f"the reply does not have the expected fields ({err.error_count()} problem(s))"
                self._down_until = 0.0
        raise ReasonerError(f"the language model failed: {error}")

    def _complete(self, prompt: str) -> str:
        body = {
            "model": self.model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "system", "content": prompts.SYSTEM}, {"role": "user", "content": prompt}],
        }
        try:
            response = self._http.post("/chat/completions", json=body)
        except httpx.TimeoutException as err:
            raise _EndpointDown(f"the endpoint did not answer in time ({type(err).__name__})") from err
        except httpx.HTTPError as err:
            raise _EndpointDown(f"the endpoint cannot be reached ({type(err).__name__}: {err})") from err
        if response.status_code != 200:
            raise _EndpointDown(f"the endpoint answered HTTP {response.status_code}")
        try:
            return str(response.json()["choices"][0]["message"]["content"])
        except (ValueError, KeyError, IndexError, TypeError) as err:
            raise ReasonerError("the endpoint's reply is not an OpenAI-style chat completion") from err

    def close(self) -> None:
        self._http.close()


def _json_object(content: str) -> Any:
    text = _FENCE.sub("", content.strip())
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ReasonerError("the reply is not valid JSON") from err


def check_endpoint(settings: Settings, client: httpx.Client | None = None) -> tuple[bool, str]:
    """Whether the configured endpoint answers `GET /models`, with a message for the Settings page."""
    if not settings.uses_llm:
        return False, "No LLM endpoint is configured; the offline reasoner is used."
    key = settings.llm_api_key.get_secret_value()
    http = client or httpx.Client(
        base_url=settings.llm_base_url.rstrip("/"),
        timeout=min(settings.llm_timeout_s, 5.0),
        headers={"Authorization": f"Bearer {key}"} if key else {},
    )
    try:
        response = http.get("/models")
    except httpx.HTTPError as err:
        return False, f"{settings.llm_base_url} cannot be reached ({type(err).__name__})."
    finally:
        if client is None:
            http.close()
    if response.status_code != 200:
        return False, f"{settings.llm_base_url} answered HTTP {response.status_code} to GET /models."
    try:
        listed = [str(m.get("id")) for m in response.json().get("data", [])]
    except (ValueError, AttributeError) as err:
        return False, f"{settings.llm_base_url} does not answer like an OpenAI-compatible API ({err})."
    if settings.llm_model in listed:
        return True, f"{settings.llm_base_url} is reachable and serves {settings.llm_model}."
    return (
        True,
        f"{settings.llm_base_url} is reachable but does not list {settings.llm_model}; it may still serve it.",
    )


# --------------------------------------------------------------------------- formatting


def _findings(parsed: ParsedQuestion, excluded: bool, ids: bool = False) -> str:
    items = [f"{f.hpo_id}: {f.label}" if ids else f.label for f in parsed.findings if f.excluded == excluded]
    return "; ".join(items) or "none"


def _passages(passages: Sequence[TextEvidence]) -> str:
    return "\n".join(f"{p.ref_id}: {' '.join(p.text.split())[:700]}" for p in passages)


def _triples(triples: Sequence[KGTriple]) -> str:
    return "\n".join(
        f"{i}: {t.subject} | {t.predicate} | {t.object} | {'' if t.frequency is None else f'{t.frequency:.2f}'}"
        for i, t in enumerate(triples)
    )


def _answers(answers: Sequence[SubAnswer]) -> str:
    return "\n".join(
        f"{i}. {a.text} [entities: {', '.join(f'{e.id} {e.name} ({e.score:g})' for e in a.entities[:5])}]"
        for i, a in enumerate(answers, 1)
    )


def _reorder(entities: Sequence[RankedEntity], order: Sequence[str], what: str) -> list[RankedEntity]:
    """The model's order over known entities; an id outside them is rejected (never invented)."""
    by_id = {e.id: e for e in entities}
    unknown = [i for i in order if i not in by_id]
    if unknown:
        raise ReasonerError(
            f"the model named {what} that the evidence does not contain: {', '.join(unknown[:3])}"
        )
    chosen = list(dict.fromkeys(order))
    return [by_id[i] for i in chosen] + [e for e in entities if e.id not in chosen]


# --------------------------------------------------------------------------- the reasoner


class LLMReasoner:
    """Reasoner over an OpenAI-compatible endpoint, falling back per step to `fallback` (offline)."""

    def __init__(self, settings: Settings, *, fallback: Reasoner, client: httpx.Client | None = None) -> None:
        self.offline = fallback
        self.chat = ChatClient(settings, client)
        self.name = f"llm:{settings.llm_model}"
        self.max_hops = settings.max_hops
        self._log = FallbackLog()
        self.fallbacks: list[str] = self._log.entries

    def _step(self, step: str, attempt: Any, offline: Any) -> Any:
        return with_fallback(step, attempt, offline, self._log)

    # -- understanding (offline by design: HPO ids must come from the ontology)

    def parse_question(self, question: str, patient: PatientInput | None = None) -> ParsedQuestion:
        return self.offline.parse_question(question, patient)

    # -- semantic channel

    def plan_semantic(self, parsed: ParsedQuestion, initial: list[TextEvidence]) -> list[str]:
        def attempt() -> list[str]:
            reply = self.chat.ask(
                prompts.PLAN_SEMANTIC.format(
                    max_hops=self.max_hops,
                    kind=parsed.kind,
                    observed=_findings(parsed, False),
                    excluded=_findings(parsed, True),
                    diseases=", ".join(self._disease_lines(parsed.diseases)) or "none",
                    question=parsed.text,
                ),
                _SubQueries,
            )
            for k, q in enumerate(reply.sub_queries, 1):
                if any(int(n) >= k for n in _REF.findall(q)):
                    raise ReasonerError(f"sub-query {k} points forward to a later answer")
            return reply.sub_queries[: self.max_hops]

        return self._step("plan_semantic", attempt, lambda: self.offline.plan_semantic(parsed, initial))

    def _disease_lines(self, ids: Sequence[str]) -> list[str]:
        """Lines "id: name" for the prompt (names from the offline resources when available)."""
        res = getattr(self.offline, "res", None)
        return [f"{i}: {res.name(i)}" if res else i for i in ids]

    def ground(self, sub_query: str, answers: dict[int, SubAnswer]) -> tuple[str, list[str]]:
        return self.offline.ground(sub_query, answers)

    def filter_passages(
        self, sub_query: str, passages: list[TextEvidence], parsed: ParsedQuestion
    ) -> list[TextEvidence]:
        if not passages:
            return []

        def attempt() -> list[TextEvidence]:
            reply = self.chat.ask(
                prompts.FILTER_PASSAGES.format(
                    sub_query=sub_query, observed=_findings(parsed, False), passages=_passages(passages)
                ),
                _Keep,
            )
            by_ref = {p.ref_id: p for p in passages}
            unknown = [r for r in reply.keep if r not in by_ref]
            if unknown:
                raise ReasonerError(
                    f"the model kept passages that were not retrieved: {', '.join(unknown[:3])}"
                )
            excluded = frozenset(parsed.exclude_sources)
            return [by_ref[r] for r in dict.fromkeys(reply.keep) if visible(by_ref[r].provenance, excluded)]

        return self._step(
            "filter_passages", attempt, lambda: self.offline.filter_passages(sub_query, passages, parsed)
        )

    def summarise_passages(self, sub_query: str, passages: list[TextEvidence]) -> str:
        if not passages:
            return self.offline.summarise_passages(sub_query, passages)

        def attempt() -> str:
            reply = self.chat.ask(
                prompts.SUMMARISE_PASSAGES.format(sub_query=sub_query, passages=_passages(passages)), _Summary
            )
            return reply.summary

        return self._step(
            "summarise_passages", attempt, lambda: self.offline.summarise_passages(sub_query, passages)
        )

    def answer_semantic(
        self, sub_query: str, summary: str, passages: list[TextEvidence], parsed: ParsedQuestion
    ) -> SubAnswer:
        base = self.offline.answer_semantic(sub_query, summary, passages, parsed)
        if not base.entities:
            return base

        def attempt() -> SubAnswer:
            reply = self.chat.ask(
                prompts.ANSWER_SEMANTIC.format(
                    sub_query=sub_query,
                    observed=_findings(parsed, False),
                    excluded=_findings(parsed, True),
                    summary=summary,
                    candidates="\n".join(f"{e.id}: {e.name}" for e in base.entities),
                ),
                _Answer,
            )
            entities = _reorder(base.entities, reply.entity_ids, "entities")
            return SubAnswer(text=reply.answer, entities=entities, channel="semantic")

        return self._step("answer_semantic", attempt, lambda: base)

    def draft_logic_semantic(self, hop: SemanticHop, parsed: ParsedQuestion) -> list[str]:
        def attempt() -> list[str]:
            shown = hop.model_copy(update={"passages": hop.passages[:6]}).model_dump_json(indent=1)
            return self.chat.ask(prompts.DRAFT_LOGIC.format(hop=shown[:6000]), _Steps).steps

        return self._step(
            "draft_logic_semantic", attempt, lambda: self.offline.draft_logic_semantic(hop, parsed)
        )

    # -- relational channel

    def plan_relational(self, parsed: ParsedQuestion, initial: KGEvidence) -> list[list[TriplePattern]]:
        def attempt() -> list[list[TriplePattern]]:
            reply = self.chat.ask(
                prompts.PLAN_RELATIONAL.format(
                    max_hops=self.max_hops,
                    predicates=", ".join(PREDICATES),
                    kind=parsed.kind,
                    observed=_findings(parsed, False, ids=True),
                    excluded=_findings(parsed, True, ids=True),
                    diseases="; ".join(self._disease_lines(parsed.diseases)) or "none",
                    question=parsed.text,
                ),
                _Hops,
            )
            hops: list[list[TriplePattern]] = []
            for hop in reply.hops[: self.max_hops]:
                patterns = []
                for p in hop:
                    predicate = p.predicate.strip().upper().replace(" ", "_")
                    if predicate not in PREDICATES:
                        raise ReasonerError(f"the model used an unknown predicate {p.predicate!r}")
                    patterns.append(
                        TriplePattern(subject=p.subject.strip(), predicate=predicate, object=p.object.strip())
                    )
                if patterns:
                    hops.append(patterns)
            if not hops:
                raise ReasonerError("the model planned no pattern")
            return hops

        return self._step("plan_relational", attempt, lambda: self.offline.plan_relational(parsed, initial))

    def resolve(
        self, patterns: list[TriplePattern], bindings: dict[int, SubAnswer]
    ) -> tuple[list[TriplePattern], list[str]]:
        return self.offline.resolve(patterns, bindings)

    def filter_triples(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> tuple[list[KGTriple], int]:
        # The offline filter first (pattern match, frequency, excluded sources); the model prunes further.
        kept, dropped = self.offline.filter_triples(patterns, triples, parsed)
        if not kept:
            return kept, dropped

        def attempt() -> tuple[list[KGTriple], int]:
            reply = self.chat.ask(
                prompts.FILTER_TRIPLES.format(
                    patterns="; ".join(map(str, patterns)),
                    observed=_findings(parsed, False),
                    triples=_triples(kept),
                ),
                _KeepIndex,
            )
            if any(not 0 <= i < len(kept) for i in reply.keep):
                raise ReasonerError("the model kept triples that were not retrieved")
            chosen = [kept[i] for i in dict.fromkeys(reply.keep)]
            return chosen, len(triples) - len(chosen)

        return self._step("filter_triples", attempt, lambda: (kept, dropped))

    def summarise_triples(self, triples: list[KGTriple]) -> str:
        if not triples:
            return self.offline.summarise_triples(triples)

        def attempt() -> str:
            return self.chat.ask(
                prompts.SUMMARISE_TRIPLES.format(triples=_triples(triples)), _Summary
            ).summary

        return self._step("summarise_triples", attempt, lambda: self.offline.summarise_triples(triples))

    def answer_relational(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> SubAnswer:
        base = self.offline.answer_relational(patterns, triples, parsed)
        if not base.entities:
            return base

        def attempt() -> SubAnswer:
            reply = self.chat.ask(
                prompts.ANSWER_RELATIONAL.format(
                    patterns="; ".join(map(str, patterns)),
                    observed=_findings(parsed, False),
                    excluded=_findings(parsed, True),
                    triples=_triples(triples),
                    candidates="\n".join(f"{e.id}: {e.name}, {e.score:g}" for e in base.entities),
                ),
                _Answer,
            )
            entities = _reorder(base.entities, reply.entity_ids, "entities")
            return SubAnswer(text=reply.answer, entities=entities, channel="relational")

        return self._step("answer_relational", attempt, lambda: base)

    def draft_logic_relational(self, hop: RelationalHop, parsed: ParsedQuestion) -> list[str]:
        def attempt() -> list[str]:
            shown = hop.model_copy(update={"triples": hop.triples[:30]}).model_dump_json(indent=1)
            return self.chat.ask(prompts.DRAFT_LOGIC.format(hop=shown[:6000]), _Steps).steps

        return self._step(
            "draft_logic_relational", attempt, lambda: self.offline.draft_logic_relational(hop, parsed)
        )

    # -- both channels

    def verify(self, parsed: ParsedQuestion, answers: list[SubAnswer]) -> Verification:
        if not answers:
            return self.offline.verify(parsed, answers)

        def attempt() -> Verification:
            reply = self.chat.ask(
                prompts.VERIFY.format(
                    kind=parsed.kind, observed=_findings(parsed, False), answers=_answers(answers)
                ),
                _Verdict,
            )
            return Verification(sufficient=reply.sufficient, reason=reply.reason)

        return self._step("verify", attempt, lambda: self.offline.verify(parsed, answers))

    def expand(
        self,
        parsed: ParsedQuestion,
        answers: list[SubAnswer],
        verification: Verification,
        channel: ChannelName | None = None,
    ) -> list[str]:
        if verification.sufficient:
            return []
        channel = channel or next((a.channel for a in reversed(answers) if a.channel), None)

        def attempt() -> list[str]:
            if channel == "relational":
                prompt = prompts.EXPAND_RELATIONAL.format(
                    reason=verification.reason,
                    observed=_findings(parsed, False, ids=True),
                    answers=_answers(answers),
                    predicates=", ".join(PREDICATES),
                )
            else:
                prompt = prompts.EXPAND_SEMANTIC.format(
                    reason=verification.reason, observed=_findings(parsed, False), answers=_answers(answers)
                )
            queries = self.chat.ask(prompt, _SubQueries).sub_queries[:2]
            if channel == "relational" and not all(_PATTERN.search(q) for q in queries):
                raise ReasonerError(
                    "a knowledge-graph follow-up is not a (subject, predicate, object) pattern"
                )
            return queries

        return self._step(
            "expand", attempt, lambda: self.offline.expand(parsed, answers, verification, channel=channel)
        )

    # -- fan-in

    def synthesise(
        self,
        parsed: ParsedQuestion,
        semantic: SemanticResult,
        relational: RelationalResult,
        semantic_answers: list[SubAnswer],
        relational_answers: list[SubAnswer],
    ) -> Synthesis:
        base = self.offline.synthesise(parsed, semantic, relational, semantic_answers, relational_answers)
        evidence = _evidence(semantic, relational)
        if not evidence:
            return base

        def attempt() -> Synthesis:
            reply = self.chat.ask(
                prompts.SYNTHESISE.format(
                    question=parsed.text,
                    differential="\n".join(
                        f"{d.id}: {d.name}; for {', '.join(d.for_) or '-'}; against {', '.join(d.against) or '-'}; "
                        f"{'+'.join(d.channels)}; {', '.join(d.genes) or '-'}"
                        for d in base.differential
                    )
                    or "none",
                    evidence="\n".join(f"{k}: {_evidence_text(c)}" for k, c in enumerate(evidence, 1)),
                    agreement=base.agreement.detail,
                ),
                _Final,
            )
            return _cited_synthesis(reply, evidence, base)

        return self._step(
            "synthesise",
            attempt,
            lambda: base,
        )


def _evidence(semantic: SemanticResult, relational: RelationalResult) -> list[Citation]:
    """Every passage and triple the hops kept, as would-be citations (numbered later)."""
    out: list[Citation] = []
    seen: set[tuple[str, str]] = set()
    for h in semantic.hops:
        for p in h.passages:
            key = ("p", p.doc_id or p.ref_id)
            if key not in seen:
                seen.add(key)
                out.append(
                    Citation(
                        n=0,
                        kind="passage",
                        channel="semantic",
                        hop=h.index,
                        doc_id=p.doc_id or p.ref_id,
                        text=p.text[:400],
                        provenance=list(p.provenance),
                    )
                )
    for rh in relational.hops:
        for t in rh.triples:
            key = ("t", t.key)
            if key not in seen:
                seen.add(key)
                out.append(
                    Citation(
                        n=0,
                        kind="triple",
                        channel="relational",
                        hop=rh.index,
                        subject=t.subject,
                        predicate=t.predicate,
                        object=t.object,
                        provenance=list(t.provenance),
                    )
                )
    return out[:MAX_EVIDENCE]


def _evidence_text(c: Citation) -> str:
    if c.kind == "passage":
        return f"[{c.doc_id}] {' '.join(c.text.split())[:300]}"
    return f"{c.subject} | {c.predicate} | {c.object}"


def _cited_synthesis(reply: _Final, evidence: list[Citation], base: Synthesis) -> Synthesis:
    """The model's paragraph with its markers renumbered onto retrieved evidence; anything else is refused."""
    used = [int(n) for n in _MARKER.findall(reply.answer)]
    if any(not 1 <= n <= len(evidence) for n in used):
        raise ReasonerError("the answer cites evidence that was not retrieved")
    if base.citations and not used:
        raise ReasonerError("the answer cites no evidence")
    renumber = {old: new for new, old in enumerate(dict.fromkeys(used), 1)}
    citations = [evidence[old - 1].model_copy(update={"n": new}) for old, new in renumber.items()]
    answer = _MARKER.sub(lambda m: f"[{renumber[int(m.group(1))]}]", reply.answer)
    by_id = {d.id: d for d in base.differential}
    unknown = [i for i in reply.order if i not in by_id]
    if unknown:
        raise ReasonerError(f"the model added candidates that no channel found: {', '.join(unknown[:3])}")
    order = list(dict.fromkeys(reply.order)) + [d.id for d in base.differential if d.id not in reply.order]
    # A named gene's diseases are the differential's first tier (ranking step 7): the model
    # may reorder within a tier, never across it.
    order.sort(key=lambda i: not by_id[i].genes)
    # Per-candidate citation lists point at the offline numbering; re-point them where the same evidence was cited.
    key = {_citation_key(c): c.n for c in citations}
    old = {c.n: _citation_key(c) for c in base.citations}
    differential = [
        by_id[i].model_copy(
            update={"citations": [key[old[n]] for n in by_id[i].citations if old.get(n) in key]}
        )
        for i in order
    ]
    return Synthesis(answer=answer, differential=differential, citations=citations, agreement=base.agreement)


def _citation_key(c: Citation) -> tuple[str, ...]:
    return (c.kind, c.doc_id, c.subject, c.predicate, c.object)
