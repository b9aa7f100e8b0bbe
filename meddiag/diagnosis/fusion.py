"""Combine the relational channel's phenotype scores with the semantic channel's text scores.

The two channels score on unrelated scales (log-likelihood-like sums vs. passage
similarities), so each is standardised to z-scores over the diseases it scored before
mixing. A disease one channel did not score gets that channel's lowest z-score: no
support, but no extra penalty either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

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
    """`(1 - weight) · z(relational) + weight · z(semantic)` over the union of diseases.

    `weight` is the semantic channel's share in [0, 1]; 0 keeps the relational order.
    """
    if not 0.0 <= weight <= 1.0:
        raise InputError(f"The semantic channel's weight must be between 0 and 1, not {weight}.")
    z_rel, z_sem = zscores(relational), zscores(semantic)
    floor_rel = min(z_rel.values(), default=0.0)
    floor_sem = min(z_sem.values(), default=0.0)
    keys = list(dict.fromkeys([*z_rel, *z_sem]))
    return {k: (1.0 - weight) * z_rel.get(k, floor_rel) + weight * z_sem.get(k, floor_sem) for k in keys}
