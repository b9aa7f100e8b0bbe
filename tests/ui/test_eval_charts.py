from meddiag.ui.eval_charts import MISS, rank_histogram, top_k_curve
from meddiag.ui.eval_view import share_within


def test_top_k_curve_counts_misses_as_failures():
    fig = top_k_curve({"lightrag · both": [1, 3, None, 12]}, k_max=10)
    shares = list(fig.data[0].y)
    assert shares[0] == 0.25  # k=1
    assert shares[2] == 0.5  # k=3
    assert shares[9] == 0.5  # k=10: rank 12 and the miss stay out


def test_rank_histogram_buckets_worse_ranks_and_misses():
    fig = rank_histogram([1, 1, 2, 15, None], k_max=10)
    counts = dict(zip(fig.data[0].x, fig.data[0].y, strict=True))
    assert counts["1"] == 2 and counts["2"] == 1
    assert counts[">10"] == 1 and counts[MISS] == 1


def test_share_within_handles_an_empty_run():
    assert share_within([], 10) == 0.0
    assert share_within([1, None], 1) == 0.5
