"""Building with Neo4j configured writes the graph there (against ArcadeDB's Bolt server)."""

from __future__ import annotations

import time

import pytest

from meddiag.config import Settings
from meddiag.errors import StoreUnavailable
from meddiag.knowledge.build import build_knowledge_base
from meddiag.knowledge.handle import open_knowledge_base
from meddiag.stores.neo4j_graph import Neo4jGraphStore
from tests.stores.tiny_kb import FBN1, MARFAN, tiny_kb


@pytest.mark.neo4j
def test_build_writes_the_graph_to_neo4j_and_the_handle_reads_it(bolt_server, neo4j_state, tmp_path):
    settings = Settings(
        _env_file=None,
        home=tmp_path,
        profile="demo",
        embedder="lsa-32",
        milvus_uri="",
        neo4j_uri=bolt_server.uri,
        neo4j_user=bolt_server.user,
        neo4j_password=bolt_server.password,
        neo4j_database=bolt_server.database,
    )
    neo4j_state["dirty"] = True  # this test replaces the shared database's content
    manifest = build_knowledge_base(settings, kb=tiny_kb())
    assert manifest.graph_store == "neo4j" and manifest.neo4j_uri == bolt_server.uri
    with open_knowledge_base(settings) as kb:
        assert isinstance(kb.graph, Neo4jGraphStore)
        assert kb.graph.counts()["relations"]["HAS_PHENOTYPE"] == 7
        assert {r.object for r in kb.graph.relations(MARFAN, predicates=["ASSOCIATED_GENE"])} == {FBN1}


def test_an_unreachable_neo4j_fails_fast_with_store_unavailable():
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match="MEDDIAG_NEO4J_URI"):
        Neo4jGraphStore("bolt://127.0.0.1:9", "neo4j", "secret", timeout_s=2.0)
    assert time.monotonic() - started < 30
