from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from meddiag.stores.local_graph import LocalGraphStore
from meddiag.stores.neo4j_graph import Neo4jGraphStore
from tests.milvus_server import MilvusServer, milvus_grpc_server
from tests.neo4j_server import BoltServer, arcadedb_bolt_server
from tests.stores.tiny_kb import tiny_entities, tiny_relations


@pytest.fixture(scope="session")
def bolt_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoltServer]:
    """ArcadeDB speaking Bolt; a start failure errors the tests (never a silent skip)."""
    with arcadedb_bolt_server(tmp_path_factory.mktemp("arcadedb")) as server:
        yield server


@pytest.fixture(scope="session")
def milvus_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MilvusServer]:
    """A Milvus gRPC server on a loopback port; a start failure errors the tests (never a silent skip)."""
    with milvus_grpc_server(tmp_path_factory.mktemp("milvus-server")) as server:
        yield server


@pytest.fixture(scope="session")
def neo4j_store(bolt_server: BoltServer) -> Iterator[Neo4jGraphStore]:
    store = Neo4jGraphStore(bolt_server.uri, bolt_server.user, bolt_server.password, bolt_server.database)
    yield store
    store.close()


def _load(store: LocalGraphStore | Neo4jGraphStore) -> None:
    store.clear()
    store.upsert_entities(tiny_entities())
    store.upsert_relations(tiny_relations())


@pytest.fixture(scope="session")
def neo4j_state() -> dict[str, bool]:
    """Whether the shared Neo4j database may differ from the tiny graph (reload before reading)."""
    return {"dirty": True}


def _store(request: pytest.FixtureRequest, tmp_path: Path) -> LocalGraphStore | Neo4jGraphStore:
    if request.param == "local":
        store = LocalGraphStore(tmp_path / "graph.json")
        _load(store)
        return store
    state = request.getfixturevalue("neo4j_state")
    neo4j: Neo4jGraphStore = request.getfixturevalue("neo4j_store")
    if state["dirty"]:  # loading over Bolt costs ~1 s, so read-only tests share one load
        _load(neo4j)
        state["dirty"] = False
    return neo4j


STORES = ["local", pytest.param("neo4j", marks=pytest.mark.neo4j)]


@pytest.fixture(params=STORES)
def graph_store(request: pytest.FixtureRequest, tmp_path: Path) -> LocalGraphStore | Neo4jGraphStore:
    """Both graph stores holding the tiny knowledge graph, for tests that only read."""
    return _store(request, tmp_path)


@pytest.fixture(params=STORES)
def mutable_graph_store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[LocalGraphStore | Neo4jGraphStore]:
    """Both graph stores holding the tiny knowledge graph, for tests that write to it."""
    yield _store(request, tmp_path)
    if request.param == "neo4j":
        request.getfixturevalue("neo4j_state")["dirty"] = True
