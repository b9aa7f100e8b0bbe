from __future__ import annotations

from pathlib import Path

import pytest

from meddiag.knowledge.assemble import assemble_kb
from meddiag.knowledge.model import KnowledgeBase
from meddiag.knowledge.sources import SourceFiles
from tests.fixtures.sources import tiny_sources


@pytest.fixture(scope="session")
def sources(tmp_path_factory: pytest.TempPathFactory) -> SourceFiles:
    return tiny_sources(Path(tmp_path_factory.mktemp("sources")))


@pytest.fixture(scope="session")
def full_kb(sources: SourceFiles) -> KnowledgeBase:
    return assemble_kb(sources, "full")
