"""A question about a named disease gets that disease's own text first, from its visible facts."""

from __future__ import annotations

import pytest

from meddiag.backends.base import QueryScope, RetrievalRequest, Stages
from meddiag.backends.keywords import extract_keywords
from meddiag.backends.profiles import named_disease_profiles
from meddiag.backends.registry import get_backend
from meddiag.schema import BACKENDS
from tests.backends.conftest import ask
from tests.backends.fakes import FakeKB, load
from tests.backends.hand_kb import LDS, MARFAN, hand_kb

FEATURES_QUESTION = "What are the characteristic features of Loeys-Dietz syndrome 1?"


def _scope(kb: FakeKB, query: str, exclude: frozenset[str] = frozenset()) -> QueryScope:
    request = RetrievalRequest(
        query=query,
        keywords=extract_keywords(query, kb),
        seeds=(),
        top_k=5,
        exclude=exclude,
        mode="semantic",
    )
    return QueryScope(kb, request, Stages())


@pytest.mark.parametrize("name", BACKENDS)
def test_a_question_about_a_disease_leads_with_its_profile(store_kb: FakeKB, name: str) -> None:
    parsed = ask(get_backend(name, store_kb), FEATURES_QUESTION, mode="semantic")
    assert parsed.text[0].doc_id == f"profile/{LDS}"
    assert "Hypertelorism" in parsed.text[0].text


@pytest.mark.parametrize("name", BACKENDS)
def test_the_named_disease_text_comes_from_the_graph_when_the_search_misses_it(name: str) -> None:
    kb = load(hand_kb())
    kb.vectors.records["chunks"] = []  # a dense search that finds nothing
    parsed = ask(get_backend(name, kb), FEATURES_QUESTION, mode="semantic")
    assert [p.doc_id for p in parsed.text][:1] == [f"profile/{LDS}"]


def test_the_named_profile_is_rendered_without_the_excluded_facts(kb: FakeKB) -> None:
    chunks = named_disease_profiles(_scope(kb, FEATURES_QUESTION), limit=5)
    assert chunks and "Hypertelorism" in chunks[0].chunk.text
    # every fact of Loeys-Dietz syndrome 1 but its gene rests on PMID:3
    hidden = named_disease_profiles(_scope(kb, FEATURES_QUESTION, frozenset({"PMID:3"})), limit=5)
    assert all("Hypertelorism" not in c.chunk.text for c in hidden)


def test_a_question_asking_for_diseases_gets_no_named_profile(kb: FakeKB) -> None:
    # Here Loeys-Dietz syndrome is a candidate to weigh, not the subject of the question.
    query = "Hypertelorism and joint hypermobility: is it Loeys-Dietz syndrome 1? What is the diagnosis?"
    assert named_disease_profiles(_scope(kb, query), limit=5) == []


def test_a_question_naming_only_a_gene_gets_its_diseases_passages_stating_it(kb: FakeKB) -> None:
    chunks = named_disease_profiles(_scope(kb, "Which diseases are associated with FBN1?"), limit=5)
    assert [c.chunk.doc_id for c in chunks] == [f"profile/{MARFAN}"]
    assert "FBN1" in chunks[0].chunk.text
