"""The LLM reasoner against an OpenAI-compatible HTTP server started by the test.

This checks protocol, validation and fallback — not model quality: the server returns
scripted replies, and the tests assert that valid JSON is used, that invalid JSON,
timeouts, an unreachable endpoint and citations to evidence no hop retrieved all fall
back to the offline reasoner, and that every fallback is recorded.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import SecretStr

from meddiag.config import Settings
from meddiag.knowledge.hpo import Ontology
from meddiag.reasoning import llm as llm_module
from meddiag.reasoning.llm import LLMReasoner, check_endpoint
from meddiag.reasoning.offline import OfflineReasoner
from meddiag.schema import KGEvidence, RelationalHop, RelationalResult, SemanticHop, SemanticResult
from meddiag.service import MedDiagService
from tests.ports import free_port
from tests.reasoning import world

VIGNETTE = "A 14-year-old boy with spider fingers, aortic root dilatation and tall stature. No intellectual disability."

Reply = tuple[int, str, float]  # HTTP status, message content, delay in seconds


class ScriptedLLM:
    """A tiny OpenAI-compatible server: `/chat/completions` answers from `script`, `/models` lists one model."""

    def __init__(self) -> None:
        self.script: Callable[[str], Reply] = lambda prompt: (200, "{}", 0.0)
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                outer.listed_for.append(self.headers.get("Authorization"))
                self._send(200, {"object": "list", "data": [{"id": "test-model", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                body["_auth"] = self.headers.get("Authorization")
                outer.requests.append(body)
                status, content, delay = outer.script(body["messages"][-1]["content"])
                time.sleep(delay)
                choice = {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
                # The client may have given up already (timeout test).
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._send(status, {"id": "x", "object": "chat.completion", "choices": [choice]})

        self.listed_for: list[str | None] = []  # the Authorization header of each GET /models
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def llm_server() -> Iterator[ScriptedLLM]:
    server = ScriptedLLM()
    yield server
    server.close()


def _settings(url: str, **changes: Any) -> Settings:
    values: dict[str, Any] = {
        "llm_base_url": url,
        "llm_model": "test-model",
        "llm_api_key": SecretStr("sk-test"),
        "llm_timeout_s": 2.0,
        "llm_retries": 0,
    }
    values.update(changes)
    return Settings(**values)


def _reasoner(url: str, offline: OfflineReasoner, **changes: Any) -> LLMReasoner:
    return LLMReasoner(_settings(url, **changes), fallback=offline)


def test_valid_json_reply_is_used(llm_server: ScriptedLLM, reasoner: OfflineReasoner) -> None:
    llm_server.script = lambda prompt: (
        200,
        json.dumps({"sub_queries": ["Which diseases fit?", "Genes of #1?"]}),
        0,
    )
    llm = _reasoner(llm_server.url, reasoner)
    parsed = llm.parse_question(VIGNETTE)
    assert llm.plan_semantic(parsed, []) == ["Which diseases fit?", "Genes of #1?"]
    assert llm.fallbacks == []
    sent = llm_server.requests[0]
    assert sent["model"] == "test-model" and sent["_auth"] == "Bearer sk-test"
    assert "<data>" + parsed.text + "</data>" in sent["messages"][-1]["content"]


def test_invalid_json_falls_back_and_is_recorded(llm_server: ScriptedLLM, reasoner: OfflineReasoner) -> None:
    llm_server.script = lambda prompt: (200, "Sure! Here are some sub-queries: …", 0)
    llm = _reasoner(llm_server.url, reasoner)
    parsed = llm.parse_question(VIGNETTE)
    assert llm.plan_semantic(parsed, []) == reasoner.plan_semantic(parsed, [])
    assert len(llm.fallbacks) == 1 and llm.fallbacks[0].startswith("plan_semantic:")
    assert "not valid JSON" in llm.fallbacks[0]


def test_wrong_shape_and_forward_references_fall_back(
    llm_server: ScriptedLLM, reasoner: OfflineReasoner
) -> None:
    replies = iter([json.dumps({"queries": ["x"]}), json.dumps({"sub_queries": ["What about #2?", "Fine"]})])
    llm_server.script = lambda prompt: (200, next(replies), 0)
    llm = _reasoner(llm_server.url, reasoner)
    parsed = llm.parse_question(VIGNETTE)
    llm.plan_semantic(parsed, [])
    llm.plan_semantic(parsed, [])
    assert "expected fields" in llm.fallbacks[0]
    assert "points forward" in llm.fallbacks[1]


def test_retry_recovers_from_one_bad_reply(llm_server: ScriptedLLM, reasoner: OfflineReasoner) -> None:
    replies = iter(["not json", json.dumps({"sub_queries": ["Which diseases fit?"]})])
    llm_server.script = lambda prompt: (200, next(replies), 0)
    llm = _reasoner(llm_server.url, reasoner, llm_retries=1)
    assert llm.plan_semantic(llm.parse_question(VIGNETTE), []) == ["Which diseases fit?"]
    assert llm.fallbacks == [] and len(llm_server.requests) == 2


def test_timeout_falls_back(llm_server: ScriptedLLM, reasoner: OfflineReasoner) -> None:
    llm_server.script = lambda prompt: (200, json.dumps({"sufficient": True, "reason": "late"}), 1.5)
    llm = _reasoner(llm_server.url, reasoner, llm_timeout_s=0.3)
    parsed = llm.parse_question(VIGNETTE)
    answers = [reasoner.answer_semantic("q", "", world.passages(), parsed)]
    assert llm.verify(parsed, answers) == reasoner.verify(parsed, answers)
    assert "in time" in llm.fallbacks[0]


def test_http_error_falls_back(llm_server: ScriptedLLM, reasoner: OfflineReasoner) -> None:
    llm_server.script = lambda prompt: (500, "{}", 0)
    llm = _reasoner(llm_server.url, reasoner)
    assert llm.summarise_triples([]) == reasoner.summarise_triples([])  # nothing to ask: no request
    llm.summarise_passages("q", world.passages()[:1])
    assert "HTTP 500" in llm.fallbacks[0]


def test_unreachable_endpoint_falls_back(reasoner: OfflineReasoner) -> None:
    llm = _reasoner(f"http://127.0.0.1:{free_port()}/v1", reasoner)
    parsed = llm.parse_question(VIGNETTE)
    assert llm.plan_relational(parsed, KGEvidence()) == reasoner.plan_relational(parsed, KGEvidence())
    assert "cannot be reached" in llm.fallbacks[0]


def test_a_failed_endpoint_is_not_asked_again_for_a_while(
    llm_server: ScriptedLLM, reasoner: OfflineReasoner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One ask runs some thirty steps: after the endpoint fails, the rest fall back at once."""
    monkeypatch.setattr(llm_module, "UNREACHABLE_PAUSE_S", 0.5)
    llm_server.script = lambda prompt: (503, "{}", 0)
    llm = _reasoner(llm_server.url, reasoner)
    parsed = llm.parse_question(VIGNETTE)
    llm.plan_semantic(parsed, [])
    llm.plan_relational(parsed, KGEvidence())
    assert len(llm_server.requests) == 1
    # the same reason, so a person reads one failure, not one per step
    assert llm.fallbacks[1].partition(": ")[2] == llm.fallbacks[0].partition(": ")[2]
    assert "HTTP 503" in llm.fallbacks[1]
    time.sleep(0.6)
    llm_server.script = lambda prompt: (200, json.dumps({"sub_queries": ["Which diseases fit?"]}), 0)
    assert llm.plan_semantic(parsed, []) == ["Which diseases fit?"]  # asked again once the pause is over
    assert len(llm_server.requests) == 2


