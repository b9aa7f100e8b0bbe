"""The backends run unchanged over Neo4j: the graph store is a setting, not a code path."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from meddiag.backends.registry import get_backend
from meddiag.schema import BACKENDS
from meddiag.stores.neo4j_graph import Neo4jGraphStore
from tests.backends.conftest import ask, links
from tests.backends.fakes import FakeKB
from tests.backends.hand_kb import hand_entities, hand_relations
from tests.neo4j_server import arcadedb_bolt_server

pytestmark = pytest.mark.neo4j

QUESTION = "Arachnodactyly, ectopia lentis and aortic root aneurysm. What is the diagnosis?"


@pytest.fixture(scope="module")
def neo4j_kb(kb: FakeKB, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeKB]:
    """The hand KB's graph in a Bolt server (ArcadeDB), its vectors in memory."""
    with arcadedb_bolt_server(tmp_path_factory.mktemp("arcadedb")) as server:
        store = Neo4jGraphStore(server.uri, server.user, server.password, server.database)
        store.clear()
        store.upsert_entities(hand_entities())
        store.upsert_relations(hand_relations())
        yield replace(kb, graph=store)  # type: ignore[arg-type]
        store.close()


@pytest.mark.parametrize("name", BACKENDS)
def test_backends_find_the_same_facts_over_neo4j_as_over_the_local_graph(
    name: str, kb: FakeKB, neo4j_kb: FakeKB
) -> None:
    local = links(
        ask(get_backend(name, kb), QUESTION, mode="relational", exclude_sources=frozenset({"PMID:1"}))
    )
    remote = links(
        ask(get_backend(name, neo4j_kb), QUESTION, mode="relational", exclude_sources=frozenset({"PMID:1"}))
    )
    assert remote == local
    assert ("Marfan syndrome", "HAS_PHENOTYPE", "Aortic root aneurysm") in remote
