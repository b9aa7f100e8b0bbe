"""The Settings page's health checks: a verdict and a sentence, never an exception."""

from __future__ import annotations

import socket
from pathlib import Path

from meddiag.stores.health import check_milvus, check_neo4j


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_milvus_lite_file_present_or_not(tmp_path: Path) -> None:
    lite = tmp_path / "milvus.db"
    assert not check_milvus("", lite_path=lite)["ok"]
    lite.write_bytes(b"x" * 2048)
    assert check_milvus("", lite_path=lite) == {"ok": True, "message": "Milvus Lite file present (2 KiB)."}


def test_a_milvus_address_without_its_scheme_is_named_not_taken_for_a_file(tmp_path: Path) -> None:
    check = check_milvus("localhost:19530", lite_path=tmp_path / "milvus.db")
    assert not check["ok"] and "is not a Milvus server address" in check["message"]


def test_an_unreachable_milvus_server_is_a_sentence(tmp_path: Path) -> None:
    check = check_milvus(
        f"http://127.0.0.1:{_closed_port()}", timeout_s=2.0, lite_path=tmp_path / "milvus.db"
    )
    assert not check["ok"] and "unreachable" in check["message"]


def test_neo4j_addresses_that_are_missing_malformed_or_unreachable() -> None:
    assert "No Neo4j URI" in check_neo4j("", "neo4j", "pw")["message"]
    malformed = check_neo4j("localhost:7687", "neo4j", "pw")
    assert not malformed["ok"] and "is not a Neo4j address" in malformed["message"]
    down = check_neo4j(f"bolt://127.0.0.1:{_closed_port()}", "neo4j", "pw", timeout_s=2.0)
    assert not down["ok"] and "unreachable" in down["message"]
