"""Phrase-linking quality and latency on real patient vignettes.

Each dev case becomes the clinician-style vignette the evaluation asks (labels, age, sex,
"no …" for excluded findings); the linker's findings are compared with the case's HPO
annotations:

- exact precision / recall of (HPO id, excluded) pairs;
- ontology-tolerant recall: a gold finding counts as found when a linked finding of the same
  polarity is the term itself, an ancestor or a descendant of it;
- negation accuracy: among gold ids found, the share linked with the right polarity;
- p50 / p95 / mean time per question (warm; the linker is built once, its time is printed).

By default the linker is the phrase index alone; `--fallback` reads the vignettes as the
product does, with the configured knowledge base's embedding fallback and laboratory values
(`MEDDIAG_HOME`, `MEDDIAG_PROFILE`; build the knowledge base first).

Reads GA4GH phenopackets (never copied into the project); prints numbers, asserts nothing.

    python bench/linking.py --limit 200
    python bench/linking.py --limit 50 --cases path/to/phenopackets.jsonl
    MEDDIAG_PROFILE=full python bench/linking.py --limit 0 --fallback   # every case, as the product reads them
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from meddiag.diagnosis.linking import PhraseLinker
from meddiag.eval.phenopackets import Case, load_cases
from meddiag.eval.questions import vignette
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.sources import packaged_sources

DEFAULT_CASES = Path(__file__).resolve().parents[2] / "shared" / "data" / "phenopackets-dev.jsonl"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def gold_pairs(case: Case, onto: Ontology) -> set[tuple[str, bool]]:
    """The case's findings as (current HPO id, excluded); obsolete ids resolve to their replacement."""
    pairs = set()
    for features, excluded in ((case.observed, False), (case.excluded, True)):
        for f in features:
            term = onto.resolve(f.id) or f.id
            pairs.add((term, excluded))
    return pairs


def related(a: str, b: str, onto: Ontology) -> bool:
    if a == b:
        return True
    if a not in onto.terms or b not in onto.terms:
        return False
    return a in onto.ancestors(b) or b in onto.ancestors(a)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--limit", type=int, default=200, help="number of dev vignettes (0: all)")
    parser.add_argument(
        "--fallback", action="store_true", help="the knowledge base's linker, embedding fallback included"
    )
    args = parser.parse_args()

    t0 = time.perf_counter()
    onto = Ontology.from_obo(packaged_sources().hp_obo)
    t_onto = time.perf_counter() - t0
    t0 = time.perf_counter()
    service = None
    if args.fallback:
        from meddiag.service import MedDiagService

        service = MedDiagService()
        parse = service.engine().reasoner.parse_question
    else:
        parse = PhraseLinker(onto).parse_question
    t_linker = time.perf_counter() - t0
    cases = load_cases(args.cases, limit=args.limit or None).cases
    print(f"ontology {t_onto:.2f} s, linker {t_linker:.2f} s, {len(cases)} cases")

    tp = n_linked = n_gold = tolerant = found = right_polarity = 0
    latencies: list[float] = []
    parse(vignette(cases[0]))  # warm caches
    for case in cases:
        question = vignette(case)
        t0 = time.perf_counter()
        parsed = parse(question)
        latencies.append(time.perf_counter() - t0)
        gold = gold_pairs(case, onto)
        linked = {(f.hpo_id, f.excluded) for f in parsed.findings}
        tp += len(gold & linked)
        n_linked += len(linked)
        n_gold += len(gold)
        by_id = {i: e for i, e in linked}
        for term, excluded in gold:
            if any(e == excluded and related(term, i, onto) for i, e in linked):
                tolerant += 1
            if term in by_id:
                found += 1
                right_polarity += by_id[term] == excluded

    def share(a: int, b: int) -> str:
        return f"{a / b:.3f}" if b else "n/a"

    print(f"exact precision        {share(tp, n_linked)}  ({tp}/{n_linked})")
    print(f"exact recall           {share(tp, n_gold)}  ({tp}/{n_gold})")
    print(f"ontology-tolerant rec. {share(tolerant, n_gold)}  ({tolerant}/{n_gold})")
    print(f"negation accuracy      {share(right_polarity, found)}  ({right_polarity}/{found})")
    ms = [x * 1000 for x in latencies]
    print(
        f"latency per question   p50 {percentile(ms, 50):.1f} ms, p95 {percentile(ms, 95):.1f} ms, mean {statistics.mean(ms):.1f} ms"
    )
    if service is not None:
        service.close()


if __name__ == "__main__":
    main()
