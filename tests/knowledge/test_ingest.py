"""User documents: indexed into the live knowledge base, one result per file, kept across rebuilds."""

from __future__ import annotations

from pathlib import Path

import pytest

from meddiag.config import Settings
from meddiag.knowledge.assemble import assemble_kb
from meddiag.knowledge.build import build_knowledge_base
from meddiag.service import MedDiagService
from tests.fixtures.sources import tiny_sources

NOTE = b"# Clinic note\n\nOur patient with arachnodactyly and ectopia lentis was referred for FBN1 testing.\n"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = Settings(
        home=tmp_path, profile="demo", llm_base_url="", llm_model="", neo4j_uri="", milvus_uri=""
    )
    build_knowledge_base(settings, kb=assemble_kb(tiny_sources(tmp_path / "sources"), "full"))
    return settings


def _user_hits(service: MedDiagService) -> list[str]:
    kb = service.kb()
    vector = kb.embedder.embed(["arachnodactyly ectopia lentis FBN1 testing clinic note"])[0]
    hits = kb.vectors.search(kb.collection("chunks"), vector, 50)
    return [h.id for h in hits if h.kind == "user"]


def test_upload_indexes_good_files_and_reports_bad_ones(settings: Settings) -> None:
    service = MedDiagService(settings)
    try:
        before = _user_hits(service)
        results = service.add_documents(
            [("note.md", NOTE), ("tool.exe", b"MZ\x00\x01"), ("empty.txt", b"  ")]
        )
        assert [r.ok for r in results] == [True, False, False]
        assert results[0].chunks == 1
        assert results[0].message.startswith("Indexed 1 passage; ") and "recognised" in results[0].message
        assert "tool.exe" in results[1].message
        assert not before and _user_hits(service)
        assert (settings.home / "user_docs" / "note.md").read_bytes() == NOTE
    finally:
        service.close()


def test_a_rebuild_keeps_uploaded_documents(settings: Settings) -> None:
    service = MedDiagService(settings)
    try:
        service.add_documents([("note.md", NOTE)])
    finally:
        service.close()
    build_knowledge_base(
        settings, kb=assemble_kb(tiny_sources(settings.home / "sources2"), "full"), force=True
    )
    again = MedDiagService(settings)
    try:
        assert _user_hits(again)
    finally:
        again.close()
