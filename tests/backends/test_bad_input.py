"""Bad requests raise typed errors whose message a clinician can act on."""

from __future__ import annotations

import pytest

from meddiag.backends.base import MAX_QUERY_CHARS, Backend
from meddiag.backends.registry import get_backend
from meddiag.errors import InputError
from tests.backends.fakes import FakeKB


@pytest.mark.parametrize("query", ["", "   \n\t "])
def test_an_empty_question_is_refused(memory_backend: Backend, query: str) -> None:
    with pytest.raises(InputError, match="empty"):
        memory_backend.retrieve(query)


def test_a_100000_character_question_is_refused_with_the_limit(memory_backend: Backend) -> None:
    with pytest.raises(InputError, match=f"{MAX_QUERY_CHARS:,}"):
        memory_backend.retrieve("arachnodactyly " * 6_700)


def test_a_question_at_the_limit_is_answered(memory_backend: Backend) -> None:
    query = ("Arachnodactyly and ectopia lentis. " * 400)[:MAX_QUERY_CHARS]
    assert memory_backend.retrieve(query).text


def test_an_unknown_backend_names_the_valid_ones(kb: FakeKB) -> None:
    with pytest.raises(InputError) as err:
        get_backend("graphrag", kb)
    for name in ("lightrag", "minirag", "pathrag", "hypergraphrag"):
        assert name in str(err.value)


def test_backend_names_are_case_insensitive(kb: FakeKB) -> None:
    assert get_backend(" PathRAG ", kb).name == "pathrag"


@pytest.mark.parametrize("top_k", [0, -3, 10_000])
def test_top_k_out_of_range_is_refused(memory_backend: Backend, top_k: int) -> None:
    with pytest.raises(InputError, match="top_k"):
        memory_backend.retrieve("Arachnodactyly", top_k=top_k)


def test_an_unknown_mode_is_refused(memory_backend: Backend) -> None:
    with pytest.raises(InputError, match="mode"):
        memory_backend.retrieve("Arachnodactyly", mode="local")  # type: ignore[arg-type]


def test_an_unknown_seed_is_ignored_not_invented(memory_backend: Backend) -> None:
    raw = memory_backend.retrieve("Which genes?", seeds=["OMIM:999999"], mode="relational")
    assert "OMIM:999999" not in raw.text
    assert all("OMIM:999999" not in item.ids for item in raw.items)
