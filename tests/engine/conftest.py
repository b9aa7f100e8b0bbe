"""One small knowledge base for the engine's end-to-end tests, built once into a temporary home.

Real parts throughout: the tiny source files of `tests.fixtures.sources` (three
connective-tissue diseases) assembled and built like the product's own profiles into a
Milvus Lite file and the local graph directory, the real backends and the offline
reasoner. (The demo profile takes minutes to embed on a shared machine, too slow here.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from meddiag.config import Settings
from meddiag.engine.api import Engine, create_engine
from meddiag.knowledge.assemble import assemble_kb
from meddiag.knowledge.build import build_knowledge_base
from meddiag.knowledge.handle import KnowledgeBaseHandle, open_knowledge_base
from tests.fixtures.sources import tiny_sources


@pytest.fixture(scope="session")
def small_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    home: Path = tmp_path_factory.mktemp("meddiag-home")
    settings = Settings(home=home, profile="demo", llm_base_url="", llm_model="", neo4j_uri="", milvus_uri="")
    build_knowledge_base(settings, kb=assemble_kb(tiny_sources(home / "sources"), "full"))
    return settings


@pytest.fixture(scope="session")
def small_kb(small_settings: Settings) -> Iterator[KnowledgeBaseHandle]:
    kb = open_knowledge_base(small_settings)
    yield kb
    kb.close()


@pytest.fixture(scope="session")
def small_engine(small_settings: Settings, small_kb: KnowledgeBaseHandle) -> Engine:
    return create_engine(small_settings, kb=small_kb)
