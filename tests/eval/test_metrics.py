from __future__ import annotations

import pytest

from meddiag.eval.metrics import accuracy, latency, percentile, report


def test_topk_and_mrr_by_hand() -> None:
    # ranks 1, 2, 5, 12 and one miss: top-1 1/5, top-3 2/5, top-10 3/5
    acc = accuracy([1, 2, 5, 12, None])
    assert acc.n == 5
    assert acc.top == pytest.approx({1: 0.2, 3: 0.4, 10: 0.6})
    assert acc.mrr == pytest.approx((1 + 1 / 2 + 1 / 5 + 1 / 12) / 5)


def test_no_cases_give_zeros() -> None:
    acc = accuracy([])
    assert acc.n == 0 and acc.mrr == 0.0 and acc.top[10] == 0.0


def test_zero_rank_is_rejected() -> None:
    with pytest.raises(ValueError, match="1-based"):
        accuracy([0])


def test_percentiles_interpolate() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == pytest.approx(2.5)
    assert percentile([4.0, 1.0, 3.0, 2.0], 95) == pytest.approx(3.85)
    assert percentile([], 50) == 0.0


def test_latency_summary() -> None:
    lat = latency([0.1, 0.2, 0.3])
    assert lat.p50 == pytest.approx(0.2)
    assert lat.mean == pytest.approx(0.2)


def test_report_splits_in_kb_cases_and_keeps_skips() -> None:
    rep = report([1, None, 3], [True, False, True], skipped={"malformed": 2})
    assert rep.all_cases.n == 3 and rep.in_kb.n == 2
    assert rep.in_kb.top[1] == pytest.approx(0.5)
    assert rep.in_kb.mrr == pytest.approx((1 + 1 / 3) / 2)
    assert rep.skipped == {"malformed": 2}
    assert rep.latency is None


def test_report_requires_matching_lengths() -> None:
    with pytest.raises(ValueError, match="same cases"):
        report([1], [True, False])
