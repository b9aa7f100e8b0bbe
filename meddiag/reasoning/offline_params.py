"""The few knobs of the offline reasoner, shared by its channel and synthesis steps."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OfflineParams:
    """Defaults are the product's behaviour."""

    plan_findings: int = 4  # findings named in the first sub-query / pattern hop
    follow_candidates: int = 3  # candidates a ``#N`` / ``Entity#N`` reference expands to
    keep_passages: int = 8
    summary_sentences: int = 4
    min_frequency: float = 0.04  # HAS_PHENOTYPE facts rarer than this are dropped as low-confidence
    answer_size: int = 10
    differential_size: int = 10
    # Share of the semantic channel's text scores among the graph's candidates: the median of
    # the weights five publication-split folds pick on a whole-file run (README, Evaluation).
    semantic_weight: float = 0.02
    sufficient_findings: int = 2
    sufficient_margin: float = 0.02  # relative score margin between the top two candidates
    # A finding supports a disease only through a feature at least this share as specific
    # (information content): "ectopia lentis" is not evidence for a disease annotated only
    # with "abnormality of the eye".
    support_ic_share: float = 0.5
    absent_features: int = 2  # frequent disease features the patient lacks, listed against it
