"""Send every phenopacket case through the full engine and score the differential.

Each case becomes a clinician-style vignette (phenotype labels, age, sex, "no …" for
excluded findings) answered by both channels and the synthesis. Under the
leave-publication-out protocol the engine is told to leave the case's own publications
out, at retrieval time, for every piece of evidence and for the ranker. Results are
written per case as they arrive, so an interrupted run resumes where it stopped.

An ask is mostly Python work, so threads take turns under the interpreter lock; a long run
therefore answers in worker processes as well, each with its own engine over the same knowledge
base (attached to the parent's Milvus Lite server, which keeps the file locked against others).
The command's own engine, already loaded, answers beside them in one thread: it starts at
once, while a worker spends ~20 s loading, and it saves one worker's copy of the knowledge base.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from meddiag.errors import InputError, MedDiagError
from meddiag.eval.baseline import baseline_index, baseline_rank
from meddiag.eval.cpu import tree_cpu_seconds
from meddiag.eval.metrics import Report, gold_place, report
from meddiag.eval.own_facts import PhenotypeFacts
from meddiag.eval.phenopackets import Case, load_cases
from meddiag.eval.questions import equivalence_map, gold_match, structured, vignette
from meddiag.eval.report import by_own_share, by_publication, render_markdown, summary_dict, ties_against
from meddiag.eval.source_digest import meddiag_digest
from meddiag.schema import AskResult, Channels

if TYPE_CHECKING:
    from meddiag.config import Settings
    from meddiag.diagnosis.index import PhenotypeIndex
    from meddiag.engine.api import Engine

Protocol_ = Literal["leave-publication-out", "full"]
# How each case is asked: the clinician-style vignette, or the same findings as the patient form's fields.
InputForm = Literal["text", "structured"]
Parallel = Literal["auto", "threads", "processes"]
Progress = Callable[[str, float], None]
# Below this many cases a worker process's start (it loads the knowledge base) is not repaid.
PROCESS_MIN_CASES = 100


class EvalOptions(BaseModel):
    path: Path
    limit: int | None = None
    seed: int = 0
    protocol: Protocol_ = "leave-publication-out"
    backend: str = "lightrag"
    channels: Channels = "both"
    baseline: bool = False
    out_dir: Path | None = None
    workers: int = 2
    parallel: Parallel = "auto"
    max_hops: int = 4
    genes: bool = False  # name the case's genes in the question (not the phenotype-only benchmark)
    input: InputForm = "text"

    def fingerprint(self, build_id: str = "", answered_by: str = "") -> str:
        """Identifies runs whose per-case results may be reused when resuming: same cases, same
        options, the same knowledge-base build (`build_id`; a rebuilt index answers anew) and the
        same answering code and reasoner (`answered_by`; an edited ranker answers anew)."""
        key = f"{self.path.resolve()}|{self.protocol}|{self.backend}|{self.channels}|{self.max_hops}"
        if build_id:
            key += f"|{build_id}"
        if answered_by:
            key += f"|{answered_by}"
        if self.genes:
            key += "|genes"
        if self.input != "text":
            key += f"|{self.input}"
        return hashlib.sha1(key.encode()).hexdigest()[:12]


class CaseRecord(BaseModel):
    case_id: str
    gold: list[str]
    # The case's publications (PMIDs), whatever the protocol: studies of a run group by them.
    publications: list[str] = Field(default_factory=list)
    gold_labels: list[str] = Field(default_factory=list)
    in_kb: bool
    question: str
    rank: int | None
    top10: list[str]
    seconds: float
    baseline_rank: int | None = None
    # The gold disease's HAS_PHENOTYPE facts, how many rest only on the case's own
    # publications (hidden under leave-publication-out) and how many stay visible but lose
    # the frequency those publications were pooled into: whose miss is it, method or protocol?
    gold_facts: int | None = None
    gold_facts_own: int | None = None
    gold_facts_thinned: int | None = None
    error: str | None = None
    result: AskResult | None = None


class EvalReport(BaseModel):
    summary: dict[str, Any]
    records: list[CaseRecord]
    markdown: str


@dataclass
class _Gold:
    """What the knowledge base knows that gold matching needs."""

    known: frozenset[str]
    equivalents: dict[str, list[str]]
    baseline: PhenotypeIndex | None
    facts: PhenotypeFacts


def _gold_context(engine: Engine, with_baseline: bool) -> _Gold:
    graph = engine.kb.graph
    known = frozenset(e.id for e in graph.iter_entities(["Disease"]))
    # Whole equivalence groups, as the ranker pools them: a case of one OMIM entry is
    # answered by the row of another the KB links to the same MONDO class.
    equivalents = equivalence_map((r.subject, r.object) for r in graph.iter_relations(["EQUIVALENT_TO"]))
    # One pass over the phenotype facts serves the fact counts and, when asked, the baseline.
    phenotype = list(graph.iter_relations(["HAS_PHENOTYPE", "NOT_HAS_PHENOTYPE"]))
    index = None
    if with_baseline:
        from meddiag.knowledge.hpo import Ontology
        from meddiag.knowledge.sources import packaged_sources

        ontology = Ontology.from_obo(packaged_sources().hp_obo)
        names = {e.id: e.name for e in graph.iter_entities(["Disease"])}
        index = baseline_index(ontology, phenotype, names)
    facts = PhenotypeFacts.from_relations(phenotype, equivalents)
    return _Gold(known=known, equivalents=equivalents, baseline=index, facts=facts)


def _sample(cases: list[Case], limit: int | None, seed: int) -> list[Case]:
    if limit is None or limit >= len(cases):
        return cases
    return random.Random(seed).sample(cases, limit)


def _answer(engine: Engine, case: Case, options: EvalOptions, gold: _Gold) -> CaseRecord:
    match = gold_match(case, gold.known, gold.equivalents)
    facts = gold.facts.count(match.ids, case.sources)
    excluded = case.sources if options.protocol == "leave-publication-out" else frozenset()
    question = vignette(case, genes=options.genes)
    # The record keeps the vignette either way: it is how the case reads to a person.
    text, patient = (
        (None, structured(case, genes=options.genes)) if options.input == "structured" else (question, None)
    )
    start = time.perf_counter()
    try:
        result = engine.ask(
            text,
            patient=patient,
            channels=options.channels,
            max_hops=options.max_hops,
            exclude_sources=excluded,
        )
    except MedDiagError as err:
        return CaseRecord(
            case_id=case.id,
            gold=match.ids,
            publications=sorted(case.pmids),
            gold_labels=case.disease_labels,
            in_kb=match.in_kb,
            question=question,
            rank=None,
            top10=[],
            seconds=time.perf_counter() - start,
            gold_facts=facts.total,
            gold_facts_own=facts.own,
            gold_facts_thinned=facts.thinned,
            error=str(err),
        )
    seconds = time.perf_counter() - start
    ranked = [d.id for d in result.synthesis.differential]
    baseline = None
    if gold.baseline is not None:
        observed = [f.id for f in case.observed]
        hits = baseline_rank(gold.baseline, observed, exclude_sources=excluded, top_k=100)
        baseline = gold_place([h.id for h in hits], set(match.ids))
    return CaseRecord(
        case_id=case.id,
        gold=match.ids,
        publications=sorted(case.pmids),
        gold_labels=case.disease_labels,
        in_kb=match.in_kb,
        question=question,
        rank=gold_place(ranked, set(match.ids)),
        top10=ranked[:10],
        seconds=seconds,
        baseline_rank=baseline,
        gold_facts=facts.total,
        gold_facts_own=facts.own,
        gold_facts_thinned=facts.thinned,
        result=result,
    )


# One per worker process: its engine, gold context and the run's options.
_WORKER: tuple[Engine, _Gold, EvalOptions] | None = None


def _exit_with_parent(parent: int) -> None:
    """A worker whose command was killed would otherwise live on, holding its memory.
    `parent` is the command's pid, passed in: one that died before this worker started has
    already handed it to another parent."""
    while os.getppid() == parent:
        time.sleep(2.0)
    os._exit(1)


def _start_worker(
    parent: int, settings: Settings, backend: str, vectors_uri: str, options: EvalOptions
) -> None:
    global _WORKER
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    from meddiag.engine.api import create_engine
    from meddiag.knowledge.handle import open_knowledge_base

    kb = open_knowledge_base(settings, vectors_uri=vectors_uri)
    engine = create_engine(settings, backend=backend, kb=kb)  # type: ignore[arg-type]
    _WORKER = (engine, _gold_context(engine, options.baseline), options)
    # The engine holds millions of small objects; freeing them one by one when the pool
    # shuts down took a busy worker about a minute, and by then its results are all sent.
    atexit.register(os._exit, 0)


def _answer_in_worker(case: Case) -> CaseRecord:
    if _WORKER is None:
        raise RuntimeError("evaluation worker used before it was started")
    engine, gold, options = _WORKER
    return _answer(engine, case, options, gold)


@dataclass
class _Lane:
    """One way of answering cases and how many of them it takes at a time."""

    pool: ThreadPoolExecutor | ProcessPoolExecutor
    answer: Callable[[Case], CaseRecord]
    slots: int


@dataclass
class _Lanes:
    """Threads over this process's engine and, for long runs, worker processes beside them."""

    local: _Lane
    workers: _Lane | None = None

    @property
    def all(self) -> list[_Lane]:
        return [self.local] if self.workers is None else [self.local, self.workers]

    def __enter__(self) -> _Lanes:
        return self

    def __exit__(self, *exc: object) -> None:
        for lane in self.all:
            lane.pool.shutdown(wait=True, cancel_futures=True)

    def answer_all(self, cases: Sequence[Case]) -> Iterator[CaseRecord]:
        """Records as they are answered. Each lane holds at most its `slots` cases, so a case
        goes to whichever lane frees first and an interrupted run has few in flight."""
        todo = iter(cases)
        running: dict[Future[CaseRecord], _Lane] = {}

        def fill() -> None:
            for lane in self.all:
                while sum(1 for held in running.values() if held is lane) < lane.slots:
                    case = next(todo, None)
                    if case is None:
                        return
                    running[lane.pool.submit(lane.answer, case)] = lane

        fill()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                del running[future]
                yield future.result()
            fill()


