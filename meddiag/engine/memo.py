"""One ask's memory of its retrievals: an identical retrieval runs once per ask.

Hops of the two channels, and an expansion hop repeating an earlier sub-query, can ask
the backend the same thing (query, mode, seeds) within one ask; the knowledge base and
the ask's exclusions do not change meanwhile, so the answer cannot either. The memo
lives in the ask's `RunContext`, so asks share nothing; when both channels ask at once,
the second waits for the first's answer instead of searching again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future

from meddiag.schema import RawContext


class RetrievalMemo:
    """Thread-safe map from a retrieval's key to its `RawContext`, computed once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._found: dict[Hashable, Future[RawContext]] = {}
        self.hits = 0

    def get(self, key: Hashable, compute: Callable[[], RawContext]) -> RawContext:
        """The remembered answer for `key`, else `compute()`'s, remembered. The answer is
        shared between callers: `RawContext` is frozen, and every reader parses it into new
        evidence rather than changing it (a deep copy per call cost ~7 % of an ask).

        A failed retrieval is forgotten, so its error is raised to every waiting caller
        but a later identical call tries again.
        """
        with self._lock:
            future = self._found.get(key)
            owner = future is None
            if future is None:
                future = self._found[key] = Future()
            else:
                self.hits += 1
        if owner:
            try:
                future.set_result(compute())
            except BaseException as exc:
                with self._lock:
                    del self._found[key]
                future.set_exception(exc)
        return future.result()
