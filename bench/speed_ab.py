"""Processor time per ask of two versions of MedDiag, run side by side on the same cases at the same moment.

On a shared virtual machine the processor time an ask takes drifts by 20–30 % within an hour
or two (README, Evaluation; "Throughput" in bench/HISTORY.md), more than the few per cent a speed
change is about, so runs one after another cannot settle it. Here each version asks the same
seeded sample of GA4GH phenopackets (never copied into the project) in its own process, on its
own copy of the knowledge base (a Milvus Lite file admits one process), and both start asking
at the same moment, so they share the machine's state. Cases are asked as structured patient
input with the case's own publications left out, as bench/ask_latency.py does.

Prints, for each side, the wall time, the engine process's CPU and the CPU of its whole process
tree (engine and Milvus Lite server) per ask; the HEAD/BASE ratios; and how many answers differ
between the sides at top-1 and anywhere in the top 10 (a pure speed change shows 0 / 0). The
side that finishes first leaves the other the machine for the rest of its run, so the share of
the longer run during which both were asking is printed too. Prints numbers; never asserts on
time.

    python bench/speed_ab.py HEAD --cases 200 --profile full      # uncommitted edits against HEAD
    python bench/speed_ab.py HEAD~3 HEAD --cases 100 --backend pathrag
    python bench/speed_ab.py main~5 --cases-file cases.jsonl --seed 7 --json

BASE and HEAD are git revisions (HEAD defaults to the working tree as it is); a revision is
checked out with `git worktree add --detach` into a temporary directory. Each side gets the
knowledge base `$MEDDIAG_HOME/kb/<profile>` copied under a temporary home of its own, and runs
in a child process whose `import meddiag` resolves to that side's source tree. Other MEDDIAG_*
settings of the calling shell (and any `.env`) are not passed on, so neither side reaches a
shared Milvus or Neo4j server or a language model. `--keep` leaves the temporary directory
(worktrees, knowledge-base copies, the children's logs) in place.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from meddiag.schema import BACKENDS

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CASES = Path(__file__).resolve().parents[2] / "shared" / "data" / "phenopackets-dev.jsonl"
WORKING_TREE = "working tree"
# Milvus Lite's lock beside its file is `.milvus.db.lock`; a copied lock would only mislead.
LOCK_PATTERNS = ("*.lock", ".*.lock")
TOP = 10
LOG_TAIL = 20


# ---------------------------------------------------------------- pure logic


def sample_ids(ids: Sequence[str], n: int, warmup: int, seed: int) -> tuple[list[str], list[str]]:
    """(measured, warm-up) case ids: a seeded sample of `n`, and `warmup` others asked before.

    When the file holds too few cases for both, the warm-up reuses the first of the sample."""
    unique = list(dict.fromkeys(ids))
    picked = random.Random(seed).sample(unique, min(len(unique), n + warmup))
    measured = picked[:n]
    warm = picked[n:]
    warm += measured[: warmup - len(warm)]
    return measured, warm


@dataclass(frozen=True)
class AnswerDiff:
    cases: int
    top1: int  # cases whose first disease differs
    top10: int  # cases whose top-10 list differs (order included)


def compare_answers(base: Mapping[str, Sequence[str]], head: Mapping[str, Sequence[str]]) -> AnswerDiff:
    """How many cases got a different first disease, and a different top-10 list, on the two sides.

    A case answered on one side only counts as different on both counts."""
    cases = list(dict.fromkeys([*base, *head]))
    top1 = top10 = 0
    for case in cases:
        if case not in base or case not in head:
            top1 += 1
            top10 += 1
            continue
        a, b = list(base[case][:TOP]), list(head[case][:TOP])
        top1 += a[:1] != b[:1]
        top10 += a != b
    return AnswerDiff(cases=len(cases), top1=top1, top10=top10)


@dataclass(frozen=True)
class SideResult:
    label: str
    asks: int
    wall_s: float
    engine_cpu_s: float
    tree_cpu_s: float | None  # None where /proc cannot be read
    top10: Mapping[str, Sequence[str]]

    def per_ask(self) -> dict[str, Any]:
        def each(total: float | None) -> float | None:
            return None if total is None or self.asks == 0 else total / self.asks

        return {
            "label": self.label,
            "asks": self.asks,
            "wall_s_per_ask": each(self.wall_s),
            "engine_cpu_s_per_ask": each(self.engine_cpu_s),
            "tree_cpu_s_per_ask": each(self.tree_cpu_s),
        }


def ratio(head: float | None, base: float | None) -> float | None:
    return None if head is None or not base else head / base


def summarize(base: SideResult, head: SideResult) -> dict[str, Any]:
    b, h = base.per_ask(), head.per_ask()
    diff = compare_answers(base.top10, head.top10)
    longer = max(base.wall_s, head.wall_s)
    return {
        "base": b,
        "head": h,
        # Both start at the same moment, so the shorter run is the time they shared the machine.
        "side_by_side_share": min(base.wall_s, head.wall_s) / longer if longer > 0 else None,
        "head_over_base": {
            key: ratio(h[f"{key}_s_per_ask"], b[f"{key}_s_per_ask"])
            for key in ("tree_cpu", "engine_cpu", "wall")
        },
        "different": {"cases": diff.cases, "top1": diff.top1, "top10": diff.top10},
    }


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def format_summary(summary: Mapping[str, Any]) -> str:
    lines = []
    for name in ("base", "head"):
        side = summary[name]
        lines += [
            f"{name.upper()}: {side['label']}",
            f"  {side['asks']} asks: wall {_num(side['wall_s_per_ask'])} s/ask, "
            f"engine CPU {_num(side['engine_cpu_s_per_ask'])} s/ask, "
            f"tree CPU {_num(side['tree_cpu_s_per_ask'])} s/ask",
        ]
    r = summary["head_over_base"]
    lines.append(
        f"HEAD/BASE: tree CPU {_num(r['tree_cpu'])}, engine CPU {_num(r['engine_cpu'])}, wall {_num(r['wall'])}"
    )
    share = summary["side_by_side_share"]
    lines.append(
        f"both sides asking for {_num(None if share is None else 100 * share, 0)} % of the longer run"
    )
    d = summary["different"]
    lines.append(f"different answers: top-1 {d['top1']} / {d['cases']}, top-10 {d['top10']} / {d['cases']}")
    return "\n".join(lines)


def _skip_in_copy(directory: str, names: list[str]) -> set[str]:
    """Lock files, and sockets or pipes a running server may have left (they cannot be copied)."""
    skipped = set(shutil.ignore_patterns(*LOCK_PATTERNS)(directory, names))
    for name in names:
        mode = os.lstat(os.path.join(directory, name)).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            skipped.add(name)
    return skipped


def copy_kb(source: Path, dest: Path) -> Path:
    """Copy a knowledge-base directory to `dest` (created), without its lock files."""
    shutil.copytree(source, dest, ignore=_skip_in_copy)
    return dest


# ---------------------------------------------------------------- git


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()


def resolve_revision(rev: str) -> str:
    try:
        return git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except subprocess.CalledProcessError:
        raise SystemExit(f"{rev!r} is not a revision of this repository.") from None


def revision_label(sha: str) -> str:
    return git("log", "-1", "--format=%h %s", sha)


# ---------------------------------------------------------------- child


def child(plan_path: Path) -> None:
    """Ask the planned cases with whichever `meddiag` PYTHONPATH names (the side's own tree).

    Only long-standing APIs here: the side may be an old revision."""
    # The protocol keeps the real stdout to itself; anything else printing there (the engine's
    # libraries, the Milvus Lite server that inherits fd 1) goes to the side's log instead.
    channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)

    def say(word: str, data: Mapping[str, Any]) -> None:
        channel.write(f"{word} {json.dumps(data)}\n")

    import meddiag
    from meddiag.config import Settings
    from meddiag.engine.api import create_engine
    from meddiag.eval.phenopackets import Case, load_cases
    from meddiag.schema import PatientInput

    plan = json.loads(plan_path.read_text(encoding="utf-8"))
    cases = {c.id: c for c in load_cases(Path(plan["cases_file"])).cases}
    missing = [i for i in plan["measured"] + plan["warmup"] if i not in cases]
    if missing:
        raise SystemExit(f"this version does not read {len(missing)} sampled cases, e.g. {missing[0]!r}")
    # MEDDIAG_HOME and MEDDIAG_PROFILE come from the parent; a `.env` in this side's tree must
    # not make the two sides differ.
    engine = create_engine(Settings(_env_file=None), backend=plan["backend"])

    def ask(case: Case) -> list[str]:
        patient = PatientInput(
            observed=[f.id for f in case.observed],
            excluded=[f.id for f in case.excluded],
            age_years=case.age_years,
            sex=case.sex,
        )
        result = engine.ask(patient=patient, exclude_sources=case.sources)
        return [d.id for d in result.synthesis.differential[:TOP]]

    for case_id in plan["warmup"]:
        ask(cases[case_id])
    say("READY", {"meddiag": str(Path(meddiag.__file__).resolve().parent)})
    sys.stdin.readline()

    top10: dict[str, list[str]] = {}
    cpu, wall = time.process_time(), time.perf_counter()
    for case_id in plan["measured"]:
        top10[case_id] = ask(cases[case_id])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    say("RESULT", {"asks": len(top10), "wall_s": wall, "cpu_s": cpu, "top10": top10})
    # Stay alive, with the Milvus Lite server, until the parent has read the tree's CPU.
    sys.stdin.readline()


# ---------------------------------------------------------------- parent


@dataclass
class Side:
    name: str  # BASE or HEAD
    label: str
    source: Path
    home: Path
    log: Path


@dataclass
class Running:
    side: Side
    proc: subprocess.Popen[str]
    log: IO[str]


def start(side: Side, plan: Path, profile: str) -> Running:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDDIAG_")}
    env.update(PYTHONPATH=str(side.source), MEDDIAG_HOME=str(side.home), MEDDIAG_PROFILE=profile)
    log = side.log.open("w", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(plan)],
        cwd=side.source,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        process_group=0,  # its own group, so a failure can stop it together with its server
    )
    return Running(side, proc, log)


Event = tuple[str, str, dict[str, Any], float | None]  # side, word, data, tree CPU at arrival


def read_events(run: Running, events: queue.Queue[Event], tree_cpu: Callable[[int], float | None]) -> None:
    """Forward a child's protocol lines; its tree CPU is read the moment its result arrives."""
    assert run.proc.stdout is not None
    for line in run.proc.stdout:
        word, _, rest = line.strip().partition(" ")
        if word in ("READY", "RESULT"):
            cpu = tree_cpu(run.proc.pid) if word == "RESULT" else None
            events.put((run.side.name, word, json.loads(rest), cpu))
    events.put((run.side.name, "EOF", {}, None))


def log_tail(path: Path) -> str:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return "\n".join(lines[-LOG_TAIL:])


def wait_for(word: str, events: queue.Queue[Event], sides: Sequence[Side]) -> dict[str, Event]:
    got: dict[str, Event] = {}
    by_name = {s.name: s for s in sides}
    while len(got) < len(sides):
        event = events.get()
        if event[1] == "EOF":
            side = by_name[event[0]]
            raise SystemExit(f"{side.name} ({side.label}) stopped early; its log ends:\n{log_tail(side.log)}")
        if event[1] == word:
            got[event[0]] = event
    return got


def send(run: Running, line: str) -> None:
    assert run.proc.stdin is not None
    run.proc.stdin.write(line + "\n")
    run.proc.stdin.flush()


def stop(run: Running) -> None:
    """End a child and whatever is left of its group (its Milvus Lite server, after a failure)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(run.proc.pid, sig)
        except ProcessLookupError:
            break  # the whole group has ended
        try:
            run.proc.wait(timeout=30)
            break
        except subprocess.TimeoutExpired:
            pass
    run.log.close()


def race(sides: Sequence[Side], plan: Path, profile: str) -> list[SideResult]:
    from meddiag.eval.cpu import tree_cpu_seconds

    events: queue.Queue[Event] = queue.Queue()
    runs = [start(side, plan, profile) for side in sides]
    try:
        for run in runs:
            threading.Thread(target=read_events, args=(run, events, tree_cpu_seconds), daemon=True).start()
        ready = wait_for("READY", events, sides)
        for side in sides:
            loaded = Path(ready[side.name][2]["meddiag"])
            if not loaded.is_relative_to(side.source.resolve()):
                raise SystemExit(f"{side.name} imported meddiag from {loaded}, not from {side.source}")
        before = {run.side.name: tree_cpu_seconds(run.proc.pid) for run in runs}
        for run in runs:
            send(run, "go")
        done = wait_for("RESULT", events, sides)
        for run in runs:
            send(run, "exit")
            run.proc.wait(timeout=60)
    finally:
        for run in runs:
            stop(run)
    results = []
    for side in sides:
        _, _, data, after = done[side.name]
        start_cpu = before[side.name]
        tree = None if after is None or start_cpu is None else after - start_cpu
        results.append(
            SideResult(side.label, data["asks"], data["wall_s"], data["cpu_s"], tree, data["top10"])
        )
    return results


@contextmanager
def workspace(keep: bool) -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="speed_ab-"))
    try:
        yield root
    finally:
        if keep:
            print(f"kept {root}", file=sys.stderr)
        else:
            # Worktrees are registered in the repository: unregister them, not just delete them.
            for tree in sorted(root.glob("*-src")):
                subprocess.run(
                    ["git", "worktree", "remove", "--force", str(tree)], cwd=REPO, capture_output=True
                )
            shutil.rmtree(root, ignore_errors=True)
            subprocess.run(["git", "worktree", "prune"], cwd=REPO, capture_output=True)


def prepare(name: str, rev: str | None, root: Path, kb: Path, profile: str) -> Side:
    if rev is None:
        label, source = WORKING_TREE, REPO
    else:
        sha = resolve_revision(rev)
        label, source = revision_label(sha), root / f"{name.lower()}-src"
        git("worktree", "add", "--detach", str(source), sha)
    home = root / f"{name.lower()}-home"
    copy_kb(kb, home / "kb" / profile)
    return Side(name, label, source, home, root / f"{name.lower()}.log")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("base", nargs="?", metavar="BASE", help="git revision to compare against")
    parser.add_argument(
        "head", nargs="?", metavar="HEAD", default=None, help="git revision (default: the working tree)"
    )
    parser.add_argument("--cases", type=int, default=200, help="vignettes asked by each side")
    parser.add_argument("--profile", choices=["demo", "full"], default="full")
    parser.add_argument("--backend", choices=BACKENDS, default=None, help="default: the configured backend")
    parser.add_argument("--cases-file", type=Path, default=DEFAULT_CASES, help="GA4GH phenopackets")
    parser.add_argument("--seed", type=int, default=0, help="seed of the case sample")
    parser.add_argument("--warmup", type=int, default=5, help="asks before the measured ones, per side")
    parser.add_argument("--keep", action="store_true", help="keep worktrees, KB copies and logs")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is None and args.base is None:
        parser.error("name the BASE revision")
    if args.cases < 1 or args.warmup < 0:
        parser.error("--cases must be at least 1 and --warmup at least 0")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child is not None:
        child(args.child)
        return

    from meddiag.config import Settings
    from meddiag.errors import MedDiagError
    from meddiag.eval.phenopackets import load_cases

    settings = Settings(profile=args.profile)
    if not settings.kb_dir.is_dir():
        raise SystemExit(
            f"No {args.profile!r} knowledge base at {settings.kb_dir}; "
            f"build it first with `meddiag build --profile {args.profile}`."
        )
    backend = args.backend or settings.backend
    cases_file = args.cases_file.resolve()
    try:
        ids = [c.id for c in load_cases(cases_file).cases]
    except MedDiagError as err:
        raise SystemExit(str(err)) from err
    if not ids:
        raise SystemExit(f"No usable cases in {cases_file}.")
    measured, warmup = sample_ids(ids, args.cases, args.warmup, args.seed)

    with workspace(args.keep) as root:
        plan = root / "plan.json"
        plan.write_text(
            json.dumps(
                {"cases_file": str(cases_file), "backend": backend, "measured": measured, "warmup": warmup}
            ),
            encoding="utf-8",
        )
        sides = [
            prepare("BASE", args.base, root, settings.kb_dir, args.profile),
            prepare("HEAD", args.head, root, settings.kb_dir, args.profile),
        ]
        if not args.json:
            print(
                f"knowledge base {args.profile!r} (a copy per side), backend {backend}, "
                f"{len(measured)} cases (seed {args.seed}), {len(warmup)} warm-up asks per side",
                flush=True,
            )
        base, head = race(sides, plan, args.profile)

    summary = summarize(base, head)
    if args.json:
        context = {"profile": args.profile, "backend": backend, "seed": args.seed, "warmup": len(warmup)}
        print(json.dumps({**context, **summary}, indent=2))
    else:
        print(format_summary(summary))


if __name__ == "__main__":
    main()