def _lanes(engine: Engine, options: EvalOptions, todo: int, gold: _Gold) -> _Lanes:
    """Worker processes beside one local thread for a long run over a shareable store, else
    `workers` threads in this process."""
    workers = max(1, options.workers)
    local = partial(_answer, engine, options=options, gold=gold)
    wants = options.parallel == "processes" or (
        options.parallel == "auto" and workers > 1 and todo >= PROCESS_MIN_CASES
    )
    uri = engine.kb.vectors.shared_uri() if wants and workers > 1 else None
    if uri is None:
        return _Lanes(_Lane(ThreadPoolExecutor(max_workers=workers), local, workers))
    # Spawned, not forked: a forked child would inherit the parent's gRPC channel to Milvus.
    pool = ProcessPoolExecutor(
        max_workers=workers - 1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(os.getpid(), engine.kb.settings, engine.backend, uri, options),
    )
    # Two cases per worker process: the next one is already there when it finishes one.
    return _Lanes(
        _Lane(ThreadPoolExecutor(max_workers=1), local, 1),
        _Lane(pool, _answer_in_worker, 2 * (workers - 1)),
    )


def answered_by(engine: Engine) -> str:
    """Who answers: the reasoner (offline, or which LLM) and the digest of the code it runs."""
    return f"{engine.reasoner.name}|{meddiag_digest()}"


