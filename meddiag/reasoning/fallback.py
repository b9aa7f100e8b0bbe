"""Falling back from an LLM step to the offline reasoner — visibly.

A step that fails (endpoint down, timeout, output that is not valid JSON, or output that
cites evidence no hop retrieved) is answered by the offline reasoner instead, and the
reason is appended to `FallbackLog.entries`, which the engine copies into the answer's
`ReasonerInfo.fallbacks` and shows on the node's event.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from meddiag.errors import ReasonerError

T = TypeVar("T")


class FallbackLog:
    """Append-only list of "step: reason" lines, safe to share between the two channel threads."""

    def __init__(self) -> None:
        self.entries: list[str] = []
        self._lock = threading.Lock()

    def record(self, step: str, reason: str) -> None:
        with self._lock:
            self.entries.append(f"{step}: {reason}")


def with_fallback(step: str, attempt: Callable[[], T], offline: Callable[[], T], log: FallbackLog) -> T:
    """`attempt()`; on a `ReasonerError` record why and return `offline()` instead.

    Only `ReasonerError` is caught: the LLM client turns transport errors, timeouts and
    invalid output into it, so a bug elsewhere still surfaces as itself.
    """
    try:
        return attempt()
    except ReasonerError as err:
        log.record(step, str(err))
        return offline()
