from __future__ import annotations

from pathlib import Path

import pytest

from meddiag.eval.metrics import report
from meddiag.eval.report import by_own_share, by_publication, render_markdown, summary_dict, ties_against
from meddiag.eval.runner import CaseRecord, EvalOptions
from tests.ui.sample_case import sample_result, tied_sample_result


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


def test_each_group_says_where_its_misses_put_the_gold() -> None:
    def counted(case_id: str, rank: int | None, own: int, total: int = 4) -> CaseRecord:
        return _record(case_id, rank).model_copy(update={"gold_facts": total, "gold_facts_own": own})

    records = [
        counted("hit", 1, 0),
        counted("second", 2, 0),
        counted("tenth", 10, 0),
        counted("eleventh", 11, 0),
        counted("absent", None, 0),
        counted("third", 3, 4),  # every fact its own paper's: the "all" group
        _record("uncounted", 2),  # no fact counts: in no group
    ]
    groups = by_own_share(records)
    none, all_ = groups["none"], groups["all"]
    assert (none["n"], none["top1"], none["top10"]) == (5, 0.2, 0.6)
    assert (none["missed_second"], none["missed_third_to_tenth"], none["missed_below_tenth"]) == (1, 1, 2)
    assert (all_["missed_second"], all_["missed_third_to_tenth"], all_["missed_below_tenth"]) == (0, 1, 0)
    assert groups["half or fewer"]["n"] == 0


def test_each_group_counts_the_cases_whose_gold_also_loses_frequencies(tmp_path: Path) -> None:
    def counted(case_id: str, rank: int | None, own: int, thinned: int) -> CaseRecord:
        update = {"gold_facts": 4, "gold_facts_own": own, "gold_facts_thinned": thinned}
        return _record(case_id, rank).model_copy(update=update)

    records = [counted("a", 1, 0, 2), counted("b", 3, 0, 1), counted("c", 1, 0, 0), counted("d", 1, 1, 0)]
    groups = by_own_share(records)
    assert (groups["none"]["with_thinned"], groups["none"]["top1_with_thinned"]) == (2, 0.5)
    assert groups["half or fewer"]["with_thinned"] == 0
    summary = summary_dict(
        EvalOptions(path=tmp_path),
        report([r.rank for r in records], [True] * 4, seconds=[0.1] * 4),
        None,
        cases_per_s=10.0,
        errors=0,
        knowledge_base={"profile": "demo", "embedder": "hashing", "build_id": "b1"},
        by_own_share=groups,
    )
    markdown = render_markdown(summary, records)
    assert "| none | 3 | 66.7 % | 100.0 % | 0 / 1 / 0 | 2, 50.0 % |" in markdown
    assert "| half or fewer | 1 | 100.0 % | 100.0 % | 0 / 0 / 0 | — |" in markdown


def test_ties_are_counted_against_the_method_from_each_records_differential() -> None:
    result, tied = sample_result(), tied_sample_result()
    first = result.synthesis.differential[0]
    lucky = CaseRecord(
        case_id="lucky", gold=[first.id], in_kb=True, question="q", rank=1, top10=[], seconds=0.1, result=tied
    )
    plain = CaseRecord(
        case_id="plain",
        gold=[first.id],
        in_kb=True,
        question="q",
        rank=1,
        top10=[],
        seconds=0.1,
        result=result,
    )
    errored = _record("errored", None)
    figures = ties_against([lucky, plain, errored, _record("outside", 1, in_kb=False)])
    assert figures == {
        "top1": round(1 / 3, 4),
        "top3": round(2 / 3, 4),
        "top10": round(2 / 3, 4),
        "mrr": round((0.5 + 1) / 3, 4),
        "moved_by_ties": 1,
        "near_tie_first": 0,
        "near_tie_gold_second": 0,
    }


def _near_tie(case_id: str, second: float, rank: int) -> CaseRecord:
    """`sample_result` with its second row's score set to `second` (the first scores 0.91)."""
    result = sample_result()
    first, runner_up = result.synthesis.differential
    rows = [first, runner_up.model_copy(update={"score": second})]
    synthesis = result.synthesis.model_copy(update={"differential": rows})
    gold = [rows[rank - 1].id]
    return CaseRecord(
        case_id=case_id,
        gold=gold,
        in_kb=True,
        question="q",
        rank=rank,
        top10=[],
        seconds=0.1,
        result=result.model_copy(update={"synthesis": synthesis}),
    )


def test_answers_opening_with_a_near_tie_are_counted_with_the_gold_second() -> None:
    records = [
        _near_tie("close, gold second", 0.905, rank=2),
        _near_tie("close, gold first", 0.9001, rank=1),
        _near_tie("a clear lead", 0.899, rank=2),  # 0.011 apart: shown apart in the table
        _near_tie("exactly tied", 0.91, rank=2).model_copy(update={"result": tied_sample_result()}),
    ]
    figures = ties_against(records)
    assert (figures["near_tie_first"], figures["near_tie_gold_second"]) == (2, 1)


def test_the_report_names_near_ties_only_when_an_answer_opens_with_one(tmp_path: Path) -> None:
    records = [_near_tie("close", 0.905, rank=2), _near_tie("apart", 0.5, rank=1)]

    def markdown(rows: list[CaseRecord]) -> str:
        summary = summary_dict(
            EvalOptions(path=tmp_path),
            report([r.rank for r in rows], [r.in_kb for r in rows], seconds=[r.seconds for r in rows]),
            None,
            cases_per_s=10.0,
            errors=0,
            knowledge_base={"profile": "demo", "embedder": "hashing", "build_id": "b1"},
            ties=ties_against(rows),
        )
        return render_markdown(summary, rows)

    assert "1 in-KB answer opens with two rows less than 0.01 apart in score" in markdown(records)
    assert "the gold is the second in 1 of them" in markdown(records)
    assert "apart in score" not in markdown(records[1:])
