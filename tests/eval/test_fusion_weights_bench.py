"""bench/fusion_weights.py re-fuses recorded channel scores exactly as the synthesis orders them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bench_scripts import load_bench


def _row(case_id: str, pmid: str, gold: str, rel: dict, sem: dict, in_kb: bool = True) -> str:
    result = {
        "excluded_sources": [pmid],
        "synthesis": {"channel_scores": {"relational": rel, "semantic": sem}},
    }
    record = {"case_id": case_id, "gold": [gold], "in_kb": in_kb, "result": result}
    return json.dumps({"fingerprint": "x", "record": record})


def test_ranks_follow_the_weight_and_text_only_rows_stay_below(tmp_path: Path) -> None:
    bench = load_bench("fusion_weights")
    runs = tmp_path / "cases.jsonl"
    runs.write_text(
        "\n".join(
            [
                # The text prefers the graph's runner-up: weight 0 keeps the graph's order, 1 follows the text.
                _row(
                    "c1", "PMID:1", "OMIM:2", {"OMIM:1": 3.0, "OMIM:2": 2.0}, {"OMIM:1": 0.1, "OMIM:2": 0.9}
                ),
                # Gold backed by the text only: below both graph candidates whatever the weight.
                _row(
                    "c2", "PMID:2", "OMIM:9", {"OMIM:1": 3.0, "OMIM:2": 2.0}, {"OMIM:9": 1.0, "OMIM:1": 0.0}
                ),
                _row("c3", "PMID:3", "OMIM:1", {"OMIM:1": 1.0}, {}, in_kb=False),
                '{"fingerprint": "x", "record": {"case_id": "c4", "gold": [], "in_kb": true, "result": null}}',
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    cases = {c.case_id: c for c in bench.load_runs([runs])}
    assert set(cases) == {"c1", "c2"}  # out-of-KB and unrecorded cases are left out
    assert [bench.gold_rank(cases["c1"], w) for w in (0.0, 1.0)] == [2, 1]
    assert [bench.gold_rank(cases["c2"], w) for w in (0.0, 1.0)] == [3, 3]
    picks, held = bench.cross_validate(list(cases.values()), [0.0, 1.0], folds=2, seed=0)
    assert len(picks) == 2 and held.n == 2


def test_cases_group_by_their_publications_even_when_nothing_was_left_out(tmp_path: Path) -> None:
    bench = load_bench("fusion_weights")
    rows = []
    for case_id, pubs in (("c1", ["PMID:7"]), ("c2", ["PMID:7"]), ("c3", [])):
        record = json.loads(_row(case_id, "PMID:9", "OMIM:1", {"OMIM:1": 1.0}, {}))
        record["record"]["result"]["excluded_sources"] = []  # the full protocol
        record["record"]["publications"] = pubs
        rows.append(json.dumps(record))
    runs = tmp_path / "cases.jsonl"
    runs.write_text("\n".join(rows) + "\n", encoding="utf-8")
    cases = {c.case_id: c for c in bench.load_runs([runs])}
    # c3 names no publication (an older record): it falls back to its own id
    assert {k: c.publication for k, c in cases.items()} == {"c1": "PMID:7", "c2": "PMID:7", "c3": "c3"}


def test_first_places_count_gains_and_losses_with_a_two_sided_sign_test() -> None:
    bench = load_bench("fusion_weights")
    both = [1, 1, 1, 2, None, 1]
    alone = [2, 5, 1, 1, 1, 1]
    gains, losses, p = bench.first_places(both, alone)
    assert (gains, losses) == (2, 2)
    assert p == 1.0
    # 6 gains, no loss: 2 * (1/2)^6
    assert bench.first_places([1] * 6, [2] * 6) == (6, 0, 2 / 64)
    assert bench.first_places([3], [3]) == (0, 0, 1.0)


def test_ties_against_place_the_gold_after_every_row_with_its_score(tmp_path: Path) -> None:
    bench = load_bench("fusion_weights")
    runs = tmp_path / "cases.jsonl"
    # The graph ties the gold with a smaller id; only the text tells them apart.
    rel, sem = {"OMIM:1": 2.0, "OMIM:2": 2.0, "OMIM:3": 1.0}, {"OMIM:1": 0.9, "OMIM:2": 0.1}
    runs.write_text(_row("c1", "PMID:1", "OMIM:1", rel, sem) + "\n", encoding="utf-8")
    (case,) = bench.load_runs([runs])
    assert bench.gold_rank(case, 0.0) == 1  # listed first by id
    assert bench.gold_rank(case, 0.0, ties_against=True) == 2  # tied: counted behind OMIM:2
    assert bench.gold_rank(case, 0.05, ties_against=True) == 1  # the text breaks the tie
