from __future__ import annotations

import pytest

from meddiag.eval.report import by_publication
from meddiag.eval.runner import CaseRecord


def _record(case_id: str, rank: int | None, in_kb: bool = True) -> CaseRecord:
    return CaseRecord(
        case_id=case_id, gold=["OMIM:1"], in_kb=in_kb, question="q", rank=rank, top10=[], seconds=0.1
    )


def test_publication_figures_count_only_cases_whose_diagnosis_the_kb_knows() -> None:
    records = [_record("a", 1), _record("b", 1), *(_record(f"x{i}", None, in_kb=False) for i in range(5))]
    figures = by_publication(records, ["p1", "p2", *(f"q{i}" for i in range(5))])
    assert figures.publications == 2
    assert figures.ci95 == {"top1": [1.0, 1.0], "top10": [1.0, 1.0]}
    assert figures.per_publication == {"top1": 1.0, "top10": 1.0}


def test_publication_figures_read_top1_and_top10_from_the_ranks() -> None:
    # top-1 hit in one paper, rank 4 in the other: top-10 is certain, top-1 is not.
    figures = by_publication([_record("a", 1), _record("b", 4)], ["p1", "p2"])
    assert figures.ci95 == {"top1": [0.0, 1.0], "top10": [1.0, 1.0]}


def test_a_cohort_weighs_one_paper_in_the_per_publication_figures() -> None:
    # one paper of three patients all found first, one single patient missed
    records = [_record("a", 1), _record("b", 1), _record("c", 1), _record("d", None)]
    figures = by_publication(records, ["cohort", "cohort", "cohort", "single"])
    assert figures.per_publication == {"top1": 0.5, "top10": 0.5}


def test_publication_figures_need_one_publication_per_record() -> None:
    with pytest.raises(ValueError, match="same cases"):
        by_publication([_record("a", 1)], [])
