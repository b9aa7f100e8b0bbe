"""The plain Resnik best-match-average baseline, run under the same protocol as the ranker.

Patient → disease only: each finding's best Resnik similarity (IC of the most informative
common ancestor) with any of the disease's features, averaged over findings; OMIM
candidates, no pooling of equivalent diseases, no frequencies, no excluded findings. It
shares the ranker's index machinery, so leaving a case's publications out hides exactly
the same facts for both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.diagnosis.ranking import BASELINE_PARAMS, RankedDisease, rank_diseases
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Relation


def baseline_index(
    ontology: Ontology, relations: Iterable[Relation], names: Mapping[str, str] | None = None
) -> PhenotypeIndex:
    """An index of OMIM diseases with their own annotations only."""
    return PhenotypeIndex(ontology, relations, names, candidate_prefixes=("OMIM",), pool_equivalents=False)


def baseline_rank(
    index: PhenotypeIndex,
    observed: list[str],
    *,
    exclude_sources: frozenset[str] = frozenset(),
    top_k: int = 20,
) -> list[RankedDisease]:
    """Resnik BMA ranking; excluded findings, age and sex are ignored by design."""
    return rank_diseases(
        index, observed, exclude_sources=exclude_sources, top_k=top_k, params=BASELINE_PARAMS
    )
