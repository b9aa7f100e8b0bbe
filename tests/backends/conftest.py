from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from meddiag.backends.base import Backend, KnowledgeBaseView
from meddiag.backends.registry import get_backend
from meddiag.config import Settings
from meddiag.context_filter import filter_context
from meddiag.knowledge.build import build_knowledge_base
from meddiag.knowledge.handle import open_knowledge_base
from meddiag.schema import BACKENDS, ParsedContext
from tests.backends.fakes import FakeKB, load
from tests.backends.hand_kb import hand_kb


@pytest.fixture(scope="session")
def kb() -> FakeKB:
    """The hand KB in in-memory stores (fast; for algorithm and input tests)."""
    return load(hand_kb())


@pytest.fixture(scope="session")
def built_kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBaseView]:
    """The hand KB built and opened the way the app does: Milvus Lite, local graph, LSA embedder."""
    home: Path = tmp_path_factory.mktemp("meddiag-home")
    settings = Settings(home=home, profile="demo", milvus_uri="", neo4j_uri="")
    build_knowledge_base(settings, kb=hand_kb())
    handle = open_knowledge_base(settings)
    yield handle
    handle.close()


@pytest.fixture(params=["memory", "milvus"])
def store_kb(request: pytest.FixtureRequest) -> KnowledgeBaseView:
    return request.getfixturevalue("kb" if request.param == "memory" else "built_kb")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, store_kb: KnowledgeBaseView) -> Backend:
    return get_backend(request.param, store_kb)


def ask(backend: Backend, query: str, **kwargs: object) -> ParsedContext:
    return filter_context(backend.retrieve(query, **kwargs))  # type: ignore[arg-type]


def links(parsed: ParsedContext) -> set[tuple[str, str, str]]:
    """(subject, predicate, object) names of every binary fact in the parsed KG evidence."""
    return {(t.subject, t.predicate, t.object) for t in parsed.kg.triples}


@pytest.fixture(params=BACKENDS)
def memory_backend(request: pytest.FixtureRequest, kb: FakeKB) -> Backend:
    """A backend over the in-memory stores, for checks that never reach a store."""
    return get_backend(request.param, kb)
