"""Combine the relational channel's phenotype scores with the semantic channel's text scores.

The two channels score on unrelated scales (log-likelihood-like sums vs. passage
similarities), so each is standardised to z-scores over the diseases it scored before
mixing. A disease the semantic channel did not score gets that channel's lowest z-score:
no support, but no extra penalty either. A disease *only* the semantic channel scored
ranks below every disease the relational channel scored: nothing in the knowledge graph's
phenotype annotations backs it, and letting passage scores lift such diseases over the
graph's candidates pushed correct diagnoses out of the top ten more often than it brought
them in (measured on full-engine runs, `bench/fusion_weights.py`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from meddiag.errors import InputError


def zscores(scores: Mapping[str, float]) -> dict[str, float]:
    """(x - mean) / sd over the finite scores; all zeros when they do not vary."""
    finite = {k: v for k, v in scores.items() if math.isfinite(v)}
    if not finite:
        return {}
    mean = sum(finite.values()) / len(finite)
    var = sum((v - mean) ** 2 for v in finite.values()) / len(finite)
    sd = math.sqrt(var)
    if sd == 0:
        return dict.fromkeys(finite, 0.0)
    return {k: (v - mean) / sd for k, v in finite.items()}


def fuse_scores(
    relational: Mapping[str, float], semantic: Mapping[str, float], weight: float
) -> dict[str, float]:
    """`(1 - weight) · z(relational) + weight · z(semantic)` for the relational channel's diseases;
    the semantic channel's other diseases follow below them, in their text-score order.

    `weight` is the semantic channel's share in [0, 1]; 0 keeps the relational order. With
    no relational scores at all (the semantic channel alone) the text scores decide.
    """
    if not 0.0 <= weight <= 1.0:
        raise InputError(f"The semantic channel's weight must be between 0 and 1, not {weight}.")
    z_rel, z_sem = zscores(relational), zscores(semantic)
    if not z_rel:
        return z_sem
    floor_sem = min(z_sem.values(), default=0.0)
    fused = {k: (1.0 - weight) * z + weight * z_sem.get(k, floor_sem) for k, z in z_rel.items()}
    text_only = {k: z for k, z in z_sem.items() if k not in fused}
    if text_only:
        # One unit below the last graph candidate, then spaced by the text z-scores.
        below, top = min(fused.values()) - 1.0, max(text_only.values())
        fused.update({k: below - (top - z) for k, z in text_only.items()})
    return fused


def fused_order(fused: Mapping[str, float], size: int) -> list[str]:
    """The `size` best diseases by fused score; ties broken by id, so the order is reproducible."""
    return sorted(fused, key=lambda d: (-fused[d], d))[:size]


def exact_ties(fused: Mapping[str, float], order: Sequence[str]) -> dict[str, list[str]]:
    """For each listed disease, the other listed ones with exactly its fused score.

    Members of a series curated with identical features score the same; the id that breaks
    their tie says nothing about fit, and a clinician must see that. Exact equality, since
    a profile with nothing visible sits deliberately just below its lender (`JUST_BELOW`).
    """
    by_score: dict[float, list[str]] = {}
    for d in order:
        by_score.setdefault(fused[d], []).append(d)
    return {d: [o for o in by_score[fused[d]] if o != d] for d in order}
