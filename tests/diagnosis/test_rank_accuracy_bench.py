"""bench/rank_accuracy.py groups cases by how much of the gold disease leave-publication-out hides."""

from __future__ import annotations

from typing import Any

import pytest

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.diagnosis.linking import PhraseLinker
from meddiag.diagnosis.name_findings import with_name_findings
from meddiag.eval.phenopackets import Case, Feature
from meddiag.knowledge.hpo import Ontology
from tests.bench_scripts import load_bench
from tests.diagnosis.conftest import CATARACT, GTC_SEIZURE, SEIZURE, has


def cataract_cases(bench: Any, index: PhenotypeIndex, pmids: list[str]) -> list[Any]:
    """One in-KB case per PMID, cataract observed, OMIM:1 the diagnosis; ids c0, c1, ..."""
    return [
        bench.Prepared(
            Case(
                id=f"c{i}",
                observed=[Feature(id=CATARACT, label="Cataract")],
                diseases=["OMIM:1"],
                pmids=[pmid],
            ),
            [index.profile_index["OMIM:1"]],
            True,
        )
        for i, pmid in enumerate(pmids)
    ]


@pytest.mark.parametrize(
    ("gold", "left_out", "group"),
    [
        # OMIM:1: cataract (OMIM:1), seizure (PMID:1 alone), ID (PMID:1 and PMID:2)
        ("OMIM:1", ["PMID:9"], "none"),
        ("OMIM:1", ["PMID:1"], "half or fewer"),
        ("OMIM:1", ["PMID:1", "PMID:2"], "more than half"),
        ("OMIM:1", ["PMID:1", "PMID:2", "OMIM:1"], "all"),
        ("OMIM:2", ["PMID:1"], "none"),
    ],
)
def test_cases_are_grouped_by_the_share_of_gold_facts_their_publications_alone_carry(
    tiny_index: PhenotypeIndex, gold: str, left_out: list[str], group: str
) -> None:
    bench = load_bench("rank_accuracy")
    case = Case(id="c", observed=[Feature(id=CATARACT, label="Cataract")], diseases=[gold], pmids=left_out)
    prepared = bench.Prepared(case, [tiny_index.profile_index[gold]], True)
    assert bench.hidden_share_group(tiny_index, prepared) == group


@pytest.mark.parametrize(
    ("left_out", "thinned"),
    [
        (["PMID:9"], 0),
        (["PMID:1"], 1),  # ID rests on PMID:2 as well, with a frequency pooled over both
        (["PMID:2"], 1),
        (["PMID:1", "PMID:2"], 0),  # hidden, not thinned
    ],
)
def test_the_gold_facts_that_lose_their_frequency_are_counted(
    tiny_index: PhenotypeIndex, left_out: list[str], thinned: int
) -> None:
    bench = load_bench("rank_accuracy")
    case = Case(
        id="c", observed=[Feature(id=CATARACT, label="Cataract")], diseases=["OMIM:1"], pmids=left_out
    )
    prepared = bench.Prepared(case, [tiny_index.profile_index["OMIM:1"]], True)
    assert bench.gold_thinned(tiny_index, prepared) == thinned


def test_a_disease_name_s_findings_do_not_count_among_the_facts_a_case_can_hide(
    tiny_ontology: Ontology,
) -> None:
    bench = load_bench("rank_accuracy")
    names = {"OMIM:3": "Seizure disorder"}
    curated = [has("OMIM:3", GTC_SEIZURE, 0.9, "PMID:3"), has("OMIM:1", CATARACT, 0.9, "OMIM:1")]
    index = PhenotypeIndex(
        tiny_ontology, with_name_findings(PhraseLinker(tiny_ontology), curated, names), names
    )
    assert index.rel_from_name.sum() == 1  # "Seizure disorder" states a seizure
    case = Case(
        id="c", observed=[Feature(id=CATARACT, label="Cataract")], diseases=["OMIM:3"], pmids=["PMID:3"]
    )
    prepared = bench.Prepared(case, [index.profile_index["OMIM:3"]], True)
    assert bench.hidden_share_group(index, prepared) == "all"  # not "more than half"


@pytest.mark.parametrize(("train_cases", "searched"), [(400, 2), (1, 1), (0, 2)])
def test_each_fold_searches_a_sample_of_its_training_cases_or_all_of_them(
    tiny_index: PhenotypeIndex, monkeypatch: pytest.MonkeyPatch, train_cases: int, searched: int
) -> None:
    bench = load_bench("rank_accuracy")
    # three publications, one case each: with three folds, each fold trains on two cases
    cases = cataract_cases(bench, tiny_index, ["PMID:0", "PMID:1", "PMID:2"])
    sizes: list[int] = []

    def search(index: PhenotypeIndex, sample: list, rounds: int = 1) -> object:
        sizes.append(len(sample))
        return bench.DEFAULT_PARAMS

    monkeypatch.setattr(bench, "coordinate_search", search)
    bench.cross_validate(tiny_index, cases, 3, 0, train_cases)
    assert sizes == [searched] * 3


