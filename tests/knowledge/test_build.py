"""The atomic build pipeline and opening what it built, on a tiny hand-made knowledge base."""

from __future__ import annotations

import fcntl
import gc
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from meddiag.config import Settings
from meddiag.errors import EmbedderMismatch, KnowledgeBaseMissing, KnowledgeBaseStale, StoreLocked
from meddiag.knowledge import build as build_module
from meddiag.knowledge.build import build_knowledge_base, kb_stats, relationship_records, vector_records
from meddiag.knowledge.handle import COLLECTOR_THRESHOLDS, open_knowledge_base
from meddiag.knowledge.manifest import COLLECTIONS, MANIFEST_FILE, SCHEMA_VERSION, read_manifest
from tests.stores.tiny_kb import AORTIC, ARACHNO, ECTOPIA, FBN1, MARFAN, tiny_kb


def make_settings(home: Path, **overrides: object) -> Settings:
    values = {"home": home, "profile": "demo", "embedder": "lsa-64", "milvus_uri": "", "neo4j_uri": ""}
    values.update(overrides)
    return Settings(_env_file=None, **values)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    settings = make_settings(tmp_path_factory.mktemp("home"))
    manifest = build_knowledge_base(settings, kb=tiny_kb())
    return settings, manifest


def test_manifest_records_counts_embedder_and_collections(built):
    settings, manifest = built
    kb = tiny_kb()
    assert manifest.profile == "demo"
    assert manifest.counts.documents == 3 and manifest.counts.chunks == 4 and manifest.counts.hyperedges == 2
    assert manifest.counts.entities == {"Disease": 3, "Gene": 3, "Inheritance": 2, "Phenotype": 5}
    assert manifest.counts.relations["HAS_PHENOTYPE"] == 7
    expected_vectors = {name: len(records) for name, records in vector_records(kb).items()}
    assert manifest.counts.vectors == expected_vectors
    assert manifest.embedder.name == "lsa-64" and manifest.embedder.dim == 64
    assert set(manifest.collections) == set(COLLECTIONS)
    assert all(manifest.build_id in name for name in manifest.collections.values())
    assert manifest.graph_store == "local" and manifest.vector_store == "milvus-lite"
    assert {"fit_embedder", "write_graph", "embed_chunks", "write_chunks"} <= set(manifest.stage_seconds)
    assert read_manifest(settings.kb_dir) == manifest
    assert not list(settings.kb_dir.parent.glob(".demo.building-*"))


def test_opened_knowledge_base_answers_from_vectors_and_graph(built):
    settings, manifest = built
    with open_knowledge_base(settings) as kb:
        assert kb.manifest == manifest
        query = kb.embedder.embed(["dislocated lens of the eye in Marfan syndrome"])[0]
        hits = kb.vectors.search(kb.collection("chunks"), query, 2)
        assert hits[0].id == "profile/OMIM:154700#1"
        assert hits[0].extra["doc_id"] == "profile/OMIM:154700"
        names = kb.vectors.search(kb.collection("entity_names"), kb.embedder.embed(["spider fingers"])[0], 1)
        assert names[0].extra["entity_id"] == ARACHNO
        assert kb.vectors.count(kb.collection("relationships")) == manifest.counts.vectors["relationships"]
        assert {r.object for r in kb.graph.relations(MARFAN, predicates=["ASSOCIATED_GENE"])} == {FBN1}
        with pytest.raises(Exception, match="no 'passages' collection"):
            kb.collection("passages")


def test_opening_relaxes_the_cyclic_collector_without_lowering_it(built):
    settings, _ = built
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 500)
        with open_knowledge_base(settings):
            assert gc.get_threshold() == (COLLECTOR_THRESHOLDS[0], COLLECTOR_THRESHOLDS[1], 500)
    finally:
        gc.set_threshold(*before)


def test_exclusion_applies_to_built_collections(built):
    settings, _ = built
    with open_knowledge_base(settings) as kb:
        query = kb.embedder.embed(["lens dislocation ectopia lentis Marfan"])[0]
        hits = kb.vectors.search(kb.collection("chunks"), query, 4, exclude_sources=frozenset({"PMID:1"}))
        assert "profile/OMIM:154700#1" not in {h.id for h in hits}  # rests on PMID:1 alone
        assert "profile/OMIM:154700#0" in {h.id for h in hits}  # also rests on PMID:2


def test_relations_are_embedded_per_subject_and_predicate_group():
    records = {r.id: r for r in relationship_records(tiny_kb())}
    group = records[f"{MARFAN}|HAS_PHENOTYPE|group0"]
    assert group.extra["objects"] == [ARACHNO, AORTIC, ECTOPIA]  # most frequent first
    assert group.sources == ("OMIM:154700", "PMID:1", "PMID:2")
    assert "Marfan syndrome has the phenotype: Arachnodactyly (90%)" in group.text
    single = records[f"{MARFAN}|ASSOCIATED_GENE|{FBN1}"]
    assert (
        single.extra["object"] == FBN1 and single.text == "Marfan syndrome is associated with the gene: FBN1"
    )
    assert len(records) < len(tiny_kb().relations)


