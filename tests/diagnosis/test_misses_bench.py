"""bench/misses.py: where the ranker's misses lie, per group of hidden evidence."""

from __future__ import annotations

from typing import Any

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.eval.phenopackets import Case, Feature
from tests.bench_scripts import load_bench
from tests.diagnosis.conftest import CATARACT, MACROCEPHALY, NYSTAGMUS


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


def test_cases_outside_the_kb_are_counted_when_they_name_a_newer_omim_entry() -> None:
    bench = _bench()
    names = {"OMIM:100100": "a", "OMIM:600000": "b", "ORPHA:999999": "c"}

    def outside(disease: str) -> Any:
        return bench.Prepared(Case(id=disease, observed=[], diseases=[disease]), [], False)

    cases = [outside("OMIM:620000"), outside("OMIM:500000"), outside("ORPHA:5")]
    assert bench.newer_than_release(names, cases) == (3, 1)
