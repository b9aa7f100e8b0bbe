"""Retrieval latency and recall of the four backends on real patient vignettes, warm.

For each backend: p50/p95 of `retrieve` wall time, mean time per stage, and recall = the
share of cases whose gold disease appears in the relational evidence (the ids listed in
the entity, relationship, hyperedge and path rows). Each case's own publications are left
out, as the evaluation does. Reads GA4GH phenopackets (never copied into the project);
prints numbers and never asserts on time.

    python bench/retrieval.py                      # the full KB (see --home)
    python bench/retrieval.py --cases 50 --backends pathrag minirag --mode relational
    python bench/retrieval.py --home /data/meddiag  # use (or build) the KB there

Without --home, the configured home (MEDDIAG_HOME, default ~/.meddiag) is used when a full
knowledge base is already built there; otherwise one is built under `.meddiag/` in the
working directory (about six minutes on two cores), never into a home another process uses.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from meddiag.backends.base import Backend
from meddiag.backends.registry import get_backend
from meddiag.config import Settings
from meddiag.errors import KnowledgeBaseMissing
from meddiag.eval.phenopackets import Case, load_cases
from meddiag.eval.questions import vignette
from meddiag.knowledge.handle import KnowledgeBaseHandle, open_knowledge_base
from meddiag.schema import BACKENDS, RawContext

DEFAULT_CASES = Path(__file__).resolve().parents[2] / "shared" / "data" / "phenopackets-dev.jsonl"
RELATIONAL_KINDS = ("entity", "relation", "hyperedge", "path")
WARM_UP = 5


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def relational_ids(raw: RawContext) -> set[str]:
    """Entity ids the relational rows stand for; a hyperedge id ``he/<disease>/…`` names its disease."""
    ids: set[str] = set()
    for item in raw.items:
        if item.kind not in RELATIONAL_KINDS:
            continue
        for i in item.ids:
            ids.add(i)
            if i.startswith("he/"):
                ids.add(i.split("/")[1])
    return ids


def gold(case: Case) -> str:
    """The gold disease: the OMIM id when the case has one (the phenopacket's interpretation)."""
    return next((d for d in case.diseases if d.startswith("OMIM:")), case.diseases[0])


def bench_settings(profile: str, home: Path | None) -> Settings:
    """The configured home if it holds a built KB of `profile`, else a bench-owned one."""
    from meddiag.knowledge.manifest import read_manifest

    if home is None:
        configured = Settings(profile=profile)
        if read_manifest(configured.kb_dir) is not None:
            return configured
        home = Path(".meddiag")
    return Settings(home=home, profile=profile)


def open_kb(settings: Settings) -> KnowledgeBaseHandle:
    from meddiag.knowledge.build import build_knowledge_base

    try:
        return open_knowledge_base(settings)
    except KnowledgeBaseMissing:
        print(f"no {settings.profile} knowledge base under {settings.home}; building it (several minutes)")
        build_knowledge_base(settings, profile=settings.profile, progress=lambda msg, _f: print(" ", msg))
        return open_knowledge_base(settings)


@dataclass(frozen=True)
class RunResult:
    """One backend's retrieval latency (ms) and relational recall of the gold disease."""

    p50: float
    p95: float
    mean: float
    recall: float
    known: int  # cases whose gold disease the graph holds
    stages: dict[str, float]  # mean ms per retrieval stage


def run(backend: Backend, cases: list[Case], mode: str, top_k: int, exclude: bool) -> RunResult:
    for case in cases[:WARM_UP]:
        backend.retrieve(vignette(case), top_k=top_k, mode=mode)  # type: ignore[arg-type]
    seconds: list[float] = []
    stages: dict[str, list[float]] = defaultdict(list)
    hits = known = 0
    for case in cases:
        start = time.perf_counter()
        raw = backend.retrieve(
            vignette(case),
            top_k=top_k,
            mode=mode,  # type: ignore[arg-type]
            exclude_sources=case.sources if exclude else frozenset(),
        )
        seconds.append((time.perf_counter() - start) * 1000.0)
        for name, ms in raw.timings.items():
            stages[name].append(ms)
        target = gold(case)
        if backend.kb.graph.get(target) is not None:
            known += 1
            hits += target in relational_ids(raw)
    return RunResult(
        p50=percentile(seconds, 50),
        p95=percentile(seconds, 95),
        mean=statistics.fmean(seconds),
        recall=hits / known if known else 0.0,
        known=known,
        stages={k: statistics.fmean(v) for k, v in stages.items()},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phenopackets", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--profile", choices=["demo", "full"], default="full")
    parser.add_argument("--home", type=Path, default=None, help="knowledge-base home (default: see above)")
    parser.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    parser.add_argument("--mode", choices=["mix", "semantic", "relational"], default="mix")
    parser.add_argument("--top-k", type=int, default=20)
    parser.add_argument("--keep-own-publications", action="store_true", help="do not leave case sources out")
    args = parser.parse_args()

    settings = bench_settings(args.profile, args.home)
    start = time.perf_counter()
    kb = open_kb(settings)
    cases = load_cases(args.phenopackets, limit=args.cases).cases
    print(
        f"knowledge base {args.profile!r} at {settings.home} opened in {time.perf_counter() - start:.1f} s; "
        f"{len(cases)} vignettes, mode {args.mode}, top_k {args.top_k}, "
        f"own publications {'kept' if args.keep_own_publications else 'left out'}"
    )
    print(f"{'backend':<14} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'recall':>8}  stages (mean ms)")
    for name in args.backends:
        result = run(get_backend(name, kb), cases, args.mode, args.top_k, not args.keep_own_publications)
        stages = ", ".join(f"{k} {v:.1f}" for k, v in result.stages.items() if k != "total")
        print(
            f"{name:<14} {result.p50:>8.1f} {result.p95:>8.1f} {result.mean:>8.1f} "
            f"{result.recall:>8.1%}  {stages}  (gold in KB: {result.known})"
        )


if __name__ == "__main__":
    main()
