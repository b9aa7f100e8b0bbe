"""MilvusVectorStore on a real Milvus Lite file."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from pymilvus import MilvusException, Status

from meddiag.errors import MedDiagError, StoreLocked, StoreUnavailable
from meddiag.stores.base import VectorRecord
from meddiag.stores.milvus import MilvusVectorStore

DIM = 8


def unit(*values: float) -> list[float]:
    v = np.zeros(DIM, dtype=np.float32)
    v[: len(values)] = values
    return (v / np.linalg.norm(v)).tolist()


# Records at decreasing similarity to the query direction (1, 0, ...).
RECORDS = [
    VectorRecord("a", unit(1.0, 0.05), "only PMID:1", "Phenotype", ("PMID:1",), {"n": 1}),
    VectorRecord("b", unit(1.0, 0.2), "PMID:1 and OMIM", "Phenotype", ("PMID:1", "OMIM:1"), {"n": 2}),
    VectorRecord("c", unit(1.0, 0.4), "no sources", "Disease", (), {"n": 3}),
    VectorRecord("d", unit(1.0, 0.6), "PMID:1 and PMID:2", "Phenotype", ("PMID:1", "PMID:2"), {"n": 4}),
    VectorRecord("e", unit(1.0, 0.8), "PMID:3", "Gene", ("PMID:3",), {"n": 5}),
    VectorRecord("f", unit(0.0, 1.0), "orthogonal", "Phenotype", ("PMID:9",), {"n": 6}),
]
QUERY = unit(1.0)


@pytest.fixture(scope="module", params=["lite", "server"])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The same records in a Milvus Lite file and on a Milvus server reached by http URI."""
    if request.param == "lite":
        s = MilvusVectorStore(tmp_path_factory.mktemp("milvus") / "milvus.db")
    else:
        s = MilvusVectorStore(request.getfixturevalue("milvus_server").uri)
        assert not s.is_lite
        for name in s.collections():  # the server outlives this module's other parameter
            s.drop(name)
    s.create("t_records", DIM)
    assert s.insert("t_records", iter(RECORDS)) == len(RECORDS)
    s.finish("t_records")
    yield s
    s.close()


def test_search_ranks_by_cosine_and_returns_fields(store):
    hits = store.search("t_records", QUERY, 3)
    assert [h.id for h in hits] == ["a", "b", "c"]
    assert hits[0].score == pytest.approx(1 / np.sqrt(1 + 0.05**2), abs=1e-4)
    assert hits[0].text == "only PMID:1"
    assert hits[0].kind == "Phenotype"
    assert hits[0].sources == ("PMID:1",)
    assert hits[1].extra == {"n": 2}


def test_kind_filter(store):
    assert [h.id for h in store.search("t_records", QUERY, 10, kinds=["Gene", "Disease"])] == ["c", "e"]


def test_a_record_whose_every_source_is_excluded_never_appears(store):
    hits = store.search("t_records", QUERY, 3, exclude_sources=frozenset({"PMID:1"}))
    assert [h.id for h in hits] == ["b", "c", "d"]  # a rests on PMID:1 alone
    hits = store.search("t_records", QUERY, 3, exclude_sources=frozenset({"PMID:1", "PMID:2", "OMIM:1"}))
    assert [h.id for h in hits] == ["c", "e", "f"]  # top_k stays exact after filtering


def test_exclusion_and_kind_filter_combine(store):
    hits = store.search("t_records", QUERY, 5, kinds=["Phenotype"], exclude_sources=frozenset({"PMID:1"}))
    assert [h.id for h in hits] == ["b", "d", "f"]


def test_count_collections_and_drop(store):
    assert store.count("t_records") == len(RECORDS)
    store.create("t_scratch", DIM)
    assert set(store.collections()) >= {"t_records", "t_scratch"}
    store.drop("t_scratch")
    assert "t_scratch" not in store.collections()
    with pytest.raises(MedDiagError, match="already exists"):
        store.create("t_records", DIM)


