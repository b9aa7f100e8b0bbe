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
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
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


def summarise_fallbacks(lines: Sequence[str]) -> str:
    """The "step: reason" lines grouped by reason, for people: an endpoint that is down fails
    every step for the same reason, and thirty copies of it hide what happened.

    ``"the endpoint cannot be reached (…) — 31 steps: plan_semantic, filter_passages ×4, …"``
    """
    steps: dict[str, Counter[str]] = {}
    for line in lines:
        step, _, reason = line.partition(": ")
        steps.setdefault(reason or step, Counter())[step] += 1
    parts = []
    for reason, counts in steps.items():
        named = ", ".join(f"{s} ×{n}" if n > 1 else s for s, n in counts.items())
        total = sum(counts.values())
        parts.append(f"{reason} — {total} step{'s' * (total != 1)}: {named}")
    return "; ".join(parts)
