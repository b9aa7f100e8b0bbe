"""Time a whole knowledge-base build (assemble, embed, Milvus Lite, graph) for demo and full.

Builds into a temporary MEDDIAG_HOME and prints wall and CPU seconds per stage (CPU time is
the fairer number on a shared machine), the total, peak RSS of this process and its
children, and the counts. Never asserts on time. Targets: demo ≤ 60 s; full ≤ 6 min, ≤ 4 GB.

    python bench/build_kb.py [demo|full ...] [--embedder lsa-192]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

from meddiag.config import DEFAULT_EMBEDDER, Settings
from meddiag.knowledge.build import build_knowledge_base
from meddiag.knowledge.handle import open_knowledge_base


def children_cpu() -> float:
    """CPU seconds of this process's exited children (the Milvus Lite server once stopped)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024  # Linux reports KiB


QUERIES = [
    "long slender fingers and dislocated lens",
    "aortic root dilatation in a tall young man",
    "autosomal recessive intellectual disability with seizures",
    "short stature and delayed bone age",
]


def search_latency(settings: Settings) -> None:
    """Median search time per collection on the opened knowledge base, plain and with exclusion."""
    with open_knowledge_base(settings) as kb:
        vectors = kb.embedder.embed(QUERIES)
        excluded = frozenset({"PMID:12345678", "OMIM:154700"})
        print(f"{'search (median of 4)':<28}{'plain ms':>10}{'excl. ms':>10}")
        for name in kb.manifest.collections:
            physical = kb.collection(name)
            kb.vectors.search(physical, vectors[0], 10)  # first search loads the collection
            plain, filtered = [], []
            for vector in vectors:
                t0 = time.perf_counter()
                kb.vectors.search(physical, vector, 10)
                plain.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                kb.vectors.search(physical, vector, 10, exclude_sources=excluded)
                filtered.append(time.perf_counter() - t0)
            print(
                f"{name:<28}{statistics.median(plain) * 1000:>10.1f}{statistics.median(filtered) * 1000:>10.1f}"
            )


def run(profile: str, embedder: str) -> None:
    with tempfile.TemporaryDirectory(prefix="meddiag-bench-") as home:
        settings = Settings(
            _env_file=None, home=Path(home), profile=profile, embedder=embedder, milvus_uri="", neo4j_uri=""
        )
        wall0, cpu0, server0 = time.perf_counter(), time.process_time(), children_cpu()
        manifest = build_knowledge_base(settings, force=True)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        server = children_cpu() - server0
        print(f"\n== {profile} ({embedder}) ==")
        print(f"{'stage':<28}{'wall s':>10}{'cpu s':>10}")
        for stage, seconds in manifest.stage_seconds.items():
            print(f"{stage:<28}{seconds:>10.2f}{manifest.stage_cpu_seconds.get(stage, 0.0):>10.2f}")
        print(f"{'total':<28}{wall:>10.2f}{cpu:>10.2f}")
        # The Milvus Lite server is a child process; its CPU is counted once it has exited.
        print(f"{'+ Milvus Lite server':<28}{'':>10}{server:>10.2f}")
        print(f"{'total with server':<28}{wall:>10.2f}{cpu + server:>10.2f}")
        print(f"peak RSS: {peak_rss_mb():.0f} MB")
        size = sum(p.stat().st_size for p in settings.kb_dir.rglob("*") if p.is_file())
        print(f"knowledge base on disk: {size / 2**20:.0f} MB")
        search_latency(settings)
        counts = manifest.counts
        print(f"documents {counts.documents}  chunks {counts.chunks}  hyperedges {counts.hyperedges}")
        print(f"entities  {counts.entities}")
        print(f"relations {counts.relations}")
        print(f"vectors   {counts.vectors}  (total {sum(counts.vectors.values())})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profiles", nargs="*", default=["demo", "full"], choices=["demo", "full"])
    parser.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    args = parser.parse_args()
    for name in args.profiles:
        run(name, args.embedder)
