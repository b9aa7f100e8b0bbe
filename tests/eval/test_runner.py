"""End-to-end evaluation of a handful of fixture phenopackets through the full engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pytest

from meddiag.config import Settings
from meddiag.errors import InputError, MedDiagError
from meddiag.eval import runner
from meddiag.eval.phenopackets import Case
from meddiag.eval.runner import (
    PROCESS_MIN_CASES,
    CaseRecord,
    EvalOptions,
    _gold_context,
    _Lane,
    _Lanes,
    _lanes,
    run_evaluation,
)
from meddiag.eval.source_digest import meddiag_digest
from meddiag.knowledge.assemble import assemble_kb
from meddiag.knowledge.build import build_knowledge_base
from meddiag.service import MedDiagService
from tests.fixtures.sources import AORTIC_ROOT, ECTOPIA_LENTIS, HYPERMOBILITY, LDS, SEIZURE, tiny_sources


def _packet(
    case_id: str, pmid: str, observed: list[str], excluded: list[str], disease: str | None, gene: str = ""
) -> str:
    features = [{"type": {"id": t, "label": t}} for t in observed]
    features += [{"type": {"id": t, "label": t}, "excluded": True} for t in excluded]
    packet: dict = {
        "id": case_id,
        "subject": {
            "id": case_id,
            "sex": "FEMALE",
            "timeAtLastEncounter": {"age": {"iso8601duration": "P12Y"}},
        },
        "phenotypicFeatures": features,
        "metaData": {"externalReferences": [{"id": pmid}]},
    }
    if disease:
        diagnosis: dict = {"disease": {"id": disease, "label": "LDS"}}
        if gene:
            diagnosis["genomicInterpretations"] = [{"gene": {"symbol": gene}}]
        packet["interpretations"] = [{"id": "i", "diagnosis": diagnosis}]
    return json.dumps(packet)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> MedDiagService:
    home = tmp_path_factory.mktemp("eval-home")
    settings = Settings(home=home, profile="demo", llm_base_url="", llm_model="", neo4j_uri="", milvus_uri="")
    build_knowledge_base(settings, kb=assemble_kb(tiny_sources(home / "sources"), "full"))
    svc = MedDiagService(settings)
    yield svc
    svc.close()


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    lines = [
        # LDS facts rest on PMID:4 only: a case from another paper keeps them ...
        _packet("other-paper", "PMID:99", [AORTIC_ROOT, HYPERMOBILITY], [SEIZURE], LDS),
        # ... a case from PMID:4 itself must not see them under leave-publication-out.
        _packet("own-paper", "PMID:4", [AORTIC_ROOT, HYPERMOBILITY, ECTOPIA_LENTIS], [], LDS),
        "{not json",
        _packet("no-diagnosis", "PMID:98", [AORTIC_ROOT], [], None),
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_summary_has_every_documented_key_and_counts_skips(service: MedDiagService, cases: Path) -> None:
    report = service.evaluate(cases, baseline=True)
    s = report.summary
    for key in (
        "protocol", "n", "in_kb", "skipped", "top1", "top3", "top10", "mrr", "top1_in_kb", "top3_in_kb",
        "top10_in_kb", "mrr_in_kb", "cases_per_s", "p50_s", "p95_s", "baseline",
    ):  # fmt: skip
        assert key in s, key
    assert s["n"] == 2 and s["in_kb"] == 2
    assert s["skipped"] == {"malformed": 1, "no_diagnosis": 1}
    if Path("/proc/self/stat").exists():  # processor time is read from Linux's /proc
        assert s["cpu_s_per_case"] > 0
        assert f"{s['cpu_s_per_case']:.3f} s of processor time per case" in report.markdown
    assert set(s["baseline"]) >= {"top1", "top10", "mrr", "top1_in_kb"}
    # Which index answered, so figures from another build or embedder are not compared blindly.
    manifest = service.kb().manifest
    assert s["knowledge_base"] == {
        "profile": manifest.profile,
        "embedder": manifest.embedder.name,
        "build_id": manifest.build_id,
    }
    assert f"embedder {manifest.embedder.name}" in report.markdown
    # Two in-KB cases from two papers: each interval spans the shares a resample can give.
    for k in ("top1", "top10"):
        lo, hi = s["ci95_in_kb"][k]
        assert 0.0 <= lo <= s[f"{k}_in_kb"] <= hi <= 1.0
    assert "95 % intervals in KB, resampling publications: top-1" in report.markdown
    assert s["publications_in_kb"] == 2 and set(s["per_publication_in_kb"]) == {"top1", "top10"}
    assert "In KB with each of the 2 publications weighing one: top-1" in report.markdown
    # Ties counted against the method, read from the answers' differentials; none moves here.
    ties = s["ties_against_in_kb"]
    assert ties["moved_by_ties"] == 0 and ties["top1"] == s["top1_in_kb"]
    assert "In KB with exact ties counted against the method (0 cases" in report.markdown
    # Each record names its publications whatever the protocol (studies of a run group by them).
    full = service.evaluate(cases, protocol="full").records
    assert all(r.publications for r in full) and len({r.publications[0] for r in full}) == 2


def test_cases_citing_no_pubmed_id_are_counted_as_answered_with_everything_visible(
    service: MedDiagService, tmp_path: Path
) -> None:
    path = tmp_path / "cases.jsonl"
    lines = [
        _packet("cited", "PMID:4", [AORTIC_ROOT, HYPERMOBILITY], [], LDS),
        _packet("uncited", "DOI:10.1000/1", [AORTIC_ROOT, HYPERMOBILITY], [], LDS),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lpo = service.evaluate(path, protocol="leave-publication-out")
    assert lpo.summary["no_publication"] == 1
    assert "1 case cites no PubMed id: nothing could be left out for them" in lpo.markdown
    full = service.evaluate(path, protocol="full")
    assert full.summary["no_publication"] == 1 and "cites no PubMed id" not in full.markdown


@pytest.mark.parametrize("limit", [0, -2])
def test_a_sample_of_no_cases_is_refused_clearly(service: MedDiagService, cases: Path, limit: int) -> None:
    with pytest.raises(InputError, match="at least 1 case"):
        service.evaluate(cases, limit=limit)


def test_leave_publication_out_hides_the_case_own_paper(service: MedDiagService, cases: Path) -> None:
    lpo = {r.case_id: r for r in service.evaluate(cases, protocol="leave-publication-out").records}
    full = {r.case_id: r for r in service.evaluate(cases, protocol="full").records}
    assert full["own-paper"].rank == 1
    assert lpo["other-paper"].rank == 1
    hidden = lpo["own-paper"].result
    assert hidden is not None and hidden.excluded_sources == ["PMID:4"]
    # Every LDS phenotype fact rests on PMID:4 alone: none may reach either channel or a citation.
    triples = [t for hop in hidden.relational.hops for t in hop.triples]
    assert triples and all(set(t.provenance) - {"PMID:4"} for t in triples if t.provenance)
    assert all("PMID:4" not in c.provenance for c in hidden.synthesis.citations)
    passages = [p for hop in hidden.semantic.hops for p in hop.passages]
    assert all("PMID:4" not in p.provenance for p in passages)
    # Only text that does not rest on the paper (MONDO's description) can still name LDS.
    assert lpo["own-paper"].rank is None or lpo["own-paper"].rank >= full["own-paper"].rank


def test_each_case_says_how_much_of_its_diagnosis_rests_on_its_own_paper(
    service: MedDiagService, cases: Path
) -> None:
    report = service.evaluate(cases)
    records = {r.case_id: r for r in report.records}
    own, other = records["own-paper"], records["other-paper"]
    assert own.gold_facts and own.gold_facts_own == own.gold_facts  # every LDS fact rests on PMID:4
    assert other.gold_facts == own.gold_facts and other.gold_facts_own == 0
    groups = report.summary["by_own_publication_share"]
    assert list(groups) == ["none", "half or fewer", "more than half", "all"]
    assert (groups["none"]["n"], groups["all"]["n"], groups["half or fewer"]["n"]) == (1, 1, 0)
    assert groups["none"]["top1"] == (1.0 if other.rank == 1 else 0.0)
    placed = [groups["all"][k] for k in ("missed_second", "missed_third_to_tenth", "missed_below_tenth")]
    assert sum(placed) == (0 if own.rank == 1 else 1)  # the own-paper case's miss, placed once
    assert "| all | 1 |" in report.markdown and "were hidden while each case" in report.markdown
    assert "gold second / 3rd–10th / further down" in report.markdown
    assert "stayed visible" in service.evaluate(cases, protocol="full").markdown


def _written_rows(service: MedDiagService, cases: Path, out: Path) -> tuple[Path, list[dict]]:
    """Run once into `out`; the per-case file and its rows, for a test to rewrite."""
    service.evaluate(cases, out_dir=out)
    path = out / "cases.jsonl"
    return path, [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    "missing",
    [("gold_facts", "gold_facts_own", "gold_facts_thinned"), ("gold_facts_thinned",)],
    ids=["no counts", "no thinned count"],
)
def test_a_resumed_record_without_fact_counts_gets_them(
    service: MedDiagService, cases: Path, tmp_path: Path, missing: tuple[str, ...]
) -> None:
    out = tmp_path / "run"
    path, rows = _written_rows(service, cases, out)
    for row in rows:  # as written before the counts existed
        for key in missing:
            del row["record"][key]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    resumed = {r.case_id: r for r in service.evaluate(cases, out_dir=out).records}
    assert resumed["own-paper"].gold_facts_own == resumed["own-paper"].gold_facts > 0
    assert resumed["other-paper"].gold_facts_own == 0
    assert all(r.gold_facts_thinned == 0 for r in resumed.values())  # no LDS fact mixes sources


def test_naming_the_genes_is_a_separate_scenario_that_uses_them(
    service: MedDiagService, tmp_path: Path
) -> None:
    path = tmp_path / "gene-cases.jsonl"
    # Every LDS phenotype fact rests on PMID:4, the case's own paper: only its gene can find it.
    path.write_text(
        _packet("own-paper", "PMID:4", [AORTIC_ROOT, HYPERMOBILITY], [], LDS, gene="TGFBR2") + "\n"
    )
    without = service.evaluate(path)
    named = service.evaluate(path, genes=True)
    assert without.summary["genes"] is False and named.summary["genes"] is True
    assert "TGFBR2" not in without.records[0].question
    assert named.records[0].question.endswith(
        "Genetic testing found a variant in TGFBR2. What is the most likely diagnosis?"
    )
    assert without.records[0].rank != 1 and named.records[0].rank == 1
    assert EvalOptions(path=path, genes=True).fingerprint() != EvalOptions(path=path).fingerprint()


def test_structured_input_asks_with_the_patient_form_fields(service: MedDiagService, tmp_path: Path) -> None:
    path = tmp_path / "unworded.jsonl"
    # Labels no linker can read: only the findings' ids, as the patient form sends them, name LDS.
    packet = json.loads(_packet("other-paper", "PMID:99", [AORTIC_ROOT, HYPERMOBILITY], [SEIZURE], LDS))
    for k, feature in enumerate(packet["phenotypicFeatures"]):
        feature["type"]["label"] = f"finding number {k}"
    path.write_text(json.dumps(packet) + "\n", encoding="utf-8")
    text = service.evaluate(path)
    form = service.evaluate(path, input_form="structured")
    assert text.summary["input"] == "text" and form.summary["input"] == "structured"
    assert "patient form" in form.markdown and "patient form" not in text.markdown
    assert text.records[0].rank != 1 and form.records[0].rank == 1
    result = form.records[0].result
    assert result is not None
    findings = {(f.hpo_id, f.excluded) for f in result.parsed.findings}
    assert findings == {(AORTIC_ROOT, False), (HYPERMOBILITY, False), (SEIZURE, True)}
    # The record still reads as the vignette, and a resumed run never mixes the two forms.
    assert form.records[0].question == text.records[0].question
    assert EvalOptions(path=path, input="structured").fingerprint() != EvalOptions(path=path).fingerprint()


def test_a_run_writes_cases_summary_report_and_resumes(
    service: MedDiagService, cases: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    first = service.evaluate(cases, out_dir=out)
    assert (out / "summary.json").is_file() and (out / "report.md").is_file()
    lines = (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    second = service.evaluate(cases, out_dir=out)
    assert (out / "cases.jsonl").read_text(encoding="utf-8").splitlines() == lines  # nothing re-run
    assert second.summary["top1"] == first.summary["top1"]
    assert "MedDiag evaluation" in second.markdown


def test_records_from_another_knowledge_base_build_are_answered_again(
    service: MedDiagService, cases: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    path, rows = _written_rows(service, cases, out)
    older = EvalOptions(path=cases).fingerprint("an-earlier-build")
    assert rows[0]["fingerprint"] != older
    path.write_text("".join(json.dumps({**r, "fingerprint": older}) + "\n" for r in rows), encoding="utf-8")
    service.evaluate(cases, out_dir=out)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2 * len(rows)  # both answered anew


def test_an_interrupted_run_drops_the_queued_cases_and_keeps_the_written_ones(
    service: MedDiagService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "many.jsonl"
    path.write_text(
        "\n".join(_packet(f"case-{i}", "PMID:99", [AORTIC_ROOT, HYPERMOBILITY], [], LDS) for i in range(6))
        + "\n"
    )
    answered: list[str] = []
    real_answer = runner._answer

    def counting(engine: object, case: Case, options: EvalOptions, gold: object) -> object:
        answered.append(case.id)
        return real_answer(engine, case, options, gold)

    def interrupt(message: str, fraction: float) -> None:
        raise KeyboardInterrupt  # what Ctrl-C raises in the command's main thread

    monkeypatch.setattr(runner, "_answer", counting)
    options = EvalOptions(path=path, workers=1, parallel="threads", out_dir=tmp_path / "run")
    with pytest.raises(KeyboardInterrupt):
        run_evaluation(service.engine("lightrag"), options, progress=interrupt)
    assert len(answered) <= 2  # the case written and at most the one in flight, not all six
    assert len((tmp_path / "run" / "cases.jsonl").read_text(encoding="utf-8").splitlines()) == 1


def test_worker_processes_answer_exactly_as_threads_do(service: MedDiagService, cases: Path) -> None:
    engine = service.engine("lightrag")
    options = EvalOptions(path=cases, baseline=True, workers=2)
    with _lanes(
        engine, options.model_copy(update={"parallel": "processes"}), 2, _gold_context(engine, False)
    ) as lanes:
        # Really a worker process, not a silent fallback; the two cases fill one slot of each lane.
        assert lanes.workers is not None and isinstance(lanes.workers.pool, ProcessPoolExecutor)
        assert (lanes.local.slots, lanes.workers.slots) == (1, 2)
    by_threads = run_evaluation(engine, options.model_copy(update={"parallel": "threads"}))
    by_processes = run_evaluation(engine, options.model_copy(update={"parallel": "processes"}))
    assert [(r.case_id, r.rank, r.top10, r.baseline_rank) for r in by_processes.records] == [
        (r.case_id, r.rank, r.top10, r.baseline_rank) for r in by_threads.records
    ]
    assert by_processes.records[0].result is not None and by_processes.records[0].result.relational.hops


def test_short_runs_and_unshareable_stores_stay_in_threads(service: MedDiagService, cases: Path) -> None:
    engine = service.engine("lightrag")
    gold = _gold_context(engine, False)
    auto = EvalOptions(path=cases, workers=2)
    for options, todo in ((auto, PROCESS_MIN_CASES - 1), (auto.model_copy(update={"workers": 1}), 10_000)):
        with _lanes(engine, options, todo, gold) as lanes:
            assert lanes.workers is None and isinstance(lanes.local.pool, ThreadPoolExecutor)
            assert lanes.local.slots == options.workers
    # A long run: this process's engine answers in one thread beside workers - 1 processes.
    with _lanes(engine, auto.model_copy(update={"workers": 3}), PROCESS_MIN_CASES, gold) as lanes:
        assert lanes.workers is not None and isinstance(lanes.workers.pool, ProcessPoolExecutor)
        assert lanes.workers.pool._max_workers == 2
        assert isinstance(lanes.local.pool, ThreadPoolExecutor) and lanes.local.slots == 1


def test_a_worker_that_cannot_open_the_knowledge_base_is_a_clear_error(
    service: MedDiagService, cases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = service.engine("lightrag")
    monkeypatch.setattr(engine.kb.vectors, "shared_uri", lambda: "unix:/nonexistent/milvus.sock")
    options = EvalOptions(path=cases, workers=2, parallel="processes")
    with pytest.raises(MedDiagError, match="evaluation worker process stopped"):
        run_evaluation(engine, options)


ORPHAN = """
import multiprocessing, os, sys, threading, time
from meddiag.eval.runner import _exit_with_parent