def test_a_bad_reply_does_not_pause_the_endpoint(llm_server: ScriptedLLM, reasoner: OfflineReasoner) -> None:
    llm_server.script = lambda prompt: (200, "not json", 0)
    llm = _reasoner(llm_server.url, reasoner)
    parsed = llm.parse_question(VIGNETTE)
    llm.plan_semantic(parsed, [])
    llm.plan_semantic(parsed, [])
    assert len(llm_server.requests) == 2  # the endpoint works; only that reply was unusable


def test_unknown_entities_are_rejected(llm_server: ScriptedLLM, reasoner: OfflineReasoner) -> None:
    llm_server.script = lambda prompt: (
        200,
        json.dumps({"answer": "It is X.", "entity_ids": ["OMIM:999999"]}),
        0,
    )
    llm = _reasoner(llm_server.url, reasoner)
    parsed = llm.parse_question(VIGNETTE)
    answer = llm.answer_semantic("Which diseases?", "", world.passages(), parsed)
    assert answer == reasoner.answer_semantic("Which diseases?", "", world.passages(), parsed)
    assert "does not contain" in llm.fallbacks[0]


def _hops(
    reasoner: OfflineReasoner, onto: Ontology, question: str = VIGNETTE
) -> tuple[Any, SemanticResult, RelationalResult, list, list]:
    parsed = reasoner.parse_question(question)
    passages = reasoner.filter_passages(
        "Which diseases present with arachnodactyly?", world.passages(), parsed
    )
    sem_answer = reasoner.answer_semantic("Which diseases?", "", passages, parsed)
    patterns = reasoner.plan_relational(parsed, KGEvidence())[0]
    triples, dropped = reasoner.filter_triples(
        patterns, [world.triple(r, onto) for r in world.relations()], parsed
    )
    rel_answer = reasoner.answer_relational(patterns, triples, parsed)
    semantic = SemanticResult(
        hops=[SemanticHop(index=1, sub_query="q", grounded_query="q", passages=passages)]
    )
    relational = RelationalResult(
        hops=[
            RelationalHop(
                index=1, triple_queries=patterns, resolved_queries=patterns, triples=triples, dropped=dropped
            )
        ]
    )
    return parsed, semantic, relational, [sem_answer], [rel_answer]


