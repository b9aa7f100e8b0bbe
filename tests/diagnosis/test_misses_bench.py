"""bench/misses.py: where the ranker's misses lie, per group of hidden evidence."""

from __future__ import annotations

from typing import Any

import pytest

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.eval.phenopackets import Case, Feature
from tests.bench_scripts import load_bench
from tests.diagnosis.conftest import CATARACT, GTC_SEIZURE, MACROCEPHALY, NYSTAGMUS, ROOT


def _bench() -> Any:
    load_bench("rank_accuracy")  # misses.py imports it by name, as when run from bench/
    return load_bench("misses")


def _case(
    bench: Any, index: PhenotypeIndex, cid: str, observed: list[str], gold: str, pmids: list[str]
) -> Any:
    case = Case(
        id=cid,
        observed=[Feature(id=t, label=t) for t in observed],
        diseases=[gold],
        pmids=pmids,
    )
    return bench.Prepared(case, [index.profile_index[gold]], True)


def test_misses_are_counted_by_group_with_place_and_description(tiny_index: PhenotypeIndex) -> None:
    bench = _bench()
    cases = [
        # OMIM:2 keeps everything and explains macrocephaly best: a hit in "none".
        _case(bench, tiny_index, "hit", [MACROCEPHALY], "OMIM:2", ["PMID:9"]),
        # Cataract points to OMIM:1 and OMIM:3 (pooled with ORPHA:10): a miss in "none".
        _case(bench, tiny_index, "miss", [CATARACT], "OMIM:2", ["PMID:9"]),
        # OMIM:3 loses its PMID:3 seizure fact, keeps nystagmus: "half or fewer", described.
        _case(bench, tiny_index, "thin", [NYSTAGMUS], "OMIM:3", ["PMID:3"]),
    ]
    results = bench.outcomes(tiny_index, cases, described={"ORPHA:10"})
    assert [r.group for r in results] == ["none", "none", "half or fewer"]
    assert [r.rank for r in results] == [1, 3, 1]
    assert [r.gold_has_description for r in results] == [False, False, True]

    summary = bench.summarise(results)
    none = summary["none"]
    assert (none.n, none.first, none.top10) == (2, 1, 2)
    assert none.missed_at == {"second": 0, "3rd-10th": 1, "below 10th": 0}
    assert (none.findings_hits, none.findings_misses) == (1, 1)
    assert summary["half or fewer"].described == 1
    assert "all" not in summary  # empty groups are left out


def test_the_most_specific_shared_term_counts_only_visible_facts(tiny_index: PhenotypeIndex) -> None:
    bench = _bench()
    ic = {t: float(tiny_index.ic[tiny_index.term(t)]) for t in (MACROCEPHALY, NYSTAGMUS, GTC_SEIZURE, ROOT)}

    def shared(observed: list[str], gold: str, pmids: list[str]) -> float:
        return bench.shared_ic(tiny_index, _case(bench, tiny_index, "c", observed, gold, pmids))

    assert shared([MACROCEPHALY], "OMIM:2", ["PMID:9"]) == ic[MACROCEPHALY]
    assert shared([CATARACT], "OMIM:2", ["PMID:9"]) == ic[ROOT]  # only the root in common
    # OMIM:3's seizure fact rests on PMID:3 alone: left out with it, only nystagmus remains.
    assert shared([GTC_SEIZURE, NYSTAGMUS], "OMIM:3", ["PMID:9"]) == ic[GTC_SEIZURE]
    assert shared([GTC_SEIZURE, NYSTAGMUS], "OMIM:3", ["PMID:3"]) == ic[NYSTAGMUS]
    assert shared([GTC_SEIZURE], "OMIM:3", ["PMID:3"]) == ic[ROOT]


def test_cases_without_a_specific_shared_term_are_counted_apart(
    tiny_index: PhenotypeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _bench()
    cases = [
        _case(bench, tiny_index, "hit", [MACROCEPHALY], "OMIM:2", ["PMID:9"]),
        _case(bench, tiny_index, "miss", [CATARACT], "OMIM:2", ["PMID:9"]),
    ]
    results = bench.outcomes(tiny_index, cases, described=set())
    # Any threshold between the root's and macrocephaly's information content splits them.
    threshold = (results[0].gold_shared_ic + results[1].gold_shared_ic) / 2
    monkeypatch.setattr(bench, "SPECIFIC_NATS", threshold)
    none = bench.summarise(results)["none"]
    assert (none.unspecific, none.unspecific_first) == (1, 0)
    monkeypatch.setattr(bench, "SPECIFIC_NATS", results[0].gold_shared_ic + 1)
    none = bench.summarise(results)["none"]
    assert (none.unspecific, none.unspecific_first) == (2, 1)


def test_cases_outside_the_kb_are_counted_when_they_name_a_newer_omim_entry() -> None:
    bench = _bench()
    names = {"OMIM:100100": "a", "OMIM:600000": "b", "ORPHA:999999": "c"}

    def outside(disease: str) -> Any:
        return bench.Prepared(Case(id=disease, observed=[], diseases=[disease]), [], False)

    cases = [outside("OMIM:620000"), outside("OMIM:500000"), outside("ORPHA:5")]
    assert bench.newer_than_release(names, cases) == (3, 1)
