"""Chooses store implementations from settings, so pages and engines never branch on them."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from meddiag.config import Settings
from meddiag.stores.local_graph import GRAPH_FILE, LocalGraphStore
from meddiag.stores.milvus import MilvusVectorStore
from meddiag.stores.neo4j_graph import Neo4jGraphStore

LITE_FILE = "milvus.db"
GraphKind = Literal["local", "neo4j"]
VectorKind = Literal["milvus-lite", "milvus-server"]


def vector_store_kind(settings: Settings) -> VectorKind:
    return "milvus-server" if settings.uses_milvus_server else "milvus-lite"


def graph_store_kind(settings: Settings) -> GraphKind:
    return "neo4j" if settings.uses_neo4j else "local"


def open_vector_store(settings: Settings, kb_dir: Path, *, attach: str | None = None) -> MilvusVectorStore:
    """The configured Milvus: the server at `MEDDIAG_MILVUS_URI`, else the Lite file inside `kb_dir`;
    `attach` (another local process's `shared_uri()`) overrides both."""
    if attach:
        return MilvusVectorStore(attach, token=settings.milvus_token.get_secret_value())
    if settings.uses_milvus_server:
        return MilvusVectorStore(settings.milvus_uri, token=settings.milvus_token.get_secret_value())
    return MilvusVectorStore(kb_dir / LITE_FILE)


def open_neo4j(settings: Settings) -> Neo4jGraphStore:
    return Neo4jGraphStore(
        settings.neo4j_uri,
        settings.neo4j_user,
        settings.neo4j_password.get_secret_value(),
        settings.neo4j_database,
    )


def open_local_graph(kb_dir: Path) -> LocalGraphStore:
    return LocalGraphStore(kb_dir / GRAPH_FILE)


def open_graph_store(settings: Settings, kb_dir: Path) -> LocalGraphStore | Neo4jGraphStore:
    """Neo4j when `MEDDIAG_NEO4J_URI` is set, else the graph saved inside `kb_dir`."""
    return open_neo4j(settings) if settings.uses_neo4j else open_local_graph(kb_dir)