def test_unchanged_inputs_skip_the_rebuild_and_force_rebuilds(built):
    settings, manifest = built
    again = build_knowledge_base(settings, kb=tiny_kb())
    assert again.build_id == manifest.build_id
    forced = build_knowledge_base(settings, kb=tiny_kb(), force=True)
    assert forced.build_id != manifest.build_id
    assert read_manifest(settings.kb_dir).build_id == forced.build_id
    with open_knowledge_base(settings) as kb:
        assert kb.vectors.collections() == sorted(forced.collections.values())
    assert not list(settings.kb_dir.parent.glob(".demo.old-*"))


def test_changed_inputs_rebuild(built):
    settings, manifest = built
    kb = tiny_kb()
    kb.versions["hpo"] = "2100-01-01"
    rebuilt = build_knowledge_base(settings, kb=kb)
    assert rebuilt.build_id != manifest.build_id
    assert {s.name: s.version for s in rebuilt.sources}["hpo"] == "2100-01-01"


def test_a_knowledge_base_from_an_older_version_is_refused_then_rebuilt_without_force(tmp_path):
    settings = make_settings(tmp_path)
    first = build_knowledge_base(settings, kb=tiny_kb())
    path = settings.kb_dir / MANIFEST_FILE
    older = json.loads(path.read_text())
    older["schema_version"] = SCHEMA_VERSION - 1
    path.write_text(json.dumps(older))
    with pytest.raises(KnowledgeBaseStale, match=r"build it again .*meddiag build"):
        open_knowledge_base(settings)
    rebuilt = build_knowledge_base(settings, kb=tiny_kb())
    assert rebuilt.build_id != first.build_id and rebuilt.schema_version == SCHEMA_VERSION
    with open_knowledge_base(settings) as kb:
        assert kb.graph.get(MARFAN).name == "Marfan syndrome"


def test_a_failing_stage_leaves_the_previous_knowledge_base_intact(tmp_path, monkeypatch):
    settings = make_settings(tmp_path)
    first = build_knowledge_base(settings, kb=tiny_kb())

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk full while writing the graph")

    monkeypatch.setattr(build_module, "_write_graph", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        build_knowledge_base(settings, kb=tiny_kb(), force=True)
    assert read_manifest(settings.kb_dir).build_id == first.build_id
    assert not list(tmp_path.glob("kb/.demo.building-*"))
    with open_knowledge_base(settings) as kb:
        assert kb.graph.get(MARFAN).name == "Marfan syndrome"
        assert kb.vectors.count(kb.collection("chunks")) == first.counts.vectors["chunks"]


def test_opening_with_another_embedder_is_refused(built):
    settings, _ = built
    with pytest.raises(EmbedderMismatch, match="lsa-64"):
        open_knowledge_base(settings.model_copy(update={"embedder": "lsa-256"}))


def test_an_unset_embedder_keeps_the_one_the_knowledge_base_was_built_with(tmp_path):
    """A later default embedder must not lock anyone out of, or rebuild, a built knowledge base."""
    manifest = build_knowledge_base(make_settings(tmp_path), kb=tiny_kb())
    unset = Settings(_env_file=None, home=tmp_path, profile="demo", milvus_uri="", neo4j_uri="")
    assert not unset.embedder_chosen and unset.embedder != manifest.embedder.name
    with open_knowledge_base(unset) as kb:
        assert kb.embedder.name == "lsa-64" and kb.settings.embedder == "lsa-64"
    assert build_knowledge_base(unset, kb=tiny_kb()).build_id == manifest.build_id


def test_opening_before_any_build_says_how_to_build(tmp_path):
    with pytest.raises(KnowledgeBaseMissing, match="meddiag build"):
        open_knowledge_base(make_settings(tmp_path))
    with pytest.raises(KnowledgeBaseMissing):
        kb_stats(make_settings(tmp_path))


def test_kb_stats_flattens_the_manifest(built):
    settings, _ = built
    stats = kb_stats(settings)
    assert {"documents", "chunks", "entities", "relations", "hyperedges", "vectors", "sources"} <= set(stats)
    assert stats["entities"]["Phenotype"] == 5
    assert stats["sources"]["mondo"] == "v2099-01-01"


def test_a_concurrent_build_of_the_same_profile_is_refused(tmp_path):
    settings = make_settings(tmp_path)
    lock = tmp_path / "kb" / ".demo.build.lock"
    lock.parent.mkdir(parents=True)
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(StoreLocked, match="already building"):
            build_knowledge_base(settings, kb=tiny_kb())


HOLD_KB = """
import sys
from pathlib import Path
from meddiag.config import Settings
from meddiag.knowledge.handle import open_knowledge_base
settings = Settings(_env_file=None, home=Path(sys.argv[1]), profile="demo", embedder="lsa-64",
                    milvus_uri="", neo4j_uri="")
kb = open_knowledge_base(settings)
print("ready", flush=True)
sys.stdin.readline()
kb.close()
"""


def test_a_second_process_opening_the_same_knowledge_base_gets_store_locked(built):
    settings, _ = built
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(HOLD_KB), str(settings.home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLocked, match="another MedDiag process"):
            open_knowledge_base(settings)
    finally:
        holder.communicate("\n", timeout=120)
