"""Time `assemble_kb` for the demo and full profiles on the packaged HPO and MONDO files.

Prints wall-clock and CPU seconds per step (CPU time is the fairer number on a shared
machine) and the knowledge base's counts. Never asserts on time.

    python bench/assemble_kb.py [demo|full ...]
"""

from __future__ import annotations

import sys
import time
from typing import Any

from meddiag.knowledge.assemble import assemble_kb
from meddiag.knowledge.sources import packaged_sources


def run(profile: str) -> None:
    wall0, cpu0 = time.perf_counter(), time.process_time()
    last: list[Any] = [wall0, cpu0, ""]  # wall, cpu, label of the step under way

    def progress(message: str, fraction: float) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        if last[2]:
            print(f"  {last[2]:<45} wall {wall - last[0]:6.2f} s   cpu {cpu - last[1]:6.2f} s")
        last[:] = [wall, cpu, message]

    kb = assemble_kb(packaged_sources(), profile, progress)  # type: ignore[arg-type]
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    print(f"{profile}: wall {wall:.2f} s, cpu {cpu:.2f} s")
    print(f"  versions: {kb.versions}")
    for key, value in kb.stats.items():
        print(f"  {key:<32} {value:>8}")


if __name__ == "__main__":
    for name in sys.argv[1:] or ["demo", "full"]:
        run(name)
