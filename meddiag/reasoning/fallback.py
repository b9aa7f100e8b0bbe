"""Falling back from an LLM step to the offline reasoner — visibly.

A step that fails (endpoint down, timeout, output that is not valid JSON, or output that
cites evidence no hop retrieved) is answered by the offline reasoner instead, and the
reason is appended to `FallbackLog.entries` (the reasoner's whole history) and to the
list of the engine node that is running (`collecting_fallbacks`), which the engine shows
on the node's event and gathers into the answer's `ReasonerInfo.fallbacks`. The per-node
list lives in a context variable, so concurrent asks, and the two channels of one ask,
never see each other's fallbacks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from meddiag.errors import ReasonerError

T = TypeVar("T")


class FallbackLog:
    """Append-only list of "step: reason" lines, safe to share between the two channel threads."""

    def __init__(self) -> None:
        self.entries: list[str] = []
        self._lock = threading.Lock()

    def record(self, step: str, reason: str) -> None:
        self.extend([f"{step}: {reason}"])

    def extend(self, lines: list[str]) -> None:
        with self._lock:
            self.entries.extend(lines)


_node_fallbacks: ContextVar[list[str] | None] = ContextVar("meddiag_node_fallbacks", default=None)


@contextmanager
def collecting_fallbacks() -> Iterator[list[str]]:
    """The fallbacks of the reasoner steps run inside this block, in this thread of work."""
    found: list[str] = []
    token = _node_fallbacks.set(found)
    try:
        yield found
    finally:
        _node_fallbacks.reset(token)


def with_fallback(step: str, attempt: Callable[[], T], offline: Callable[[], T], log: FallbackLog) -> T:
    """`attempt()`; on a `ReasonerError` record why and return `offline()` instead.

    Only `ReasonerError` is caught: the LLM client turns transport errors, timeouts and
    invalid output into it, so a bug elsewhere still surfaces as itself.
    """
    try:
        return attempt()
    except ReasonerError as err:
        log.record(step, str(err))
        collector = _node_fallbacks.get()
        if collector is not None:
            collector.append(f"{step}: {err}")
        return offline()