def test_vignette_cases_carry_the_findings_read_from_their_text(tiny_ontology: Ontology) -> None:
    bench = load_bench("rank_accuracy")
    case = Case(
        id="c",
        observed=[Feature(id=CATARACT, label="Cataract")],
        excluded=[Feature(id=SEIZURE, label="Seizure")],
        diseases=["OMIM:1"],
        pmids=["PMID:1"],
    )
    (read,) = bench.as_read_from_vignettes(PhraseLinker(tiny_ontology), [bench.Prepared(case, [0], True)])
    assert [f.id for f in read.case.observed] == [CATARACT]
    assert [f.id for f in read.case.excluded] == [SEIZURE]  # "She has no seizure"
    assert read.case.sources == case.sources and read.gold == [0]
    # a label the linker cannot read is lost, as it would be from free text
    unreadable = case.model_copy(
        update={"observed": [Feature(id=CATARACT, label="Lens clouding of an odd kind")]}
    )
    (lost,) = bench.as_read_from_vignettes(
        PhraseLinker(tiny_ontology), [bench.Prepared(unreadable, [0], True)]
    )
    assert lost.case.observed == []


def test_the_cache_builds_again_for_other_code_and_drops_the_older_pickle(tmp_path, monkeypatch) -> None:
    bench = load_bench("rank_accuracy")
    monkeypatch.setattr(bench, "CACHE", tmp_path)
    builds: list[str] = []

    def build(value: str):
        return lambda: builds.append(value) or value

    monkeypatch.setattr(bench, "meddiag_digest", lambda: "aaa")
    assert bench._cached("links", build("old")) == "old"
    assert bench._cached("links", build("unused")) == "old"  # same code: read back
    monkeypatch.setattr(bench, "meddiag_digest", lambda: "bbb")
    assert bench._cached("links", build("new")) == "new"  # edited code: built again
    assert builds == ["old", "new"]
    assert [p.name for p in tmp_path.iterdir()] == ["links-bbb.pkl"]


def test_the_figures_come_with_an_interval_over_publications(
    tiny_index: PhenotypeIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench("rank_accuracy")
    cases = cataract_cases(bench, tiny_index, [f"PMID:{i % 2}" for i in range(4)])
    # Two papers: one whose two patients rank the gold first, one whose two miss the top ten.
    bench.show("ranker", [(1, 1), (11, 11), (1, 1), (11, 11)], cases)
    out = capsys.readouterr().out
    assert "in-KB 95 % interval, resampling publications: top-1 0.0-100.0%  top-10 0.0-100.0%" in out
    assert "in-KB, each publication weighing one: top-1 50.0%  top-10 50.0%" in out


def test_a_sweep_picks_each_fold_s_value_on_its_training_publications_only(
    tiny_index: PhenotypeIndex, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench("rank_accuracy")
    cases = cataract_cases(bench, tiny_index, ["PMID:0", "PMID:1"])
    # value 1 ranks the paper-0 case first and the paper-1 case 20th; value 2 the reverse
    table = {1.0: {"c0": (1, 1), "c1": (20, 20)}, 2.0: {"c0": (20, 20), "c1": (1, 1)}}

    def ranks(index: PhenotypeIndex, chosen: list, params: object, lpo: bool) -> list:
        return [table[params.checked_weight][p.case.id] for p in chosen]  # type: ignore[attr-defined]

    monkeypatch.setattr(bench, "ranks_for", ranks)
    bench.sweep(tiny_index, cases, "checked_weight", [1.0, 2.0], 2, 0)
    out = capsys.readouterr().out
    # each fold trains on the other paper, whose best value ranks the held-out case 20th
    assert "picked per fold: " in out
    held = out.rsplit("held-out, 2 folds by publication", 1)[1]
    assert "top-1   0.0%" in held and "top-10   0.0%" in held
    assert "checked_weight=1 " in out and "checked_weight=2 " in out


def test_repeated_set_options_all_apply() -> None:
    bench = load_bench("rank_accuracy")
    args = bench.parser().parse_args(
        ["--set", "symmetric=0.3", "opposite_weight=0", "--set", "onset_weight=0"]
    )
    assert args.set == ["symmetric=0.3", "opposite_weight=0", "onset_weight=0"]


def test_a_sweep_keeps_the_other_parameters_it_is_given(
    tiny_index: PhenotypeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = load_bench("rank_accuracy")
    cases = cataract_cases(bench, tiny_index, ["PMID:0", "PMID:1"])
    seen: list[tuple[float, float]] = []

    def ranks(index: PhenotypeIndex, chosen: list, params: Any, lpo: bool) -> list:
        seen.append((params.checked_weight, params.symmetric))
        return [(1, 1) for _ in chosen]

    monkeypatch.setattr(bench, "ranks_for", ranks)
    base = bench.DEFAULT_PARAMS.with_(symmetric=0.1)
    bench.sweep(tiny_index, cases, "checked_weight", [1.0, 2.0], 2, 0, base)
    assert seen == [(1.0, 0.1), (2.0, 0.1)]