def test_synthesis_citations_are_renumbered_onto_retrieved_evidence(
    llm_server: ScriptedLLM, reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    run = _hops(reasoner, tiny_ontology)
    llm_server.script = lambda prompt: (
        200,
        json.dumps(
            {"answer": "Marfan syndrome fits [4][1]. It is autosomal dominant [1].", "order": [world.MARFAN]}
        ),
        0,
    )
    llm = _reasoner(llm_server.url, reasoner)
    result = llm.synthesise(*run)
    assert llm.fallbacks == []
    assert result.answer == "Marfan syndrome fits [1][2]. It is autosomal dominant [2]."
    assert [c.n for c in result.citations] == [1, 2]
    semantic, relational = run[1], run[2]
    retrieved_docs = {p.doc_id for h in semantic.hops for p in h.passages}
    retrieved_triples = {(t.subject, t.predicate, t.object) for h in relational.hops for t in h.triples}
    for c in result.citations:
        assert (
            c.doc_id in retrieved_docs
            if c.kind == "passage"
            else (c.subject, c.predicate, c.object) in retrieved_triples
        )
    assert result.differential[0].id == world.MARFAN


def test_synthesis_citing_unretrieved_evidence_falls_back(
    llm_server: ScriptedLLM, reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    run = _hops(reasoner, tiny_ontology)
    llm_server.script = lambda prompt: (200, json.dumps({"answer": "Marfan syndrome [99].", "order": []}), 0)
    llm = _reasoner(llm_server.url, reasoner)
    result = llm.synthesise(*run)
    assert result == reasoner.synthesise(*run)
    assert "not retrieved" in llm.fallbacks[0]


def test_the_model_may_reorder_but_a_named_genes_disease_stays_first(
    llm_server: ScriptedLLM, reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    run = _hops(reasoner, tiny_ontology, VIGNETTE + " Genetic testing found a variant in TGFBR1.")
    base = reasoner.synthesise(*run)
    assert base.differential[0].id == world.LDS and base.differential[0].genes == ["TGFBR1"]
    prompts: list[str] = []

    def reply(prompt: str) -> tuple[int, str, int]:
        prompts.append(prompt)
        return 200, json.dumps({"answer": "Marfan syndrome fits [1].", "order": [world.MARFAN, world.LDS]}), 0

    llm_server.script = reply
    llm = _reasoner(llm_server.url, reasoner)
    result = llm.synthesise(*run)
    assert llm.fallbacks == []
    assert [d.id for d in result.differential][:2] == [world.LDS, world.MARFAN]
    assert any(f"{world.LDS}: " in p and "TGFBR1" in p and "stay above all others" in p for p in prompts)


def test_check_endpoint_reports_reachability(llm_server: ScriptedLLM) -> None:
    ok, message = check_endpoint(_settings(llm_server.url))
    assert ok and "test-model" in message
    ok, message = check_endpoint(_settings(f"http://127.0.0.1:{free_port()}/v1"))
    assert not ok and "cannot be reached" in message
    ok, message = check_endpoint(_settings("", llm_model=""))
    assert not ok and "offline" in message


def test_the_settings_page_check_sends_the_typed_key(llm_server: ScriptedLLM, tmp_path) -> None:
    service = MedDiagService(Settings(home=tmp_path, llm_base_url="", llm_model=""))
    health = service.check_llm(llm_server.url, "test-model", "sk-typed")
    assert health.ok, health.message
    assert llm_server.listed_for == ["Bearer sk-typed"]
    assert service.check_llm(llm_server.url, "test-model").ok and llm_server.listed_for[-1] is None
