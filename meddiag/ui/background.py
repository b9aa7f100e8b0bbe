"""Run a slow service call in a worker thread while the script thread draws its progress.

Streamlit elements may only be updated from the script's own thread, and the engine may
report events from its own threads; so callbacks only enqueue, and this thread draws.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
M = TypeVar("M")


def run_with_updates(
    work: Callable[[Callable[[M], None]], T],
    on_update: Callable[[M], None],
    *,
    poll_s: float = 0.1,
) -> T:
    """Call `work(emit)` in a worker; every `emit(message)` reaches `on_update` in this thread.

    Exceptions raised by `work` propagate unchanged once its queued messages are drawn.
    """
    messages: queue.Queue[M] = queue.Queue()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="meddiag-ui") as pool:
        future = pool.submit(work, messages.put)
        while True:
            try:
                on_update(messages.get(timeout=poll_s))
            except queue.Empty:
                if future.done():
                    break
        while not messages.empty():
            on_update(messages.get_nowait())
        return future.result()