def child(parent):
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    time.sleep(120)

if __name__ == "__main__":
    worker = multiprocessing.get_context("spawn").Process(target=child, args=(os.getpid(),))
    worker.start()
    print(worker.pid, flush=True)
    os._exit(0)  # the command dies at once, before the worker has even started
"""


def test_a_worker_exits_when_its_command_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN, encoding="utf-8")
    # The worker inherits stdout, so read the pid line rather than wait for the pipe to close.
    command = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert command.stdout is not None
    worker = int(command.stdout.readline())
    command.wait(timeout=60)
    command.stdout.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.2)
    assert not _alive(worker)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_records_answered_by_other_code_or_another_reasoner_are_answered_again(
    service: MedDiagService, cases: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    path, rows = _written_rows(service, cases, out)
    build = service.engine().kb.manifest.build_id
    now = EvalOptions(path=cases).fingerprint(build, f"offline|{meddiag_digest()}")
    assert rows[0]["fingerprint"] == now  # the code and reasoner that answered are part of it
    for other in ("offline|an-earlier-version", f"llm:some-model|{meddiag_digest()}"):
        assert EvalOptions(path=cases).fingerprint(build, other) != now
    stale = EvalOptions(path=cases).fingerprint(build, "offline|an-earlier-version")
    path.write_text("".join(json.dumps({**r, "fingerprint": stale}) + "\n" for r in rows), encoding="utf-8")
    service.evaluate(cases, out_dir=out)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2 * len(rows)  # all answered anew


def test_lanes_answer_each_case_once_and_hold_no_more_than_their_slots() -> None:
    """A case goes to whichever lane frees first, and no lane ever holds more than its slots."""
    lock = threading.Lock()
    held = {"fast": 0, "slow": 0}
    most = dict(held)
    answered: dict[str, str] = {}

    def answerer(lane: str, pause: float) -> Callable[[str], CaseRecord]:
        def answer(case_id: str) -> CaseRecord:
            with lock:
                held[lane] += 1
                most[lane] = max(most[lane], held[lane])
            time.sleep(pause)
            with lock:
                held[lane] -= 1
                answered[case_id] = lane
            return CaseRecord(
                case_id=case_id,
                gold=[],
                gold_labels=[],
                in_kb=False,
                question="",
                rank=None,
                top10=[],
                seconds=0,
            )

        return answer

    cases = [f"case-{i}" for i in range(30)]
    with _Lanes(
        _Lane(ThreadPoolExecutor(max_workers=1), answerer("fast", 0.002), 1),
        _Lane(ThreadPoolExecutor(max_workers=3), answerer("slow", 0.05), 3),
    ) as lanes:
        records = list(lanes.answer_all(cases))  # type: ignore[arg-type]
    assert sorted(r.case_id for r in records) == sorted(cases)  # each once, none lost
    assert most == {"fast": 1, "slow": 3}
    # The fast lane frees far more often, so it answers more than its share of slots (1 in 4).
    assert sum(1 for lane in answered.values() if lane == "fast") > len(cases) // 4
