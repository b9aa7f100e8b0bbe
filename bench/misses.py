"""Where the ranker's misses lie on the development phenopackets, and what evidence could reach them.

    python bench/misses.py                 # leave-publication-out, the ranker's defaults
    python bench/misses.py --cases FILE    # another phenopacket file

For the in-knowledge-base cases, grouped as `meddiag eval` groups them (how much of the gold
disease's evidence rests only on the case's own publications), it prints top-1 and top-10,
and for the misses of each group: how far down the gold lies, whether the disease ranked
first belongs to the gold's phenotypic series (a MONDO sibling, which phenotypes alone
seldom tell apart), and how many findings the case states. It also counts the cases whose
gold disease shares no specific term with the patient: no finding meets any of the gold's
visible features (curated, or stated by its name) at or below a term of at least
`SPECIFIC_NATS` of information content, so phenotype matching alone has little to find it
by. For the groups that lose evidence it prints how many gold diseases still have a MONDO
description, the only text about a disease that no publication's removal hides. For the cases whose diagnosis the
knowledge base does not annotate, it prints how many name an OMIM entry numbered above
every entry the packaged HPO release annotates (described after that release).

Nothing is tuned here; it reads the same cached sources as `rank_accuracy.py`.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rank_accuracy import (
    DEFAULT_CASES,
    Data,
    Prepared,
    _cached,
    _mondo_texts,
    case_scores,
    gold_rank,
    hidden_share_group,
    load_data,
    load_dev_cases,
    prepare,
)

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.diagnosis.linking import PhraseLinker
from meddiag.diagnosis.name_findings import with_name_findings
from meddiag.diagnosis.ranking import DEFAULT_PARAMS
from meddiag.eval.own_facts import OWN_SHARE_GROUPS

# A shared term this specific is annotated to at most e^-4 (about 1.8 %) of the diseases.
SPECIFIC_NATS = 4.0


@dataclass(frozen=True)
class Outcome:
    """One in-KB case under leave-publication-out: the gold's rank and who ranked first."""

    group: str
    rank: int | None
    first_is_sibling: bool
    n_observed: int
    gold_has_description: bool
    gold_shared_ic: float  # the most specific term the findings share with the gold's visible facts


def _omim_number(disease_id: str) -> int | None:
    prefix, _, number = disease_id.partition(":")
    return int(number) if prefix == "OMIM" and number.isdigit() else None


def described_diseases(data: Data) -> set[str]:
    """Diseases whose linked MONDO class has a description."""
    texts = _cached("mondo-texts", _mondo_texts)
    return {
        rel.subject
        for rel in data.relations
        if rel.predicate == "EQUIVALENT_TO" and texts.get(rel.object, ("", ""))[1].strip()
    }


def shared_ic(index: PhenotypeIndex, p: Prepared) -> float:
    """The information content of the most specific term at or above both a finding and a
    visible feature of the gold (its case's publications left out), over the gold's profiles."""
    exclude = frozenset(p.case.sources)
    hidden = set(index.hidden_relations(exclude).tolist())
    thinned = set(index.thinned_relations(exclude).tolist())
    terms = [t for f in p.case.observed if (t := index.term(f.id)) is not None]
    around = {x for t in terms for x in index.ancestor_list(t)}  # the findings and their ancestors
    best = 0.0
    for g in p.gold:
        under = index.feature_cover(g, exclude, hidden, thinned).under  # at or above a visible feature
        best = max([best, *(float(index.ic[x]) for x in around if x in under)])
    return best


def outcomes(index: PhenotypeIndex, cases: Sequence[Prepared], described: set[str]) -> list[Outcome]:
    """Each case ranked as `rank_accuracy.py` ranks it (leave-publication-out, defaults)."""
    sib = index.siblings
    out = []
    for p in cases:
        scores = case_scores(index, p.case, DEFAULT_PARAMS, lpo=True)
        ranked = gold_rank(scores, p.gold)
        first = int(np.argmax(scores))
        siblings = {int(s) for g in p.gold for s in sib.indices[sib.indptr[g] : sib.indptr[g + 1]]}
        out.append(
            Outcome(
                group=hidden_share_group(index, p),
                rank=ranked[1] if ranked else None,  # ties counted against, as everywhere
                first_is_sibling=first in siblings,
                n_observed=len(p.case.observed),
                gold_has_description=any(m in described for g in p.gold for m in index.members[g]),
                gold_shared_ic=shared_ic(index, p),
            )
        )
    return out


