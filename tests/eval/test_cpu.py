from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from meddiag.eval.cpu import _ticks_per_second, tree_cpu_seconds


def _fake_process(proc: Path, pid: int, name: str, ppid: int, utime: int, stime: int) -> None:
    # Fields after the name: state, ppid, pgrp, session, tty, tpgid, flags, minflt, cminflt,
    # majflt, cmajflt, utime, stime, ...
    rest = ["S", ppid, pid, pid, 0, -1, 0, 0, 0, 0, 0, utime, stime, 0, 0, 20, 0, 1]
    (proc / str(pid)).mkdir()
    (proc / str(pid) / "stat").write_text(f"{pid} ({name}) " + " ".join(map(str, rest)) + "\n")


def test_a_process_tree_sums_its_own_and_its_descendants_cpu(tmp_path: Path) -> None:
    tick = _ticks_per_second()
    _fake_process(tmp_path, 10, "meddiag eval", 1, 3 * tick, 1 * tick)
    _fake_process(tmp_path, 11, "python) (worker", 10, 5 * tick, 0)  # a name holding ") ("
    _fake_process(tmp_path, 12, "milvus", 11, 2 * tick, 2 * tick)
    _fake_process(tmp_path, 13, "unrelated", 1, 50 * tick, 0)
    (tmp_path / "self").mkdir()  # not a pid: ignored
    (tmp_path / "14").mkdir()  # ended while we looked: no stat file
    assert tree_cpu_seconds(10, proc=tmp_path) == pytest.approx(13.0)
    assert tree_cpu_seconds(12, proc=tmp_path) == pytest.approx(4.0)
    assert tree_cpu_seconds(99, proc=tmp_path) is None


def test_without_proc_there_is_no_figure(tmp_path: Path) -> None:
    assert tree_cpu_seconds(proc=tmp_path / "missing") is None


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_busy_child_process_counts_toward_this_process() -> None:
    before = tree_cpu_seconds()
    assert before is not None
    busy = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\ntime.sleep(30)\n"
    child = subprocess.Popen([sys.executable, "-c", busy])
    try:
        deadline = time.monotonic() + 20
        while (now := tree_cpu_seconds()) is not None and now - before < 0.6 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert now is not None and now - before >= 0.6
    finally:
        child.kill()
        child.wait()