def test_reopened_file_is_searchable(tmp_path):
    path = tmp_path / "milvus.db"
    first = MilvusVectorStore(path)
    first.create("t_records", DIM)
    first.insert("t_records", RECORDS)
    first.finish("t_records")
    first.close()
    again = MilvusVectorStore(path)
    try:
        assert [h.id for h in again.search("t_records", QUERY, 2)] == ["a", "b"]
    finally:
        again.close()


HOLD_FILE = """
import sys, time
from meddiag.stores.milvus import MilvusVectorStore
store = MilvusVectorStore(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
store.close()
"""


def test_a_second_process_gets_store_locked(tmp_path):
    path = tmp_path / "milvus.db"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(HOLD_FILE), str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLocked, match="another MedDiag process"):
            MilvusVectorStore(path)
        # Refused before a server was started: the holder's lock file survives, so a later
        # opener is refused too (a failed Lite start would delete it on its way out).
        assert (tmp_path / ".milvus.db.lock").exists()
        with pytest.raises(StoreLocked):
            MilvusVectorStore(path)
    finally:
        holder.communicate("\n", timeout=120)


ATTACH = """
import sys
from meddiag.stores.milvus import MilvusVectorStore
store = MilvusVectorStore(sys.argv[1])
print(",".join(h.id for h in store.search("t_records", [1.0] + [0.0] * 7, 2)))
store.close()
"""


def test_another_process_searches_the_same_collections_through_the_shared_uri(store, tmp_path):
    uri = store.shared_uri()
    assert uri.startswith("unix:") if store.is_lite else uri == store.uri
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(ATTACH), uri], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "a,b"
    # The other process closed its client only: this store still serves (a Lite file stays locked).
    assert [h.id for h in store.search("t_records", QUERY, 1)] == ["a"]
    assert store.shared_uri() == uri


def test_a_closed_lite_store_has_nothing_to_share(tmp_path):
    closed = MilvusVectorStore(tmp_path / "milvus.db")
    closed.close()
    with pytest.raises(StoreUnavailable, match="closed"):
        closed.shared_uri()


def test_an_unreachable_server_fails_fast_with_store_unavailable():
    with pytest.raises(StoreUnavailable, match="MEDDIAG_MILVUS_URI"):
        MilvusVectorStore("http://127.0.0.1:9", timeout_s=2.0)


class _SlowStart:
    """A MilvusClient whose first connections fail the way a Lite server still starting does."""

    failures = 2
    attempts = 0
    clock = 0.0  # the fake time.monotonic(), advanced by the fake time.sleep()

    def __init__(self, **kwargs):
        type(self).attempts += 1
        if type(self).attempts <= type(self).failures:
            raise MilvusException(code=Status.CONNECT_FAILED, message="Fail connecting to server")


@pytest.fixture
def slow_start(monkeypatch):
    from meddiag.stores import milvus

    _SlowStart.attempts = 0
    _SlowStart.clock = 0.0

    def sleep(seconds: float) -> None:
        _SlowStart.clock += seconds

    monkeypatch.setattr(milvus, "MilvusClient", _SlowStart)
    monkeypatch.setattr(milvus, "time", SimpleNamespace(monotonic=lambda: _SlowStart.clock, sleep=sleep))
    return _SlowStart


def test_a_lite_server_still_starting_is_waited_for(tmp_path, slow_start):
    MilvusVectorStore(tmp_path / "vectors.db")
    assert slow_start.attempts == 3


def test_a_server_that_refuses_is_not_retried(slow_start):
    with pytest.raises(StoreUnavailable, match="MEDDIAG_MILVUS_URI"):
        MilvusVectorStore("http://127.0.0.1:1")
    assert slow_start.attempts == 1


