"""Building with a Milvus server configured: collections named per build on the server, the
superseded build's dropped, a failed build's removed, and the engine answering through it."""

from __future__ import annotations

from pathlib import Path

import pytest

from meddiag.config import Settings
from meddiag.engine.api import create_engine
from meddiag.knowledge import build as build_module
from meddiag.knowledge.assemble import assemble_kb
from meddiag.knowledge.build import build_knowledge_base
from meddiag.knowledge.handle import open_knowledge_base
from meddiag.knowledge.manifest import read_manifest
from meddiag.stores.factory import LITE_FILE
from meddiag.stores.milvus import MilvusVectorStore
from tests.fixtures.sources import tiny_sources
from tests.milvus_server import MilvusServer
from tests.stores.tiny_kb import MARFAN, tiny_kb


def server_settings(home: Path, server: MilvusServer, profile: str = "demo") -> Settings:
    return Settings(
        _env_file=None,
        home=home,
        profile=profile,
        embedder="lsa-32",
        milvus_uri=server.uri,
        neo4j_uri="",
        llm_base_url="",
        llm_model="",
    )


def on_server(server: MilvusServer, prefix: str) -> list[str]:
    store = MilvusVectorStore(server.uri)
    try:
        return sorted(c for c in store.collections() if c.startswith(prefix))
    finally:
        store.close()


def test_a_build_writes_its_collections_to_the_server_and_a_rebuild_drops_the_old_ones(
    milvus_server: MilvusServer, tmp_path: Path
) -> None:
    settings = server_settings(tmp_path, milvus_server)
    first = build_knowledge_base(settings, kb=tiny_kb())
    assert first.vector_store == "milvus-server" and first.milvus_uri == milvus_server.uri
    assert not (settings.kb_dir / LITE_FILE).exists()  # no Lite file beside the server
    assert on_server(milvus_server, "md_demo_") == sorted(first.collections.values())
    with open_knowledge_base(settings) as kb:
        query = kb.embedder.embed(["lens dislocation ectopia lentis Marfan"])[0]
        hits = kb.vectors.search(kb.collection("chunks"), query, 4)
        assert "profile/OMIM:154700#1" in {h.id for h in hits}
        hidden = kb.vectors.search(kb.collection("chunks"), query, 4, exclude_sources=frozenset({"PMID:1"}))
        assert "profile/OMIM:154700#1" not in {h.id for h in hidden}  # rests on PMID:1 alone

    second = build_knowledge_base(settings, kb=tiny_kb(), force=True)
    assert second.build_id != first.build_id
    assert on_server(milvus_server, "md_demo_") == sorted(second.collections.values())

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk full while writing the graph")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build_module, "_write_graph", broken)
        with pytest.raises(RuntimeError, match="disk full"):
            build_knowledge_base(settings, kb=tiny_kb(), force=True)
    # The failed build's collections are gone; the last good build still serves.
    assert read_manifest(settings.kb_dir).build_id == second.build_id
    assert on_server(milvus_server, "md_demo_") == sorted(second.collections.values())
    with open_knowledge_base(settings) as kb:
        assert kb.vectors.count(kb.collection("chunks")) == second.counts.vectors["chunks"]
        assert kb.graph.get(MARFAN).name == "Marfan syndrome"


def test_the_engine_answers_through_the_server(milvus_server: MilvusServer, tmp_path: Path) -> None:
    settings = server_settings(tmp_path, milvus_server, profile="full")
    build_knowledge_base(settings, kb=assemble_kb(tiny_sources(tmp_path / "sources"), "full"))
    with open_knowledge_base(settings) as kb:
        result = create_engine(settings, kb=kb).ask(
            "A 24-year-old man with arachnodactyly, ectopia lentis, tall stature and myopia."
        )
    assert result.synthesis.differential[0].id == MARFAN
    assert result.semantic.hops and any(h.passages for h in result.semantic.hops)
