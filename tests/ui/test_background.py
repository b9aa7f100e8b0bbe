import threading

import pytest

from meddiag.errors import BackendError
from meddiag.ui.background import run_with_updates


def test_updates_are_drawn_on_the_calling_thread_in_order():
    caller = threading.get_ident()
    seen: list[tuple[int, int]] = []

    def work(emit):
        for i in range(5):
            emit(i)
        return "done"

    assert run_with_updates(work, lambda m: seen.append((m, threading.get_ident())), poll_s=0.01) == "done"
    assert [m for m, _ in seen] == [0, 1, 2, 3, 4]
    assert {t for _, t in seen} == {caller}


def test_errors_from_the_worker_reach_the_caller_after_its_updates():
    seen: list[str] = []

    def work(emit):
        emit("retrieving")
        raise BackendError("The lightrag backend failed.")

    with pytest.raises(BackendError, match="lightrag"):
        run_with_updates(work, seen.append, poll_s=0.01)
    assert seen == ["retrieving"]