def test_a_lite_server_that_never_comes_up_gives_up_with_store_unavailable(tmp_path, slow_start, monkeypatch):
    from meddiag.stores import milvus

    monkeypatch.setattr(slow_start, "failures", 10_000)
    with pytest.raises(StoreUnavailable, match="cannot open the vector index"):
        MilvusVectorStore(tmp_path / "vectors.db")
    assert slow_start.attempts > 3
    assert milvus.LITE_START_S - 2.0 <= slow_start.clock <= milvus.LITE_START_S


def test_text_longer_than_milvus_allows_is_clipped_not_refused(tmp_path: Path):
    s = MilvusVectorStore(tmp_path / "milvus.db")
    try:
        s.create("t_long", DIM)
        s.insert("t_long", [VectorRecord("x", QUERY, "é" * 40_000, "k")])
        s.finish("t_long")
        (hit,) = s.search("t_long", QUERY, 1)
        assert 0 < len(hit.text.encode()) <= 60_000
    finally:
        s.close()


# Another query direction: closest to "e", then "f", "d", "c".
OTHER_QUERY = unit(0.5, 1.0)


def counted_searches(store, monkeypatch) -> list[int]:
    """The number of query vectors of each client search call, from now on."""
    calls: list[int] = []
    real = store._client.search

    def counting(*args, **kwargs):
        calls.append(len(args[1]))
        return real(*args, **kwargs)

    monkeypatch.setattr(store._client, "search", counting)
    return calls


def test_search_many_answers_each_vector_as_its_own_search(store):
    for kwargs in (
        {},
        {"kinds": ["Phenotype"]},
        {"exclude_sources": frozenset({"PMID:1"})},
        {"kinds": ["Phenotype", "Gene"], "exclude_sources": frozenset({"PMID:1", "PMID:2", "OMIM:1"})},
    ):
        batched = store.search_many("t_records", [QUERY, OTHER_QUERY, QUERY], 3, **kwargs)
        alone = [store.search("t_records", q, 3, **kwargs) for q in (QUERY, OTHER_QUERY, QUERY)]
        assert [[h.id for h in hits] for hits in batched] == [[h.id for h in hits] for hits in alone]
        assert [[h.extra for h in hits] for hits in batched] == [[h.extra for h in hits] for hits in alone]
    assert [h.id for h in store.search_many("t_records", [OTHER_QUERY], 2)[0]] == ["e", "f"]


def test_search_many_makes_one_client_call_for_all_vectors(store, monkeypatch):
    store.cache.clear()
    calls = counted_searches(store, monkeypatch)
    hits = store.search_many("t_records", [QUERY, OTHER_QUERY, QUERY, OTHER_QUERY], 2)
    assert [[h.id for h in found] for found in hits] == [["a", "b"], ["e", "f"]] * 2
    assert calls == [2]  # one call, each distinct vector once


def test_search_many_fetches_deeper_only_for_the_vectors_exclusion_left_short(store, monkeypatch):
    # Twenty records on one left-out source outrank every visible record near QUERY, so its
    # first fetch (a few more than k) holds hidden records only and must grow; NEAR_V2's
    # nearest records are visible, so it is answered by the first fetch.
    store.create("t_crowded", DIM)
    hidden = [
        VectorRecord(f"h{i:02d}", unit(1.0, 0.001 * i), "left out", "Phenotype", ("PMID:7",), {})
        for i in range(20)
    ]
    shown = [
        VectorRecord("v1", unit(1.0, 0.5), "kept", "Phenotype", ("PMID:8",), {}),
        VectorRecord("v2", unit(1.0, 0.9), "kept", "Phenotype", ("PMID:7", "PMID:8"), {}),
    ]
    store.insert("t_crowded", [*hidden, *shown])
    store.finish("t_crowded")
    near_v2 = unit(1.0, 0.9)
    try:
        calls = counted_searches(store, monkeypatch)
        first, second = store.search_many(
            "t_crowded", [QUERY, near_v2], 2, exclude_sources=frozenset({"PMID:7"})
        )
        assert [h.id for h in first] == ["v1", "v2"]
        assert [h.id for h in second] == ["v2", "v1"]
        assert calls == [2, 1]
    finally:
        store.drop("t_crowded")


