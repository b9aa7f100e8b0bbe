"""Remembered vector searches: an identical search of an unchanged collection runs once.

The backends embed their keywords one by one, and the same keywords come back question
after question: over 40 evaluation cases, 176 entity searches had 41 distinct query
vectors. Each search is a round trip to the Milvus process and an exhaustive scan
there, so remembering the hits saves both.

What is remembered is Milvus's answer *before* the caller's source exclusion is applied
(the exclusion filters the hits in this process), so one remembered search serves every
question whatever publications it leaves out. A write to any collection forgets
everything: collections change only while a knowledge base is built.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
from cachetools import LRUCache

from meddiag.stores.base import VectorHit

SearchKey = tuple[str, bytes, int, str]  # collection, query vector bytes, limit, filter expression


def search_key(collection: str, vector: Sequence[float], limit: int, expr: str) -> SearchKey:
    return collection, np.asarray(vector, dtype=np.float32).tobytes(), limit, expr


class SearchCache:
    """Thread-safe least-recently-used map from a search to its hits.

    Entries are tuples of frozen `VectorHit`s, shared by every caller (no caller changes a
    hit). A passage search's ~25 hits take ~25 kB in memory, so 1,024 entries stay near 25 MB.
    """

    def __init__(self, size: int = 1024) -> None:
        self._hits: LRUCache[SearchKey, tuple[VectorHit, ...]] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def get(self, key: SearchKey) -> tuple[VectorHit, ...] | None:
        with self._lock:
            return self._hits.get(key)

    def put(self, key: SearchKey, hits: tuple[VectorHit, ...]) -> None:
        with self._lock:
            self._hits[key] = hits

    def clear(self) -> None:
        with self._lock:
            self._hits.clear()
