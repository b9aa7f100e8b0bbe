"""Health checks for the Settings page: can this Milvus / Neo4j be reached right now?

They return a verdict and a sentence instead of raising, because their only caller shows
the sentence to the user.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from meddiag.config import MILVUS_ADDRESS


class HealthDict(TypedDict):
    ok: bool
    message: str


def check_milvus(uri: str, timeout_s: float = 3.0, *, lite_path: Path) -> HealthDict:
    """A Milvus server at an http(s) `uri`; with no `uri`, the Milvus Lite file at `lite_path`."""
    problem = MILVUS_ADDRESS.problem(uri)
    if problem:
        return {"ok": False, "message": f"{uri!r} is not a Milvus server address: {problem}."}
    if not uri:
        if lite_path.exists():
            return {
                "ok": True,
                "message": f"Milvus Lite file present ({lite_path.stat().st_size // 1024} KiB).",
            }
        return {"ok": False, "message": "No Milvus Lite file yet: build the knowledge base first."}
    from pymilvus import MilvusClient

    try:
        client = MilvusClient(uri=uri, timeout=timeout_s)
        names = client.list_collections()
        client.close()
    except Exception as err:  # pymilvus raises many unrelated types for one cause: unreachable
        return {"ok": False, "message": f"Milvus server at {uri} is unreachable: {err.__class__.__name__}."}
    return {"ok": True, "message": f"Milvus server reachable; {len(names)} collections."}


def check_neo4j(
    uri: str, user: str, password: str, database: str = "neo4j", timeout_s: float = 3.0
) -> HealthDict:
    if not uri:
        return {"ok": False, "message": "No Neo4j URI set; the local graph store is used."}
    from neo4j import GraphDatabase
    from neo4j.exceptions import ConfigurationError, Neo4jError, ServiceUnavailable

    try:
        with GraphDatabase.driver(uri, auth=(user, password), connection_timeout=timeout_s) as driver:
            driver.verify_connectivity()
            records, _, _ = driver.execute_query("RETURN 1 AS ok", database_=database)
    except ConfigurationError:
        return {
            "ok": False,
            "message": f"{uri!r} is not a Neo4j address: write it as bolt://host:7687 or neo4j://host:7687.",
        }
    except (ServiceUnavailable, Neo4jError, OSError, ValueError) as err:
        return {"ok": False, "message": f"Neo4j at {uri} is unreachable: {err.__class__.__name__}."}
    return {"ok": bool(records), "message": f"Neo4j reachable (database {database})."}