def test_search_many_of_no_vectors_or_no_k_searches_nothing(store, monkeypatch):
    calls = counted_searches(store, monkeypatch)
    assert store.search_many("t_records", [], 3) == []
    assert store.search_many("t_records", [QUERY, OTHER_QUERY], 0) == [[], []]
    assert calls == []


def test_local_connections_ping_rarely_and_servers_keep_pymilvus_defaults(tmp_path, monkeypatch):
    """A local Milvus Lite server answers pymilvus's 10-second keepalive pings with
    "too_many_pings" GOAWAYs in long runs; servers reached over http keep the defaults."""
    from meddiag.stores import milvus

    seen: list[dict] = []

    class Recording:
        def __init__(self, **kwargs):
            seen.append(kwargs)

    monkeypatch.setattr(milvus, "MilvusClient", Recording)
    MilvusVectorStore(tmp_path / "vectors.db")
    MilvusVectorStore("unix:/tmp/some_milvus.sock")
    MilvusVectorStore("http://127.0.0.1:1")
    keepalive = [k.get("grpc_options", {}).get("grpc.keepalive_time_ms") for k in seen]
    assert keepalive[0] == keepalive[1] >= 300_000
    assert keepalive[2] is None


def test_a_lite_server_leaves_no_info_logs_in_the_temp_directory(tmp_path, monkeypatch):
    """glog writes INFO and WARNING files into TMPDIR at every Lite server start unless told not to."""
    logs = tmp_path / "tmp"
    logs.mkdir()
    monkeypatch.setenv("TMPDIR", str(logs))
    monkeypatch.delenv("GLOG_minloglevel", raising=False)
    s = MilvusVectorStore(tmp_path / "vectors.db")
    try:
        s.create("t_records", DIM)
        s.insert("t_records", RECORDS)
        s.finish("t_records")
        assert [h.id for h in s.search("t_records", QUERY, 1)] == ["a"]
    finally:
        s.close()
    assert not [p.name for p in logs.iterdir() if p.name.startswith("milvus")]


def test_a_repeated_search_is_answered_from_memory_whatever_it_leaves_out(store, monkeypatch):
    store.cache.clear()
    between_b_and_c = unit(1.0, 0.25)  # nearest first: b, c, a, d, e, f
    first = store.search("t_records", between_b_and_c, 3)
    calls = counted_searches(store, monkeypatch)
    assert store.search("t_records", between_b_and_c, 3) == first
    assert calls == []
    # The exclusion filters the remembered hits: one fetch, a different answer for each exclusion.
    left_out_1 = store.search("t_records", between_b_and_c, 3, exclude_sources=frozenset({"PMID:1"}))
    left_out_3 = store.search("t_records", between_b_and_c, 3, exclude_sources=frozenset({"PMID:3"}))
    assert calls == [1]
    assert [h.id for h in left_out_1] == ["b", "c", "d"]
    assert [h.id for h in left_out_3] == ["b", "c", "a"]
    # Only the vectors not searched yet go to Milvus.
    store.search_many("t_records", [between_b_and_c, OTHER_QUERY], 3)
    assert calls == [1, 1]


def test_a_write_forgets_remembered_searches(tmp_path):
    s = MilvusVectorStore(tmp_path / "milvus.db")
    try:
        s.create("t_growing", DIM)
        s.insert("t_growing", [RECORDS[0]])
        s.finish("t_growing")
        assert [h.id for h in s.search("t_growing", QUERY, 5)] == ["a"]
        s.insert("t_growing", [RECORDS[2]])
        s.finish("t_growing")
        assert [h.id for h in s.search("t_growing", QUERY, 5)] == ["a", "c"]
    finally:
        s.close()
