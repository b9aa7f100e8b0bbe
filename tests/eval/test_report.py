from __future__ import annotations

import pytest

from meddiag.eval.report import in_kb_intervals
from meddiag.eval.runner import CaseRecord


def _record(case_id: str, rank: int | None, in_kb: bool = True) -> CaseRecord:
    return CaseRecord(
        case_id=case_id, gold=["OMIM:1"], in_kb=in_kb, question="q", rank=rank, top10=[], seconds=0.1
    )


def test_intervals_count_only_cases_whose_diagnosis_the_kb_knows() -> None:
    records = [_record("a", 1), _record("b", 1), *(_record(f"x{i}", None, in_kb=False) for i in range(5))]
    intervals = in_kb_intervals(records, ["p1", "p2", *(f"q{i}" for i in range(5))])
    assert intervals == {"top1": [1.0, 1.0], "top10": [1.0, 1.0]}


def test_intervals_read_top1_and_top10_from_the_ranks() -> None:
    # top-1 hit in one paper, rank 4 in the other: top-10 is certain, top-1 is not.
    intervals = in_kb_intervals([_record("a", 1), _record("b", 4)], ["p1", "p2"])
    assert intervals["top10"] == [1.0, 1.0]
    lo, hi = intervals["top1"]
    assert lo == 0.0 and hi == 1.0


def test_intervals_need_one_publication_per_record() -> None:
    with pytest.raises(ValueError, match="same cases"):
        in_kb_intervals([_record("a", 1)], [])
