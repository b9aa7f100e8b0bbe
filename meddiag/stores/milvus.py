"""Milvus vector collections: a Milvus Lite file by default, a Milvus server by http(s) URI.

Both go through `pymilvus.MilvusClient`, so the code path is the same; only opening and
closing differ (a Lite file is served by a Milvus Lite server process that pymilvus starts and
that locks the file against other processes). Another process of this machine may attach to a
Lite server already running through its socket (`unix:` URI, see `shared_uri`), which is how
the evaluation's worker processes share one file.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
from pymilvus import DataType, MilvusClient, MilvusException, Status

from meddiag.errors import MedDiagError, StoreLocked, StoreUnavailable
from meddiag.knowledge.model import visible
from meddiag.stores.base import VectorHit, VectorRecord
from meddiag.stores.search_cache import SearchCache, search_key

log = logging.getLogger(__name__)

# Milvus field limits: VARCHAR counts bytes; an ARRAY holds at most 4096 elements.
MAX_TEXT_BYTES = 60_000
MAX_ID_BYTES = 512
MAX_KIND_BYTES = 128
MAX_SOURCES = 4096
MAX_SOURCE_BYTES = 128
INSERT_BATCH = 1000
LITE_FLUSH_ROWS = 50_000
# Milvus refuses a search limit above this.
MAX_SEARCH_LIMIT = 16_384
OUTPUT_FIELDS = ["text", "kind", "sources", "extra"]


def _clip(text: str, max_bytes: int) -> str:
    raw = text.encode("utf-8")
    if len(raw) <= max_bytes:
        return text
    return raw[:max_bytes].decode("utf-8", errors="ignore")


def _as_floats(vector: Sequence[float]) -> list[float]:
    # ndarray.tolist() is one C call; a per-element float() loop costs more than the insert.
    return vector.tolist() if isinstance(vector, np.ndarray) else [float(x) for x in vector]


def _literal_list(values: Iterable[str]) -> str:
    """A Milvus expression list literal; JSON string escaping is what Milvus parses."""
    return json.dumps(sorted(values), ensure_ascii=False)


def _lite_lock_file(path: Path) -> Path:
    """The file the Milvus Lite server locks while it serves `path` (beside it, dot-prefixed)."""
    return path.parent / f".{path.name}.lock"


def _lite_file_is_locked(path: Path) -> bool:
    """Whether another process serves the Lite file. Never ask it for a file this process
    serves: probing a POSIX lock from the process that holds it releases it on close."""
    lock = _lite_lock_file(path)
    if not lock.exists():
        return False
    with lock.open("a") as fh:
        try:
            fcntl.lockf(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.lockf(fh, fcntl.LOCK_UN)
    return False


LOAD_TIMEOUT_S = 300.0
# pymilvus gives a Milvus Lite server it has just started 0.5 s before connecting; a cold start
# (the server binary not yet in the page cache, a busy machine) can take longer, and the first
# connection then fails on a socket that is not there yet. Keep trying that long before giving up.
LITE_START_S = 30.0
# pymilvus pings its channel every 10 s even when idle; the Milvus Lite server's gRPC stack
# accepts one ping per 5 minutes and answers more with a "too_many_pings" GOAWAY (logged as an
# error, then the client reconnects). A local socket needs no keepalive, so ping rarely.
LOCAL_GRPC_OPTIONS = {"grpc.keepalive_time_ms": 360_000}
# The Milvus Lite server logs through glog, which writes two new files into the system's temp
# directory per server start at its default level (INFO); a test run or a day of use leaves
# hundreds. The server inherits this process's environment, so ask it for errors only unless
# the user chose a level.
LITE_LOG_LEVEL = ("GLOG_minloglevel", "2")
# Lite files this process serves: probing their POSIX lock from here would release it.
_SERVED_HERE: set[Path] = set()


def _hit(hit: dict[str, Any]) -> VectorHit:
    entity = hit["entity"]
    return VectorHit(
        id=str(hit["id"]),
        score=float(hit["distance"]),
        text=entity["text"],
        kind=entity["kind"],
        sources=tuple(entity.get("sources") or ()),
        extra=dict(entity.get("extra") or {}),
    )


class MilvusVectorStore:
    """`VectorStore` over `pymilvus.MilvusClient`; `uri` is a Lite path, an http(s) server URI,
    or the `unix:` socket of a Lite server another process of this machine runs."""

    def __init__(self, uri: str | Path, *, token: str = "", timeout_s: float = 5.0) -> None:
        self.uri = str(uri)
        self.attached = self.uri.startswith("unix:")
        self.is_lite = not self.uri.startswith(("http://", "https://")) and not self.attached
        self._loaded: set[str] = set()
        self._load_lock = threading.Lock()
        self._unflushed: dict[str, int] = {}
        self.cache = SearchCache()
        if self.is_lite:
            os.environ.setdefault(*LITE_LOG_LEVEL)
            self._lite_path = Path(self.uri).resolve()
            self._lite_path.parent.mkdir(parents=True, exist_ok=True)
            # Refuse before starting a server: a failed start in this process deletes the other
            # process's lock file on its way out, which would let a third process in.
            if self._lite_path not in _SERVED_HERE and _lite_file_is_locked(self._lite_path):
                raise StoreLocked(
                    "Milvus Lite",
                    f"another MedDiag process holds the vector index {self.uri}; close the other app "
                    "or command, or point MEDDIAG_HOME elsewhere",
                )
        try:
            self._client = self._connect(token, timeout_s)
        except MilvusException as err:
            raise self._open_error(err) from err
        if self.is_lite:
            _SERVED_HERE.add(self._lite_path)

    def _connect(self, token: str, timeout_s: float) -> MilvusClient:
        """Open the client; retry while a Lite server this process just started comes up. The
        server stays registered with pymilvus between attempts, so a retry starts no second one."""
        local = {"grpc_options": LOCAL_GRPC_OPTIONS} if self.is_lite or self.attached else {}
        deadline = time.monotonic() + LITE_START_S
        pause = 0.1
        while True:
            try:
                return MilvusClient(uri=self.uri, token=token, timeout=timeout_s, **local)
            except MilvusException as err:
                starting = self.is_lite and err.code == Status.CONNECT_FAILED
                if not starting or time.monotonic() + pause > deadline:
                    raise
                log.debug("Milvus Lite server for %s not accepting yet; retrying", self.uri)
                time.sleep(pause)
                pause = min(pause * 2, 2.0)

    def _open_error(self, err: Exception) -> StoreUnavailable:
        if self.attached:
            return StoreUnavailable("Milvus Lite", f"cannot attach to the Lite server at {self.uri}: {err}")
        if self.is_lite:
            return StoreUnavailable("Milvus Lite", f"cannot open the vector index {self.uri}: {err}")
        return StoreUnavailable(
            "Milvus server",
            f"cannot reach {self.uri} ({err}); check MEDDIAG_MILVUS_URI and that it is running",
        )

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a client call; Milvus failures become `StoreUnavailable` naming the operation."""
        try:
            return fn(*args, **kwargs)
        except MilvusException as err:
            raise StoreUnavailable(self._label, f"{what} failed: {err}") from err

    @property
    def _label(self) -> str:
        return "Milvus server" if self.uri.startswith(("http://", "https://")) else "Milvus Lite"

    def shared_uri(self) -> str:
        """A URI another process of this machine can open the same collections with, while this
        store stays open: the Lite server's socket for a Lite file (the file itself stays locked)."""
        if not self.is_lite:
            return self.uri
        if self._lite_path not in _SERVED_HERE:
            raise StoreUnavailable("Milvus Lite", f"{self.uri} is closed; it has no server to share")
        from milvus_lite.server_manager import server_manager_instance

        # Returns the running server's socket (started when this store opened the file).
        uri = server_manager_instance.start_and_get_uri(str(self._lite_path))
        if not uri:
            raise StoreUnavailable("Milvus Lite", f"no Lite server serves {self.uri} any more")
        return uri

    # ------------------------------------------------------------------ writing

    def create(self, collection: str, dim: int) -> None:
        if self._call("checking a collection", self._client.has_collection, collection):
            raise MedDiagError(f"The vector collection {collection!r} already exists; drop it first.")
        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=MAX_ID_BYTES)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
        schema.add_field("text", DataType.VARCHAR, max_length=65_535)
        schema.add_field("kind", DataType.VARCHAR, max_length=MAX_KIND_BYTES)
        schema.add_field(
            "sources",
            DataType.ARRAY,
            element_type=DataType.VARCHAR,
            max_capacity=MAX_SOURCES,
            max_length=MAX_SOURCE_BYTES,
        )
        schema.add_field("extra", DataType.JSON)
        index = self._client.prepare_index_params()
        index.add_index(field_name="vector", index_type="AUTOINDEX", metric_type="COSINE")
        self.cache.clear()
        self._call(
            f"creating collection {collection}",
            self._client.create_collection,
            collection,
            schema=schema,
            index_params=index,
        )
        self._loaded.add(collection)

    @staticmethod
    def _row(record: VectorRecord) -> dict[str, Any]:
        # Past 4096 sources a record is visible under any realistic exclusion anyway.
        sources = [_clip(s, MAX_SOURCE_BYTES) for s in record.sources[:MAX_SOURCES]]
        return {
            "id": _clip(record.id, MAX_ID_BYTES),
            "vector": _as_floats(record.vector),
            "text": _clip(record.text, MAX_TEXT_BYTES),
            "kind": _clip(record.kind, MAX_KIND_BYTES),
            "sources": sources,
            "extra": record.extra,
        }

    def insert(self, collection: str, records: Iterable[VectorRecord]) -> int:
        self.cache.clear()  # remembered searches of this collection miss the new records
        total = 0
        iterator: Iterator[VectorRecord] = iter(records)
        while batch := list(islice(iterator, INSERT_BATCH)):
            self._call(
                f"writing to {collection}", self._client.insert, collection, [self._row(r) for r in batch]
            )
            total += len(batch)
            self._unflushed[collection] = self._unflushed.get(collection, 0) + len(batch)
            if self.is_lite and self._unflushed[collection] >= LITE_FLUSH_ROWS:
                # Sealing in steps keeps the Lite server's growing segment, held in memory, small.
                self.finish(collection)
        return total

    def finish(self, collection: str) -> None:
        # Flushed rows are persisted and sealed; a reopened file serves exactly what was flushed.
        self._call(f"indexing {collection}", self._client.flush, collection)
        self.cache.clear()
        self._unflushed[collection] = 0

    # ------------------------------------------------------------------ reading

    def _ensure_loaded(self, collection: str) -> None:
        if collection in self._loaded:
            return
        # A collection reopened from disk or on a server must be loaded before it is searched.
        # Two channels search at once, and `load_collection` may return while the collection is
        # still "loading", so one thread loads and waits until Milvus reports it loaded.
        with self._load_lock:
            if collection in self._loaded:
                return
            self._call(f"loading {collection}", self._client.load_collection, collection)
            deadline = time.monotonic() + LOAD_TIMEOUT_S
            while "Loaded" not in str(
                self._call(f"loading {collection}", self._client.get_load_state, collection).get("state")
            ):
                if time.monotonic() > deadline:
                    raise StoreUnavailable(
                        self._label, f"{collection} did not finish loading in {LOAD_TIMEOUT_S} s"
                    )
                time.sleep(0.05)
            self._loaded.add(collection)

    def _search(
        self, collection: str, vectors: list[list[float]], limit: int, expr: str
    ) -> list[list[VectorHit]]:
        """Milvus's hits for each vector; remembered ones (`SearchCache`) are not asked again,
        the rest go in one client call."""
        limit = min(limit, MAX_SEARCH_LIMIT)
        keys = [search_key(collection, v, limit, expr) for v in vectors]
        answers = {k: hits for k in keys if (hits := self.cache.get(k)) is not None}
        missing = {k: v for k, v in zip(keys, vectors, strict=True) if k not in answers}  # distinct
        if missing:
            results = self._call(
                f"searching {collection}",
                self._client.search,
                collection,
                list(missing.values()),
                filter=expr,
                limit=limit,
                output_fields=OUTPUT_FIELDS,
            )
            for key, result in zip(missing, results, strict=True):
                answers[key] = hits = tuple(_hit(hit) for hit in result)
                self.cache.put(key, hits)
        return [list(answers[k]) for k in keys]

    def search(
        self,
        collection: str,
        vector: Sequence[float],
        top_k: int,
        *,
        kinds: Sequence[str] | None = None,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> list[VectorHit]:
        """Top-k by cosine; records resting only on excluded sources never appear, and k stays exact."""
        return self.search_many(collection, [vector], top_k, kinds=kinds, exclude_sources=exclude_sources)[0]

    def search_many(
        self,
        collection: str,
        vectors: Sequence[Sequence[float]],
        top_k: int,
        *,
        kinds: Sequence[str] | None = None,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> list[list[VectorHit]]:
        """`search` for each vector in as few client calls as possible.

        Each call is a round trip to the Milvus process, so the vectors of one retrieval go in
        one call. Milvus cannot say "every element is in this list", so exclusion over-fetches
        and filters here, growing the fetch (for the vectors still short, again in one call)
        until k visible records are found or the collection is exhausted. The first fetch
        asks for only a few more than k: a case's left-out publications hide about one hit
        in 400 (measured over 60 evaluation cases), and every extra hit is a record the
        client must decode.
        """
        if top_k <= 0 or not vectors:
            return [[] for _ in vectors]
        self._ensure_loaded(collection)
        queries = [_as_floats(v) for v in vectors]
        expr = f"kind in {_literal_list(kinds)}" if kinds else ""
        if not exclude_sources:
            return self._search(collection, queries, top_k, expr)
        out: list[list[VectorHit] | None] = [None] * len(queries)
        pending = list(range(len(queries)))
        fetch = top_k + max(4, top_k // 4)
        while pending:
            batches = self._search(collection, [queries[i] for i in pending], fetch, expr)
            exhausted = fetch >= MAX_SEARCH_LIMIT
            short: list[int] = []
            for i, batch in zip(pending, batches, strict=True):
                kept = [h for h in batch if visible(list(h.sources), exclude_sources)]
                if len(kept) >= top_k or exhausted or len(batch) < min(fetch, MAX_SEARCH_LIMIT):
                    out[i] = kept[:top_k]
                else:
                    short.append(i)
            pending = short
            fetch *= 4
        return [hits or [] for hits in out]

    def count(self, collection: str) -> int:
        self._ensure_loaded(collection)
        rows = self._call(
            f"counting {collection}", self._client.query, collection, filter="", output_fields=["count(*)"]
        )
        return int(rows[0]["count(*)"])

    def collections(self) -> list[str]:
        return sorted(self._call("listing collections", self._client.list_collections))

    def drop(self, collection: str) -> None:
        self.cache.clear()
        if self._call("checking a collection", self._client.has_collection, collection):
            self._call(f"dropping {collection}", self._client.drop_collection, collection)
        self._loaded.discard(collection)

    def close(self) -> None:
        self._client.close()
        if self.is_lite:
            # pymilvus keeps one Lite server process per path alive until exit; stop it so the
            # file's lock is released (the build renames the directory right after).
            from milvus_lite.server_manager import server_manager_instance

            server_manager_instance.release_server(self.uri)
            _SERVED_HERE.discard(self._lite_path)
