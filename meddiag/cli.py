"""`meddiag` console script: build, stats, retrieve, ask, eval, app.

Errors a user can cause or fix (bad input, no knowledge base, a store that is down) are
printed as one clear sentence with exit code 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from meddiag.errors import MedDiagError
from meddiag.schema import BACKENDS

PROTOCOLS = ("leave-publication-out", "full")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="meddiag", description="MedDiag Explorer command line.")
    sub = p.add_subparsers(dest="command", required=True)

    b = sub.add_parser(
        "build", help="Build the knowledge base (HPO + MONDO) into Milvus and the graph store."
    )
    b.add_argument(
        "--profile",
        choices=["demo", "full"],
        default=None,
        help="demo: 400 connected diseases; full: every HPO-annotated disease (default: MEDDIAG_PROFILE).",
    )
    b.add_argument("--force", action="store_true", help="Rebuild even when nothing changed.")

    s = sub.add_parser("stats", help="Print the knowledge-base manifest.")
    s.add_argument("--json", action="store_true", help="Print JSON instead of text.")

    r = sub.add_parser("retrieve", help="One backend retrieval: raw context or parsed evidence.")
    r.add_argument("question", help="The question, in free text.")
    r.add_argument(
        "--backend", choices=BACKENDS, default=None, help="Graph RAG backend (default: MEDDIAG_BACKEND)."
    )
    r.add_argument(
        "--format",
        choices=["raw", "json"],
        default="raw",
        help="The backend's raw context, or the parsed evidence.",
    )

    a = sub.add_parser("ask", help="Ask a diagnostic question through the dual-channel engine.")
    a.add_argument("question", help="The question, in free text.")
    a.add_argument(
        "--backend", choices=BACKENDS, default=None, help="Graph RAG backend (default: MEDDIAG_BACKEND)."
    )
    a.add_argument(
        "--channels", choices=["both", "semantic", "relational"], default="both", help="Channels to run."
    )
    a.add_argument("--max-hops", type=int, default=None, help="Hops per channel (default: MEDDIAG_MAX_HOPS).")
    a.add_argument(
        "--exclude-source",
        action="append",
        default=[],
        help="Leave out a source (e.g. PMID:123; repeatable).",
    )
    a.add_argument("--json", action="store_true", help="Print the whole answer as JSON.")

    e = sub.add_parser("eval", help="Evaluate on GA4GH phenopackets (.json, folder or .jsonl).")
    e.add_argument("path", type=Path, help="Phenopackets: a .jsonl, one .json, or a folder of .json files.")
    e.add_argument(
        "--limit", type=_positive_int, default=None, metavar="N", help="Seeded random sample of N cases."
    )
    e.add_argument("--seed", type=int, default=0, help="Seed of the --limit sample.")
    e.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default="leave-publication-out",
        help="Hide the facts resting only on each case's own publications (default), or show everything.",
    )
    e.add_argument(
        "--backend", choices=BACKENDS, default=None, help="Graph RAG backend (default: MEDDIAG_BACKEND)."
    )
    e.add_argument(
        "--channels", choices=["both", "semantic", "relational"], default="both", help="Channels to run."
    )
    e.add_argument("--baseline", action="store_true", help="Run the Resnik baseline alongside.")
    e.add_argument(
        "--genes",
        action="store_true",
        help="Name each case's variant genes in its question (a scenario beside the phenotype-only benchmark).",
    )
    e.add_argument(
        "--input",
        choices=["text", "structured"],
        default="text",
        help="Ask each case as the clinician-style vignette (default) or as the patient form's fields.",
    )
    e.add_argument(
        "--out",
        type=Path,
        default=None,
        help="Folder for per-case JSONL, summary and report; run again to resume an interrupted run "
        "(cases answered with other options, knowledge base or code are answered anew).",
    )
    e.add_argument(
        "--workers",
        type=int,
        default=2,
        choices=range(1, 17),
        metavar="{1..16}",
        help="Cases answered at once (in worker processes from 100 cases up).",
    )
    e.add_argument("--json", action="store_true", help="Print the summary as JSON.")

    sub.add_parser("app", help="Start the Streamlit app.")
    return p


def _print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _run(args: argparse.Namespace) -> int:
    from meddiag.service import MedDiagService

    service = MedDiagService()
    if args.command == "build":
        manifest = service.build(profile=args.profile, force=args.force)
        print(f"Knowledge base ready ({manifest.profile}) in {service.settings.kb_dir}", file=sys.stderr)
        return 0
    if args.command == "stats":
        from meddiag.knowledge.build import kb_stats

        stats = kb_stats(service.settings)
        if args.json:
            _print_json(stats)
        else:
            for key, value in stats.items():
                print(f"{key}: {json.dumps(value, ensure_ascii=False)}")
        return 0
    if args.command == "retrieve":
        raw, parsed = service.retrieve(args.question, args.backend or service.settings.backend)
        if args.format == "raw":
            print(raw.text)
        else:
            _print_json(parsed.model_dump(mode="json"))
        return 0
    if args.command == "ask":
        from meddiag.engine.inputs import source_ids
        from meddiag.export import ask_result_json, ask_result_markdown

        result = service.ask(
            args.question,
            backend=args.backend,
            channels=args.channels,
            max_hops=args.max_hops,
            exclude_sources=source_ids(" ".join(args.exclude_source)),
        )
        print(ask_result_json(result) if args.json else ask_result_markdown(result))
        return 0
    if args.command == "eval":
        report = service.evaluate(
            args.path,
            limit=args.limit,
            seed=args.seed,
            protocol=args.protocol,
            backend=args.backend,
            channels=args.channels,
            baseline=args.baseline,
            out_dir=args.out,
            workers=args.workers,
            genes=args.genes,
            input_form=args.input,
            progress=None,
        )
        if args.json:
            _print_json(report.summary)
        else:
            print(report.markdown)
        return 0
    if args.command == "app":
        app = Path(__file__).resolve().parent.parent / "app.py"
        return subprocess.call([sys.executable, "-m", "streamlit", "run", str(app)])
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except MedDiagError as err:
        print(f"meddiag: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"meddiag: interrupted; {_after_interrupt(args)}", file=sys.stderr)
        return 130


def _after_interrupt(args: argparse.Namespace) -> str:
    """What an interrupted command left behind, so the user knows whether to start over."""
    if args.command == "build":
        return "the knowledge base in use was not changed (a build is swapped in only when complete)."
    if args.command == "eval":
        if args.out is None:
            return "no results were kept; pass --out DIR to keep answered cases and resume."
        return f"the cases answered so far are in {args.out / 'cases.jsonl'}; run the same command to resume."
    return "nothing was changed."


if __name__ == "__main__":
    raise SystemExit(main())
