"""One ask runs an identical retrieval once; asks never share what they retrieved."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from engine_scripted import ScriptedBackend, ScriptedReasoner
from pydantic import ValidationError

from meddiag.engine.api import Engine
from meddiag.engine.memo import RetrievalMemo
from meddiag.errors import BackendError
from meddiag.schema import RawContext

QUESTION = "Tall patient with arachnodactyly and ectopia lentis. What is the diagnosis?"
# Both expansion hops repeat one pattern (and hop 2's): the same query and seeds each time.
REPEATED = "(Entity#1, ASSOCIATED_GENE, ?)"


def raw(text: str) -> RawContext:
    return RawContext(backend="lightrag", query="q", text=text)


def repeating_engine(backend: ScriptedBackend) -> Engine:
    reasoner = ScriptedReasoner(sufficient=False, expansions=[REPEATED, REPEATED])
    return Engine(None, backend="lightrag", reasoner=reasoner, retriever=backend)  # type: ignore[arg-type]


def test_repeated_hops_of_one_ask_retrieve_once_and_keep_the_same_evidence() -> None:
    backend = ScriptedBackend()
    result = repeating_engine(backend).ask(QUESTION)
    hops = result.relational.hops
    assert [str(h.resolved_queries[0]) for h in hops[1:]] == ["(OMIM:154700, ASSOCIATED_GENE, ?)"] * 3
    relational = [(c["query"], c["seeds"]) for c in backend.calls if c["mode"] == "relational"]
    assert len(relational) == len(set(relational)) == 2, "hops 2-4 ask the same: one backend call"
    assert hops[1].triples == hops[2].triples == hops[3].triples != []
    semantic = [c["query"] for c in backend.calls if c["mode"] == "semantic"]
    assert len(semantic) == len(set(semantic)) < len(result.semantic.hops)


def test_each_ask_retrieves_for_itself() -> None:
    backend = ScriptedBackend()
    engine = repeating_engine(backend)
    engine.ask(QUESTION)
    first = sorted((c["mode"], c["query"], c["seeds"]) for c in backend.calls)
    engine.ask(QUESTION)
    # The channels interleave differently each time: compare what was asked, not the order.
    second = sorted((c["mode"], c["query"], c["seeds"]) for c in backend.calls[len(first) :])
    assert second == first, "a second ask repeats every retrieval of the first"


def test_concurrent_identical_requests_compute_once_and_share_one_frozen_answer() -> None:
    memo = RetrievalMemo()
    computed: list[int] = []
    started = threading.Event()

    def slow() -> RawContext:
        computed.append(threading.get_ident())
        started.set()
        time.sleep(0.05)
        return raw("evidence")

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: memo.get(("q", "mix", ()), slow), range(4)))
    assert len(computed) == 1
    assert all(r == raw("evidence") for r in results)
    assert len({id(r) for r in results}) == 1
    with pytest.raises(ValidationError, match="frozen"):
        results[0].text = "changed by a caller"
    assert memo.get(("q", "mix", ()), slow).text == "evidence"
    assert memo.hits == 4


def test_a_failed_retrieval_is_raised_and_then_tried_again() -> None:
    memo = RetrievalMemo()
    key = ("q", "relational", ("OMIM:154700",))

    def failing() -> RawContext:
        raise BackendError("the store went away")

    with pytest.raises(BackendError):
        memo.get(key, failing)
    assert memo.get(key, lambda: raw("back again")).text == "back again"
    assert memo.get(("other", "relational", ()), lambda: raw("other")).text == "other"
