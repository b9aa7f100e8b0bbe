"""Smoke test against a real Neo4j, only when MEDDIAG_TEST_NEO4J_URI is set (ArcadeDB covers the contract)."""

from __future__ import annotations

import os

import pytest

from meddiag.stores.neo4j_graph import Neo4jGraphStore
from tests.stores.tiny_kb import LDS, MARFAN, tiny_entities, tiny_relations

URI = os.environ.get("MEDDIAG_TEST_NEO4J_URI", "")

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(
        not URI, reason="set MEDDIAG_TEST_NEO4J_URI (and _USER/_PASSWORD) to run against Neo4j"
    ),
]


def test_real_neo4j_round_trip():
    store = Neo4jGraphStore(
        URI,
        os.environ.get("MEDDIAG_TEST_NEO4J_USER", "neo4j"),
        os.environ.get("MEDDIAG_TEST_NEO4J_PASSWORD", ""),
        os.environ.get("MEDDIAG_TEST_NEO4J_DATABASE", "neo4j"),
    )
    try:
        store.clear()
        store.upsert_entities(tiny_entities())
        assert store.upsert_relations(tiny_relations()) == len(tiny_relations())
        assert store.counts()["relations"]["HAS_PHENOTYPE"] == 7
        assert len(store.paths(MARFAN, LDS, max_hops=2)) == 2
        assert store.degree(MARFAN) == 5
    finally:
        store.clear()
        store.close()
