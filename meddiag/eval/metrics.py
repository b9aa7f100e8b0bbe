"""Accuracy and latency figures from gold ranks: pure functions, no I/O.

A gold rank is the 1-based position of the first correct disease in a ranked list, or
None when the correct disease was not ranked at all (it counts as a miss everywhere and
adds 0 to the mean reciprocal rank).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np
from pydantic import BaseModel, Field

CUTOFFS: tuple[int, ...] = (1, 3, 10)


class Accuracy(BaseModel):
    n: int
    top: dict[int, float] = Field(default_factory=dict)  # cutoff -> share of cases in [0, 1]
    mrr: float = 0.0

    def line(self) -> str:
        tops = "  ".join(f"top-{k} {100 * v:5.1f}%" for k, v in sorted(self.top.items()))
        return f"n={self.n:5d}  {tops}  MRR {self.mrr:.3f}"


def accuracy(ranks: Sequence[int | None], cutoffs: Sequence[int] = CUTOFFS) -> Accuracy:
    """Top-k shares and MRR; an empty list gives zeros rather than dividing by zero."""
    n = len(ranks)
    if n == 0:
        return Accuracy(n=0, top={k: 0.0 for k in cutoffs}, mrr=0.0)
    for r in ranks:
        if r is not None and r < 1:
            raise ValueError(f"ranks are 1-based; got {r}")
    top = {k: sum(1 for r in ranks if r is not None and r <= k) / n for k in cutoffs}
    mrr = sum(1.0 / r for r in ranks if r is not None) / n
    return Accuracy(n=n, top=top, mrr=mrr)


def cluster_interval(
    hits: Sequence[bool],
    clusters: Sequence[str],
    *,
    draws: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """A bootstrap interval for the share of hits, resampling whole clusters.

    Patients of one publication share its authors, its wording and often its diagnosis, so
    they are not independent: resampling cases one by one would claim more certainty than a
    new set of published cases can give. Clusters (publications) are drawn with replacement
    and the hit share recomputed `draws` times; the interval spans the middle `level` of
    those shares. Seeded, so a report is reproducible.
    """
    if len(hits) != len(clusters):
        raise ValueError("hits and clusters must describe the same cases")
    if not hits:
        return (0.0, 0.0)
    if not 0 < level < 1:
        raise ValueError(f"level must lie between 0 and 1; got {level}")
    names = sorted(set(clusters))
    of = {c: i for i, c in enumerate(names)}
    idx = np.fromiter((of[c] for c in clusters), dtype=np.int64, count=len(clusters))
    n_hit = np.bincount(idx, weights=np.asarray(hits, dtype=np.float64), minlength=len(names))
    n_all = np.bincount(idx, minlength=len(names)).astype(np.float64)
    picks = np.random.default_rng(seed).integers(0, len(names), size=(draws, len(names)))
    shares = n_hit[picks].sum(axis=1) / n_all[picks].sum(axis=1)
    tail = 100 * (1 - level) / 2
    lo, hi = np.percentile(shares, [tail, 100 - tail])
    return (float(lo), float(hi))


def cluster_mean(hits: Sequence[bool], clusters: Sequence[str]) -> float:
    """The share of hits with each cluster (publication) weighing one, however many cases it
    has: a cohort of hundreds of patients with one diagnosis then counts as one paper."""
    if len(hits) != len(clusters):
        raise ValueError("hits and clusters must describe the same cases")
    per: dict[str, list[bool]] = {}
    for hit, cluster in zip(hits, clusters, strict=True):
        per.setdefault(cluster, []).append(hit)
    return sum(sum(v) / len(v) for v in per.values()) / len(per) if per else 0.0


class PublicationFigures(BaseModel):
    """Top-k shares seen through the publications the cases come from."""

    publications: int
    ci95: dict[str, list[float]]  # "top1"/"top10" -> [low, high], publications resampled whole
    per_publication: dict[str, float]  # "top1"/"top10" with each publication weighing one


def publication_figures(
    ranks: Sequence[int | None], publications: Sequence[str], cutoffs: Sequence[int] = (1, 10)
) -> PublicationFigures:
    """`cluster_interval` and `cluster_mean` of the top-k shares, the publications as clusters."""
    if len(ranks) != len(publications):
        raise ValueError("ranks and publications must describe the same cases")
    ci95: dict[str, list[float]] = {}
    per: dict[str, float] = {}
    for k in cutoffs:
        hits = [r is not None and r <= k for r in ranks]
        ci95[f"top{k}"] = list(cluster_interval(hits, publications))
        per[f"top{k}"] = cluster_mean(hits, publications)
    return PublicationFigures(publications=len(set(publications)), ci95=ci95, per_publication=per)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks."""
    if not values:
        return 0.0
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be within 0..100; got {q}")
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


class Latency(BaseModel):
    n: int
    p50: float
    p95: float
    mean: float


def latency(seconds: Sequence[float]) -> Latency:
    n = len(seconds)
    return Latency(
        n=n,
        p50=percentile(seconds, 50),
        p95=percentile(seconds, 95),
        mean=sum(seconds) / n if n else 0.0,
    )


def gold_place(ids: Sequence[str], gold: Collection[str]) -> int | None:
    """1-based place of the first gold row in a ranked list; None when none is listed."""
    return next((i for i, row in enumerate(ids, 1) if row in gold), None)


def rank_ties_against(
    ids: Sequence[str], tied_with: Sequence[Sequence[str]], gold: Collection[str]
) -> int | None:
    """1-based place of the first gold row with every other row tied with it counted above it.

    The differential orders exactly tied rows by catalogue id, which may favour the method
    or not; counted this way a tie never does (as `bench/rank_accuracy.py` counts them)."""
    place = gold_place(ids, gold)
    if place is None:
        return None
    rivals = {t for t in tied_with[place - 1] if t not in gold}
    return max([place, *(j for j, other in enumerate(ids, 1) if other in rivals)])


class Report(BaseModel):
    """Figures for one run: all usable cases, the in-KB subset, and what was skipped."""

    all_cases: Accuracy
    in_kb: Accuracy
    skipped: dict[str, int] = Field(default_factory=dict)
    latency: Latency | None = None


def report(
    ranks: Sequence[int | None],
    in_kb: Sequence[bool],
    *,
    skipped: Mapping[str, int] | None = None,
    seconds: Sequence[float] | None = None,
) -> Report:
    if len(ranks) != len(in_kb):
        raise ValueError("ranks and in_kb flags must describe the same cases")
    return Report(
        all_cases=accuracy(ranks),
        in_kb=accuracy([r for r, k in zip(ranks, in_kb, strict=True) if k]),
        skipped=dict(skipped or {}),
        latency=latency(seconds) if seconds is not None else None,
    )