def _resume(path: Path, fingerprint: str) -> dict[str, CaseRecord]:
    done: dict[str, CaseRecord] = {}
    if not path.exists():
        return done
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by an interruption: that case is simply run again
            if row.get("fingerprint") == fingerprint:
                done[row["record"]["case_id"]] = CaseRecord.model_validate(row["record"])
    return done


def run_evaluation(engine: Engine, options: EvalOptions, *, progress: Progress | None = None) -> EvalReport:
    """Answer every usable case, write per-case JSONL, a summary JSON and a Markdown report."""
    loaded = load_cases(options.path)
    cases = _sample(loaded.cases, options.limit, options.seed)
    if not cases:
        raise InputError(f"No usable phenopacket in {options.path} (skipped: {dict(loaded.skipped)}).")
    gold = _gold_context(engine, options.baseline)
    fingerprint = options.fingerprint(engine.kb.manifest.build_id, answered_by(engine))
    out_file = options.out_dir / "cases.jsonl" if options.out_dir else None
    done = _resume(out_file, fingerprint) if out_file else {}
    for c in cases:  # records written before the fact counts existed get them now
        if c.id in done and None in (done[c.id].gold_facts, done[c.id].gold_facts_thinned):
            facts = gold.facts.count(done[c.id].gold, c.sources)
            update = {
                "gold_facts": facts.total,
                "gold_facts_own": facts.own,
                "gold_facts_thinned": facts.thinned,
            }
            done[c.id] = done[c.id].model_copy(update=update)
    todo = [c for c in cases if c.id not in done]
    records: dict[str, CaseRecord] = dict(done)
    started = time.perf_counter()
    bar = _progress_bar(len(cases), len(done))
    if out_file:
        out_file.parent.mkdir(parents=True, exist_ok=True)
    sink = out_file.open("a", encoding="utf-8") if out_file else None
    cpu_start = tree_cpu_seconds()
    cpu_end: float | None = None
    try:
        with _lanes(engine, options, len(todo), gold) as lanes:
            for record in lanes.answer_all(todo):
                records[record.case_id] = record
                if sink:
                    row = {
                        "fingerprint": fingerprint,
                        "record": record.model_dump(mode="json", by_alias=True),
                    }
                    sink.write(json.dumps(row, ensure_ascii=False) + "\n")
                    sink.flush()
                bar.update(1)
                if progress:
                    progress(f"case {len(records)}/{len(cases)}", len(records) / len(cases))
            cpu_end = tree_cpu_seconds()  # while the worker processes still run
    except BrokenProcessPool as err:
        raise MedDiagError(
            "An evaluation worker process stopped (out of memory, or it could not open the knowledge "
            f"base: {err}); the cases answered so far are kept — run again to resume."
        ) from err
    finally:
        bar.close()
        if sink:
            sink.close()
    elapsed = time.perf_counter() - started
    ordered = [records[c.id] for c in cases]
    metrics: Report = report(
        [r.rank for r in ordered],
        [r.in_kb for r in ordered],
        skipped=dict(loaded.skipped),
        seconds=[r.seconds for r in ordered],
    )
    base = None
    if options.baseline:
        base = report([r.baseline_rank for r in ordered], [r.in_kb for r in ordered])
    summary = summary_dict(
        options,
        metrics,
        base,
        cases_per_s=len(todo) / elapsed if todo and elapsed > 0 else 0.0,
        cpu_s_per_case=(cpu_end - cpu_start) / len(todo)
        if todo and cpu_start is not None and cpu_end is not None
        else None,
        errors=sum(1 for r in ordered if r.error),
        by_own_share=by_own_share(ordered),
        publications=by_publication(ordered, [c.publication for c in cases]),
        ties=ties_against(ordered),
        no_publication=sum(1 for c in cases if not c.pmids),
        knowledge_base={
            "profile": engine.kb.manifest.profile,
            "embedder": engine.kb.manifest.embedder.name,
            "build_id": engine.kb.manifest.build_id,
        },
    )
    markdown = render_markdown(summary, ordered)
    if options.out_dir:
        (options.out_dir / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
        (options.out_dir / "report.md").write_text(markdown, encoding="utf-8")
    return EvalReport(summary=summary, records=ordered, markdown=markdown)


def _progress_bar(total: int, initial: int) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc="eval", unit="case", leave=False)
