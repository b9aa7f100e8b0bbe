"""bench/speed_ab.py: the sample, the comparison of answers, the ratios and the knowledge-base copy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.bench_scripts import load_bench

bench = load_bench("speed_ab")

TOP10 = [f"OMIM:{n}" for n in range(100, 110)]


def test_identical_answers_differ_nowhere() -> None:
    answers = {"c1": TOP10, "c2": TOP10[::-1]}
    diff = bench.compare_answers(answers, {k: list(v) for k, v in answers.items()})
    assert (diff.cases, diff.top1, diff.top10) == (2, 0, 0)


def test_a_different_first_disease_counts_at_top1_and_top10() -> None:
    other = ["OMIM:999", *TOP10[1:]]
    diff = bench.compare_answers({"c1": TOP10, "c2": TOP10}, {"c1": other, "c2": TOP10})
    assert (diff.cases, diff.top1, diff.top10) == (2, 1, 1)


def test_a_different_tail_counts_at_top10_only() -> None:
    swapped = [*TOP10[:8], TOP10[9], TOP10[8]]
    shorter = TOP10[:9]
    diff = bench.compare_answers(
        {"c1": TOP10, "c2": TOP10, "c3": TOP10}, {"c1": swapped, "c2": shorter, "c3": TOP10}
    )
    assert (diff.cases, diff.top1, diff.top10) == (3, 0, 2)


def test_a_case_answered_on_one_side_only_counts_as_different() -> None:
    diff = bench.compare_answers({"c1": TOP10, "c2": TOP10}, {"c1": TOP10})
    assert (diff.cases, diff.top1, diff.top10) == (2, 1, 1)


def _side(label: str, wall: float, engine: float, tree: float | None, top10: dict) -> Any:
    return bench.SideResult(
        label=label, asks=20, wall_s=wall, engine_cpu_s=engine, tree_cpu_s=tree, top10=top10
    )


def test_summary_gives_per_ask_figures_and_head_over_base_ratios() -> None:
    base = _side("abc1234 Before", wall=10.0, engine=5.0, tree=8.0, top10={"c1": TOP10})
    head = _side("working tree", wall=9.0, engine=4.0, tree=6.0, top10={"c1": ["OMIM:1", *TOP10[1:]]})
    summary = bench.summarize(base, head)

    assert summary["base"]["wall_s_per_ask"] == pytest.approx(0.5)
    assert summary["base"]["tree_cpu_s_per_ask"] == pytest.approx(0.4)
    assert summary["head"]["engine_cpu_s_per_ask"] == pytest.approx(0.2)
    ratios = summary["head_over_base"]
    assert ratios["tree_cpu"] == pytest.approx(0.75)
    assert ratios["engine_cpu"] == pytest.approx(0.8)
    assert ratios["wall"] == pytest.approx(0.9)
    assert summary["different"] == {"cases": 1, "top1": 1, "top10": 1}
    assert summary["side_by_side_share"] == pytest.approx(0.9)

    text = bench.format_summary(summary)
    assert "BASE: abc1234 Before" in text
    assert "HEAD: working tree" in text
    assert "tree CPU 0.400 s/ask" in text
    assert "HEAD/BASE: tree CPU 0.750, engine CPU 0.800, wall 0.900" in text
    assert "top-1 1 / 1, top-10 1 / 1" in text
    assert "both sides asking for 90 % of the longer run" in text


def test_summary_without_tree_cpu_says_so() -> None:
    base = _side("a", wall=10.0, engine=5.0, tree=None, top10={})
    head = _side("b", wall=10.0, engine=5.0, tree=6.0, top10={})
    summary = bench.summarize(base, head)
    assert summary["head_over_base"]["tree_cpu"] is None
    assert "HEAD/BASE: tree CPU n/a" in bench.format_summary(summary)


def test_sample_is_seeded_of_the_requested_size_and_apart_from_the_warmup() -> None:
    ids = [f"case{i}" for i in range(200)]
    measured, warmup = bench.sample_ids(ids, 40, 5, seed=3)

    assert len(measured) == 40 and len(set(measured)) == 40
    assert len(warmup) == 5 and not set(warmup) & set(measured)
    assert set(measured) <= set(ids)
    assert bench.sample_ids(ids, 40, 5, seed=3) == (measured, warmup)
    assert bench.sample_ids(ids, 40, 5, seed=4)[0] != measured
    assert measured != ids[:40]  # a sample, not the head of the file


def test_sample_of_a_short_file_takes_every_case_and_warms_up_on_the_first() -> None:
    ids = ["a", "b", "c", "b"]
    measured, warmup = bench.sample_ids(ids, 10, 2, seed=0)
    assert sorted(measured) == ["a", "b", "c"]
    assert warmup == measured[:2]


def test_kb_copy_drops_lock_files_and_keeps_the_rest(tmp_path: Path) -> None:
    kb = tmp_path / "home" / "kb" / "full"
    (kb / "sub").mkdir(parents=True)
    files = {
        "milvus.db": b"\x00db",
        "graph.json": b"{}",
        "manifest.json": b'{"build": 1}',
        "sub/part.bin": b"\x01\x02",
    }
    for name, data in files.items():
        (kb / name).write_bytes(data)
    for lock in (".milvus.db.lock", "build.lock", "sub/.part.bin.lock"):
        (kb / lock).write_text("")

    copy = bench.copy_kb(kb, tmp_path / "side" / "kb" / "full")

    assert copy == tmp_path / "side" / "kb" / "full"
    copied = sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file())
    assert copied == sorted(files)
    for name, data in files.items():
        assert (copy / name).read_bytes() == data
    assert (kb / ".milvus.db.lock").exists()  # the original is left as it was
