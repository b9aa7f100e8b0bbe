"""The `meddiag` console script: real commands in a subprocess, clear messages instead of tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from meddiag.config import Settings
from meddiag.knowledge.assemble import assemble_kb
from meddiag.knowledge.build import build_knowledge_base
from tests.fixtures.sources import tiny_sources


def _meddiag(
    home: Path, *args: str, timeout: float = 600, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEDDIAG_HOME": str(home), "MEDDIAG_PROFILE": "demo", **(env_extra or {})}
    for key in ("MEDDIAG_LLM_BASE_URL", "MEDDIAG_NEO4J_URI", "MEDDIAG_MILVUS_URI"):
        env.pop(key, None)
    return subprocess.run(
        [sys.executable, "-m", "meddiag.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def tiny_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("cli-home")
    settings = Settings(home=home, profile="demo", llm_base_url="", llm_model="", neo4j_uri="", milvus_uri="")
    build_knowledge_base(settings, kb=assemble_kb(tiny_sources(home / "sources"), "full"))
    return home


def test_missing_knowledge_base_is_a_sentence_not_a_traceback(tmp_path: Path) -> None:
    done = _meddiag(tmp_path, "ask", "tall stature and arachnodactyly")
    assert done.returncode == 2
    assert "No knowledge base yet" in done.stderr
    assert "Traceback" not in done.stderr


def test_unknown_backend_is_refused_by_name(tmp_path: Path) -> None:
    done = _meddiag(tmp_path, "retrieve", "tall stature", "--backend", "graphrag")
    assert done.returncode == 2
    assert "invalid choice" in done.stderr and "lightrag" in done.stderr


def test_a_mistyped_environment_variable_is_named_not_a_traceback(tmp_path: Path) -> None:
    done = _meddiag(tmp_path, "stats", env_extra={"MEDDIAG_BACKEND": "graphrag"})
    assert done.returncode == 2
    assert "MEDDIAG_BACKEND='graphrag'" in done.stderr and "lightrag" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("limit", ["0", "-3", "ten"])
def test_eval_limit_must_be_a_positive_number(tmp_path: Path, limit: str) -> None:
    done = _meddiag(tmp_path, "eval", str(tmp_path), "--limit", limit)
    assert done.returncode == 2
    assert "--limit" in done.stderr and "at least 1" in done.stderr
    assert "Traceback" not in done.stderr


def test_zero_hops_is_refused_not_taken_for_the_default(tiny_home: Path) -> None:
    done = _meddiag(tiny_home, "ask", "seizures", "--max-hops", "0")
    assert done.returncode == 2
    assert "between 1 and" in done.stderr
    assert "Traceback" not in done.stderr


def test_stats_json_has_the_documented_keys(tiny_home: Path) -> None:
    done = _meddiag(tiny_home, "stats", "--json")
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    for key in ("documents", "chunks", "entities", "relations", "hyperedges", "vectors", "sources"):
        assert key in stats, key
    assert stats["relations"]["HAS_PHENOTYPE"] > 0


def test_empty_question_gets_a_clear_message(tiny_home: Path) -> None:
    done = _meddiag(tiny_home, "ask", "   ")
    assert done.returncode == 2
    assert "question" in done.stderr.lower()
    assert "Traceback" not in done.stderr


def test_huge_question_is_refused_without_traceback(tiny_home: Path) -> None:
    done = _meddiag(tiny_home, "ask", "seizures " * 12_000)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_ask_json_has_both_channels_synthesis_and_events(tiny_home: Path) -> None:
    done = _meddiag(
        tiny_home,
        "ask",
        "A tall girl with arachnodactyly and ectopia lentis",
        "--json",
        "--exclude-source",
        "pmid:99",
        "--exclude-source",
        "98",
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert sorted(out["excluded_sources"]) == ["PMID:98", "PMID:99"]
    for key in ("question", "backend", "reasoner", "semantic", "relational", "synthesis", "events"):
        assert key in out, key
    assert out["semantic"]["hops"] and out["relational"]["hops"]
    assert {"node", "channel", "hop", "start", "end"} <= set(out["events"][0])
    cited = {c["n"] for c in out["synthesis"]["citations"]}
    for row in out["synthesis"]["differential"]:
        assert set(row["citations"]) <= cited
        assert "for" in row


def test_retrieve_json_has_text_and_kg_evidence(tiny_home: Path) -> None:
    done = _meddiag(tiny_home, "retrieve", "arachnodactyly", "--backend", "hypergraphrag", "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["backend"] == "hypergraphrag"
    assert set(out["kg"]) >= {"entities", "triples", "hyperedges", "paths"}
    assert "timings" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["eval", "cases.jsonl", "--out", "runs/a"], "runs/a/cases.jsonl; run the same command to resume"),
        (["eval", "cases.jsonl"], "no results were kept; pass --out DIR"),
        (["build"], "the knowledge base in use was not changed"),
        (["ask", "tall stature"], "nothing was changed"),
    ],
)
def test_an_interrupt_says_what_was_kept(
    argv: list[str], says: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from meddiag import cli

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_run", interrupted)
    assert cli.main(argv) == 130
    err = capsys.readouterr().err
    assert err.startswith("meddiag: interrupted; ") and says in err
    assert "Traceback" not in err


def _without_clock(value: object) -> object:
    """An answer without its timings: what must come out the same on every run."""
    if isinstance(value, dict):
        return {k: _without_clock(v) for k, v in value.items() if k not in {"events", "timings", "seconds"}}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


def test_the_same_question_gets_the_same_answer_in_every_process(tiny_home: Path) -> None:
    # A link reproduces a case only if nothing depends on the order sets iterate in, which
    # Python varies from process to process with the hash seed.
    question = "Which features distinguish Marfan syndrome from Loeys-Dietz syndrome 1?"
    answers = []
    for seed in ("1", "2", "3"):
        done = _meddiag(tiny_home, "ask", question, "--json", env_extra={"PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
        answers.append(_without_clock(json.loads(done.stdout)))
    assert "alone is annotated with" in json.dumps(answers[0])
    assert answers[1] == answers[0] and answers[2] == answers[0]
