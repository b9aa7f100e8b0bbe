from __future__ import annotations

import pytest

from meddiag.eval.metrics import (
    accuracy,
    cluster_interval,
    cluster_mean,
    latency,
    percentile,
    rank_ties_against,
    report,
)


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


def test_the_interval_holds_the_share_and_is_reproducible() -> None:
    hits = [i % 5 < 2 for i in range(500)]  # 40 % hits
    clusters = [f"paper{i}" for i in range(500)]
    lo, hi = cluster_interval(hits, clusters, seed=3)
    assert 0.0 <= lo < 0.4 < hi <= 1.0
    assert cluster_interval(hits, clusters, seed=3) == (lo, hi)
    assert cluster_interval([True] * 7, ["a"] * 3 + ["b"] * 4) == (1.0, 1.0)
    assert cluster_interval([], []) == (0.0, 0.0)


def test_patients_of_one_paper_widen_the_interval() -> None:
    # The same 400 outcomes: 40 papers of 10 patients sharing their outcome, or 400 papers.
    hits = [i // 10 % 2 == 0 for i in range(400)]
    lo_1, hi_1 = cluster_interval(hits, [str(i) for i in range(400)])
    lo_10, hi_10 = cluster_interval(hits, [str(i // 10) for i in range(400)])
    assert hi_10 - lo_10 > 2 * (hi_1 - lo_1)


def test_interval_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="same cases"):
        cluster_interval([True], [])
    with pytest.raises(ValueError, match="level"):
        cluster_interval([True], ["a"], level=1.5)


def test_each_publication_weighs_one_in_the_cluster_mean() -> None:
    # a cohort of 8 patients all missed, two single-patient papers both hit: 2/3 per paper
    hits = [False] * 8 + [True, True]
    clusters = ["cohort"] * 8 + ["a", "b"]
    assert cluster_mean(hits, clusters) == pytest.approx(2 / 3)
    assert cluster_mean([], []) == 0.0
    with pytest.raises(ValueError, match="same cases"):
        cluster_mean([True], [])


def test_a_tie_counts_against_the_method() -> None:
    ids = ["OMIM:1", "OMIM:2", "OMIM:3", "OMIM:4"]
    tied = [["OMIM:2", "OMIM:3"], ["OMIM:1", "OMIM:3"], ["OMIM:1", "OMIM:2"], []]
    assert rank_ties_against(ids, tied, {"OMIM:1"}) == 3  # listed first by id, tied with two
    assert rank_ties_against(ids, tied, {"OMIM:3"}) == 3  # listed last of its tie
    assert rank_ties_against(ids, tied, {"OMIM:1", "OMIM:2"}) == 3  # an equivalent gold row is no rival
    assert rank_ties_against(ids, tied, {"OMIM:4"}) == 4
    assert rank_ties_against(ids, tied, {"OMIM:9"}) is None
