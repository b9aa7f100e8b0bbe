"""Retrieval searches each vector collection at most once per step: the texts of one step go
in one store call, and a search whose hits could not reach the answer is not made."""

from __future__ import annotations

import pytest

from meddiag.backends import keywords
from meddiag.backends.base import QueryScope, RetrievalRequest, Stages
from meddiag.backends.keywords import NameCandidateCache, extract_keywords
from meddiag.backends.registry import get_backend
from meddiag.errors import StoreUnavailable
from meddiag.schema import BACKENDS
from tests.backends.fakes import FakeKB
from tests.backends.hand_kb import ARACHNO, ECTOPIA, TALL

VIGNETTE = "Arachnodactyly, ectopia lentis, tall stature and joint hypermobility. What is the diagnosis?"


@pytest.fixture
def fresh_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty phrase → names memory, so name lookups reach the store."""
    monkeypatch.setattr(keywords, "NAME_CANDIDATES", NameCandidateCache())


def calls_during(kb: FakeKB, action) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    before = len(kb.vectors.calls)
    action()
    return kb.vectors.calls[before:]


def test_keyword_extraction_looks_all_new_phrases_up_in_one_call(kb: FakeKB, fresh_names: None) -> None:
    # None of these phrases is exactly a name, so each needs the name vectors.
    loose = "Very long fingers, a displaced lens and a purple rash. What is the diagnosis?"
    calls = calls_during(kb, lambda: extract_keywords(loose, kb))
    assert calls == [("entity_names", len(keywords.phrases(loose)))]
    assert len(keywords.phrases(loose)) > 1


def test_lightrag_mix_searches_each_collection_once(kb: FakeKB, fresh_names: None) -> None:
    backend = get_backend("lightrag", kb)
    calls = calls_during(kb, lambda: backend.retrieve(VIGNETTE, mode="mix"))
    collections = [c for c, _ in calls]
    assert sorted(collections) == sorted(set(collections)), calls
    assert ("chunks", 2) in calls, "the query and the named entities share one chunk search"


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("mode", ["mix", "semantic", "relational"])
def test_no_backend_searches_one_collection_twice_in_a_retrieval(kb: FakeKB, name: str, mode: str) -> None:
    backend = get_backend(name, kb)
    calls = calls_during(kb, lambda: backend.retrieve(VIGNETTE, mode=mode))  # type: ignore[arg-type]
    collections = [c for c, _ in calls]
    assert sorted(collections) == sorted(set(collections)), calls


def scope(kb: FakeKB, *, seeds: tuple[str, ...], top_k: int) -> QueryScope:
    request = RetrievalRequest(
        query=VIGNETTE,
        keywords=extract_keywords(VIGNETTE, kb),
        seeds=seeds,
        top_k=top_k,
        exclude=frozenset(),
        mode="relational",
    )
    return QueryScope(kb, request, Stages())


def test_seeds_filling_the_entity_list_skip_the_entity_search_with_the_same_result(kb: FakeKB) -> None:
    seeds = (ARACHNO, ECTOPIA, TALL)
    full = scope(kb, seeds=seeds, top_k=3)
    calls = calls_during(kb, lambda: full.low_level_entities(3))
    assert "entities" not in [c for c, _ in calls]
    assert [s.entity.id for s in full.low_level_entities(3)] == list(seeds)
    # With room left, the vector search runs and fills it after the seeds.
    roomy = scope(kb, seeds=seeds, top_k=8)
    calls = calls_during(kb, lambda: roomy.low_level_entities(8))
    assert ("entities", 1) in calls
    ids = [s.entity.id for s in roomy.low_level_entities(8)]
    assert ids[:3] == list(seeds) and len(ids) > 3


def test_batched_scope_search_answers_each_text_as_its_own_search(kb: FakeKB) -> None:
    s = scope(kb, seeds=(), top_k=5)
    texts = ["arachnodactyly", "", "tall stature", "arachnodactyly"]
    batched = s.search_many("chunks", texts, 5)
    assert batched[1] == []
    assert batched[0] == batched[3] == s.search("chunks", "arachnodactyly", 5)
    assert batched[2] == s.search("chunks", "tall stature", 5)
    assert batched[0] != batched[2]


def test_a_prefetched_search_is_collected_not_repeated(kb: FakeKB) -> None:
    s = scope(kb, seeds=(), top_k=5)
    texts = ["arachnodactyly", "tall stature"]
    s.prefetch([("chunks", texts, 5)])
    s._prefetched[("chunks", tuple(texts), 5, None)].result()  # let it finish before counting
    calls = calls_during(kb, lambda: s.search_many("chunks", texts, 5))
    assert calls == []
    assert s.search_many("chunks", texts, 5) == scope(kb, seeds=(), top_k=5).search_many("chunks", texts, 5)


def test_a_failed_prefetched_search_fails_where_its_result_is_needed(
    kb: FakeKB, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(*_args: object, **_kwargs: object) -> None:
        raise StoreUnavailable("Milvus server", "cannot reach it")

    s = scope(kb, seeds=(), top_k=5)
    monkeypatch.setattr(kb.vectors, "search_many", down)
    s.prefetch([("relationships", ["tall stature"], 5)])  # no error yet: it runs aside
    with pytest.raises(StoreUnavailable, match="cannot reach"):
        s.relation_hits("tall stature", 5)
