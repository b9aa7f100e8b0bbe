"""CPU time spent by this process and everything it started (worker processes, a Milvus Lite
server), read from Linux's /proc.

Cases per second also counts waiting and how many cores the run got; the processor time a
run spends per case counts only the work, so it tells a change in the work from a busier
machine. On a shared virtual machine it still moves by several per cent (the host's load
changes how fast a core runs). A Milvus server reached over the network runs elsewhere and is
not counted.
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def _stat(path: Path, ticks: int) -> tuple[int, float] | None:
    """(parent pid, user + system CPU seconds) of one /proc/<pid>/stat, or None if unreadable."""
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except OSError:  # the process ended while we looked
        return None
    try:
        # The command name (field 2) is in parentheses and may itself hold spaces or ")".
        fields = text[text.rindex(")") + 2 :].split()
        ppid, utime, stime = int(fields[1]), int(fields[11]), int(fields[12])
    except (IndexError, ValueError):
        return None
    return ppid, (utime + stime) / ticks


def _ticks_per_second() -> int:
    try:
        return os.sysconf("SC_CLK_TCK")
    except (AttributeError, ValueError, OSError):
        return 100


def tree_cpu_seconds(pid: int | None = None, proc: Path = PROC) -> float | None:
    """CPU seconds of `pid` (default: this process) and its live descendants, or None where
    there is no /proc to read (not Linux). Descendants that ended are not counted, so measure
    while the workers still run."""
    if not proc.is_dir():
        return None
    root = os.getpid() if pid is None else pid
    stats: dict[int, tuple[int, float]] = {}
    try:
        entries = list(proc.iterdir())
    except OSError:
        return None
    ticks = _ticks_per_second()
    for entry in entries:
        if entry.name.isdigit() and (stat := _stat(entry / "stat", ticks)) is not None:
            stats[int(entry.name)] = stat
    if root not in stats:
        return None
    children: dict[int, list[int]] = {}
    for child, (parent, _) in stats.items():
        children.setdefault(parent, []).append(child)
    total, todo = 0.0, [root]
    while todo:
        current = todo.pop()
        total += stats[current][1]
        todo.extend(children.get(current, ()))
    return total
