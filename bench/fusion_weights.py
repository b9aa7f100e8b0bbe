"""How much the semantic channel's text scores should move the differential, from full-engine runs.

    meddiag eval ../shared/data/phenopackets-dev.jsonl --out eval-lpo
    python bench/fusion_weights.py eval-lpo/cases.jsonl
    python bench/fusion_weights.py eval-lpo/cases.jsonl --weights 0 0.05 0.1 --folds 5
    python bench/fusion_weights.py eval-lpo/cases.jsonl --ties-against

Every answered case of a `meddiag eval --out` run carries the per-channel disease scores
its synthesis fused (`synthesis.channel_scores`). This re-fuses them at each weight with
the engine's own `fuse_scores` and ordering, prints the in-knowledge-base accuracy per
weight, and picks the weight on training folds split by publication (no case's publication
is in both), reporting the held-out figures of the picks. Nothing is re-run through the
engine, so a whole-file study takes seconds.

It also counts, case by case, the first places the default weight gains and loses against
weight 0 (the relational channel alone), with a two-sided sign test. ``--ties-against``
places the gold after every row with exactly its fused score, as ``meddiag eval``'s
``ties_against_in_kb`` does, so that catalogue-id order decides nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from meddiag.diagnosis.fusion import exact_ties, fuse_scores, fused_order
from meddiag.eval.metrics import Accuracy, accuracy, gold_place, rank_ties_against
from meddiag.reasoning.offline_params import OfflineParams

DEFAULT_WEIGHTS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
DIFFERENTIAL_SIZE = OfflineParams().differential_size
SEMANTIC_WEIGHT = OfflineParams().semantic_weight


@dataclass(frozen=True)
class FusedCase:
    case_id: str
    publication: str
    gold: frozenset[str]
    relational: dict[str, float]
    semantic: dict[str, float]


def load_runs(paths: Sequence[Path]) -> list[FusedCase]:
    """In-knowledge-base cases with recorded channel scores; later files win on repeated ids."""
    cases: dict[str, FusedCase] = {}
    for path in paths:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                record = json.loads(line)["record"]
                result = record.get("result") or {}
                scores = (result.get("synthesis") or {}).get("channel_scores") or {}
                if not record["in_kb"] or not scores:
                    continue
                # A full-protocol run leaves nothing out: the record's own publications group it.
                sources = sorted(
                    record.get("publications") or result.get("excluded_sources") or [record["case_id"]]
                )
                cases[record["case_id"]] = FusedCase(
                    case_id=record["case_id"],
                    publication=sources[0],
                    gold=frozenset(record["gold"]),
                    relational=scores.get("relational", {}),
                    semantic=scores.get("semantic", {}),
                )
    return list(cases.values())


def gold_rank(case: FusedCase, weight: float, ties_against: bool = False) -> int | None:
    """The gold disease's place in the differential the synthesis would show at `weight`; with
    `ties_against`, behind every row whose fused score equals its own (`meddiag eval`'s
    ``ties_against_in_kb``), so that catalogue-id order never decides."""
    fused = fuse_scores(case.relational, case.semantic, weight)
    order = fused_order(fused, DIFFERENTIAL_SIZE)
    if ties_against:
        ties = exact_ties(fused, order)
        return rank_ties_against(order, [ties[d] for d in order], case.gold)
    return gold_place(order, case.gold)


def first_places(a: Sequence[int | None], b: Sequence[int | None]) -> tuple[int, int, float]:
    """Cases `a` ranks first and `b` does not, the reverse, and the two-sided sign test's p-value
    (the question "do both channels beat the relational channel alone?" case by case)."""
    gains = sum(1 for x, y in zip(a, b, strict=True) if x == 1 and y != 1)
    losses = sum(1 for x, y in zip(a, b, strict=True) if y == 1 and x != 1)
    n, k = gains + losses, min(gains, losses)
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n) if n else 1.0
    return gains, losses, p


def objective(acc: Accuracy) -> float:
    """MRR, then top-10 as the tie-breaker: both reward the whole list, not only its head."""
    return acc.mrr + acc.top[10] / 100


def cross_validate(
    cases: Sequence[FusedCase], weights: Sequence[float], folds: int, seed: int, ties_against: bool = False
) -> tuple[list[float], Accuracy]:
    """The weight picked on each fold's training cases and the held-out accuracy of the picks."""
    pubs = sorted({c.publication for c in cases})
    random.Random(seed).shuffle(pubs)
    fold_of = {p: i % folds for i, p in enumerate(pubs)}
    picks: list[float] = []
    held: list[int | None] = []
    for k in range(folds):
        train = [c for c in cases if fold_of[c.publication] != k]
        test = [c for c in cases if fold_of[c.publication] == k]
        best = max(
            weights, key=lambda w: (objective(accuracy([gold_rank(c, w, ties_against) for c in train])), -w)
        )
        picks.append(best)
        held += [gold_rank(c, best, ties_against) for c in test]
    return picks, accuracy(held)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", type=Path, help="cases.jsonl of `meddiag eval --out` runs")
    ap.add_argument("--weights", nargs="*", type=float, default=list(DEFAULT_WEIGHTS))
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--ties-against", action="store_true", help="count exact ties against the method (not by id)"
    )
    args = ap.parse_args(argv)
    cases, ties = load_runs(args.runs), args.ties_against
    if not cases:
        raise SystemExit("No in-knowledge-base case with recorded channel scores in these runs.")
    print(f"{len(cases)} in-knowledge-base cases, {len({c.publication for c in cases})} publications")
    for w in args.weights:
        print(f"semantic_weight {w:4.2f}  {accuracy([gold_rank(c, w, ties) for c in cases]).line()}")
    gains, losses, p = first_places(
        [gold_rank(c, SEMANTIC_WEIGHT, ties) for c in cases], [gold_rank(c, 0.0, ties) for c in cases]
    )
    print(
        f"first places at the default {SEMANTIC_WEIGHT:g} against the relational channel alone (0): "
        f"gains {gains}, losses {losses}, sign test p = {p:.2g}"
    )
    if args.folds > 1:
        picks, held = cross_validate(cases, args.weights, args.folds, args.seed, ties)
        print(f"picked per fold: {', '.join(f'{w:g}' for w in picks)}")
        print(f"held-out, {args.folds} folds by publication  {held.line()}")


if __name__ == "__main__":
    main()