@dataclass(frozen=True)
class GroupSummary:
    n: int
    first: int
    top10: int
    missed_at: dict[str, int]  # "second", "3rd-10th", "below 10th" -> misses
    sibling_first: int  # misses with a MONDO sibling of the gold ranked first
    findings_hits: float | None  # median findings stated
    findings_misses: float | None
    described: int  # gold diseases with a MONDO description
    unspecific: int  # cases whose gold shares no term of SPECIFIC_NATS or more with the findings
    unspecific_first: int  # ... of them ranked first


def summarise(results: Sequence[Outcome]) -> dict[str, GroupSummary]:
    by_group: dict[str, list[Outcome]] = defaultdict(list)
    for r in results:
        by_group[r.group].append(r)
    out = {}
    for name in OWN_SHARE_GROUPS:
        rows = by_group.get(name, [])
        if not rows:
            continue
        hits = [r for r in rows if r.rank == 1]
        misses = [r for r in rows if r.rank != 1]
        where = Counter(
            "second" if r.rank == 2 else "3rd-10th" if r.rank is not None and r.rank <= 10 else "below 10th"
            for r in misses
        )
        unspecific = [r for r in rows if r.gold_shared_ic < SPECIFIC_NATS]
        out[name] = GroupSummary(
            n=len(rows),
            first=len(hits),
            top10=sum(1 for r in rows if r.rank is not None and r.rank <= 10),
            missed_at={k: where[k] for k in ("second", "3rd-10th", "below 10th")},
            sibling_first=sum(r.first_is_sibling for r in misses),
            findings_hits=statistics.median(r.n_observed for r in hits) if hits else None,
            findings_misses=statistics.median(r.n_observed for r in misses) if misses else None,
            described=sum(r.gold_has_description for r in rows),
            unspecific=len(unspecific),
            unspecific_first=sum(1 for r in unspecific if r.rank == 1),
        )
    return out


def _share(part: int, whole: int) -> str:
    return f"{part:5d} ({100 * part / whole:5.1f} %)" if whole else f"{part:5d}"


def _median(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def report(summaries: Mapping[str, GroupSummary]) -> None:
    for name, g in summaries.items():
        misses = g.n - g.first
        print(f"{name}: {g.n} cases, top-1 {_share(g.first, g.n)}, top-10 {_share(g.top10, g.n)}")
        print(
            f"  misses {misses}: "
            + ", ".join(f"gold {where} {_share(count, misses)}" for where, count in g.missed_at.items())
        )
        print(f"  first place a MONDO sibling of the gold: {_share(g.sibling_first, misses)}")
        print(
            f"  findings stated, median: hits {_median(g.findings_hits)}, misses {_median(g.findings_misses)}"
        )
        print(f"  gold with a MONDO description: {_share(g.described, g.n)}")
        specific, specific_first = g.n - g.unspecific, g.first - g.unspecific_first
        print(
            f"  gold sharing no term of {SPECIFIC_NATS:g} nats or more with the findings: "
            f"{_share(g.unspecific, g.n)}, top-1 {_share(g.unspecific_first, g.unspecific)}; "
            f"the others top-1 {_share(specific_first, specific)}"
        )


def newer_than_release(names: Mapping[str, str], cases: Sequence[Prepared]) -> tuple[int, int]:
    """(cases outside the KB, of which naming an OMIM entry numbered above every annotated one)."""
    newest = max((n for d in names if (n := _omim_number(d)) is not None), default=0)
    outside = [p for p in cases if not p.in_kb]
    later = sum(
        1 for p in outside if any((n := _omim_number(d)) is not None and n > newest for d in p.case.diseases)
    )
    return len(outside), later


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    args = ap.parse_args(argv)
    data = load_data()
    relations = with_name_findings(PhraseLinker(data.ontology), data.relations, data.names)
    index = PhenotypeIndex(data.ontology, relations, data.names, match_cache_size=30000)
    prepared = prepare(index, load_dev_cases(args.cases))
    in_kb = [p for p in prepared if p.in_kb]
    print(f"{len(in_kb)} in-KB cases of {len(prepared)}, leave-publication-out, the ranker's defaults")
    report(summarise(outcomes(index, in_kb, described_diseases(data))))
    outside, later = newer_than_release(data.names, prepared)
    print(
        f"outside the KB: {outside} cases, naming an OMIM entry newer than the release: {_share(later, outside)}"
    )


if __name__ == "__main__":
    main()
