"""Latency of `Engine.ask` on real patient vignettes, warm, and the gain of running the channels at once.

Reads GA4GH phenopackets (never copied into the project), asks each as structured patient
input with the case's own publications left out (as the evaluation does), and prints
p50/p95 of the wall time per ask, then the wall time of the same asks with the channels
run one after the other. Prints numbers; never asserts on time.

    python bench/ask_latency.py --cases 200 --profile full
    python bench/ask_latency.py --home /data/meddiag --cases 30 --ratio-cases 10
    python bench/ask_latency.py --cases 50 --backend pathrag --ratio-cases 20
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from pathlib import Path

from meddiag.config import Settings
from meddiag.engine.api import Engine, create_engine
from meddiag.errors import MedDiagError
from meddiag.eval.phenopackets import Case, load_cases
from meddiag.schema import BACKENDS, PatientInput

DEFAULT_CASES = Path(__file__).resolve().parents[2] / "shared" / "data" / "phenopackets-dev.jsonl"


def patient(case: Case) -> PatientInput:
    return PatientInput(
        observed=[f.id for f in case.observed],
        excluded=[f.id for f in case.excluded],
        age_years=case.age_years,
        sex=case.sex,
    )


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def timed_asks(engine: Engine, cases: list[Case], *, sequential: bool) -> tuple[list[float], Counter[str]]:
    seconds: list[float] = []
    outcomes: Counter[str] = Counter()
    for case in cases:
        start = time.perf_counter()
        result = engine.ask(patient=patient(case), exclude_sources=case.sources, sequential=sequential)
        seconds.append(time.perf_counter() - start)
        top = [d.id for d in result.synthesis.differential[:10]]
        outcomes["top10" if any(d in top for d in case.diseases) else "miss"] += 1
    return seconds, outcomes


def channel_overlap(engine: Engine, case: Case) -> tuple[float, float, float]:
    """(semantic span, relational span, overlap) in seconds for one ask."""
    events = engine.ask(patient=patient(case), exclude_sources=case.sources).events
    spans = {}
    for channel in ("semantic", "relational"):
        mine = [e for e in events if e.channel == channel]
        spans[channel] = (min(e.start for e in mine), max(e.end for e in mine))
    (s0, s1), (r0, r1) = spans["semantic"], spans["relational"]
    return s1 - s0, r1 - r0, max(0.0, min(s1, r1) - max(s0, r0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phenopackets", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--cases", type=int, default=200, help="vignettes timed in parallel mode")
    parser.add_argument(
        "--ratio-cases", type=int, default=50, help="vignettes timed in both modes for the ratio"
    )
    parser.add_argument("--profile", choices=["demo", "full"], default="full")
    parser.add_argument("--backend", choices=BACKENDS, default=None, help="default: the configured backend")
    parser.add_argument(
        "--home", type=Path, default=None, help="knowledge-base home (default: MEDDIAG_HOME, else ~/.meddiag)"
    )
    args = parser.parse_args()

    settings = (
        Settings(profile=args.profile)
        if args.home is None
        else Settings(home=args.home, profile=args.profile)
    )
    start = time.perf_counter()
    try:
        engine = create_engine(settings, backend=args.backend)
    except MedDiagError as err:
        raise SystemExit(f"Cannot open the {args.profile!r} knowledge base: {err}") from err
    cases = load_cases(args.phenopackets, limit=args.cases).cases
    print(f"knowledge base {args.profile!r}, backend {engine.backend}, reasoner {engine.reasoner.name}")
    print(f"opened in {time.perf_counter() - start:.1f} s; {len(cases)} vignettes")

    start = time.perf_counter()
    engine.ask(patient=patient(cases[0]))  # warm-up: loads the reasoner's and stores' caches
    print(f"first ask (cold): {time.perf_counter() - start:.2f} s")

    seconds, outcomes = timed_asks(engine, cases, sequential=False)
    print(
        f"ask, channels in parallel, n={len(seconds)}: p50 {percentile(seconds, 50):.3f} s, "
        f"p95 {percentile(seconds, 95):.3f} s, mean {statistics.mean(seconds):.3f} s, "
        f"max {max(seconds):.3f} s   (targets: p50 <= 1 s, p95 <= 2 s)"
    )
    print(f"gold disease in top 10: {outcomes['top10']}/{len(seconds)}")

    # Both modes ask each case; which goes first (and meets colder name caches) alternates
    # case by case, so that cache warming favours neither.
    parallel = sequential = 0.0
    subset = cases[: args.ratio_cases]
    for i, case in enumerate(subset):
        for seq in (False, True) if i % 2 == 0 else (True, False):
            took = sum(timed_asks(engine, [case], sequential=seq)[0])
            if seq:
                sequential += took
            else:
                parallel += took
    print(
        f"wall time over {len(subset)} asks: parallel {parallel:.2f} s, sequential {sequential:.2f} s, "
        f"ratio {parallel / sequential:.2f}   (target <= 0.6)"
    )
    sem, rel, overlap = channel_overlap(engine, cases[0])
    print(f"one ask: semantic channel {sem:.3f} s, relational {rel:.3f} s, overlapping {overlap:.3f} s")


if __name__ == "__main__":
    main()
