import pytest

from meddiag.ui.eval_charts import MISS, rank_histogram, top_k_curve
from meddiag.ui.eval_view import THIN_COLUMN, CaseRow, cases_frame, gold_facts_caption, share_within


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


def _row(own: int | None, thinned: int | None, total: int | None = 8) -> CaseRow:
    return CaseRow(
        case_id="c",
        gold=["OMIM:1"],
        gold_rank=1,
        top10=[],
        seconds=0.1,
        result=None,
        gold_facts=total,
        gold_facts_own=own,
        gold_facts_thinned=thinned,
    )


@pytest.mark.parametrize(
    ("row", "protocol", "expected"),
    [
        (
            _row(2, 0),
            "leave-publication-out",
            "2 of the diagnosis' 8 phenotype facts rest only on this case's "
            "own publications (hidden while this case was answered).",
        ),
        (
            _row(0, 3),
            "leave-publication-out",
            "3 more rest on them and on other sources, and were seen "
            "without the frequency those publications were pooled into.",
        ),
        (
            _row(0, 3),
            "full",
            "3 more rest on them and on other sources, and have a frequency pooled over all of them.",
        ),
        (_row(0, 0), "leave-publication-out", ""),
        (_row(None, None, None), "full", ""),
    ],
)
def test_the_drill_down_says_how_much_of_the_diagnosis_the_case_s_papers_carry(
    row: CaseRow, protocol: str, expected: str
) -> None:
    assert gold_facts_caption(row, protocol) == expected


def test_the_case_table_gives_both_shares_of_the_gold_s_facts() -> None:
    frame = cases_frame([_row(2, 4), _row(None, None, None)])
    assert list(frame["Gold facts from own paper (%)"].iloc[:1]) == [25]
    assert list(frame[THIN_COLUMN].iloc[:1]) == [50]
    assert frame[THIN_COLUMN].isna().iloc[1]
