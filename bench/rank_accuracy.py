"""Diagnostic accuracy of the phenotype ranker on real published cases (structured input, no engine).

    python bench/rank_accuracy.py                       # both protocols, ranker and baseline
    python bench/rank_accuracy.py --protocol lpo --limit 1000
    python bench/rank_accuracy.py --folds 5             # cross-validated parameter search
    python bench/rank_accuracy.py --folds 5 --train-cases 0   # ... on every training case (slower)
    python bench/rank_accuracy.py --set checked_weight=0 --protocol lpo --no-baseline   # ablation
    python bench/rank_accuracy.py --sweep opposite_weight 0 0.4 0.8   # one parameter, with fold picks
    python bench/rank_accuracy.py --sweep symmetric 0.26 0.3 0.34 --set onset_weight=0   # around other settings
    python bench/rank_accuracy.py --limit 2000 --text-weights 0 0.1 0.2   # fuse MONDO text scores
    python bench/rank_accuracy.py --gene-weights 0 1 10   # the case's genes named (another scenario)
    python bench/rank_accuracy.py --by-hidden   # accuracy by how much of the gold disease LPO hides
    python bench/rank_accuracy.py --vignettes --protocol lpo   # findings read from the vignettes
    python bench/rank_accuracy.py --no-name-findings   # without what disease names state (ablation)

Protocols: ``full`` (every fact visible) and ``lpo`` (leave-publication-out: facts resting
only on the case's own publications are hidden while it is answered). Figures are printed
for all usable cases and for cases whose diagnosis the knowledge base annotates.

Parsed sources and cases are cached as pickles under the system temp directory
(``meddiag-bench``), so a second run starts in seconds; they are keyed by a digest of the
``meddiag`` sources, so an edit to the code that parses or links them builds them again.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import numpy as np

from meddiag.diagnosis.fusion import fuse_scores
from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.diagnosis.linking import PhraseLinker
from meddiag.diagnosis.name_findings import with_name_findings
from meddiag.diagnosis.ranking import (
    BASELINE_PARAMS,
    DEFAULT_PARAMS,
    RankParams,
    adjust_for_sex,
    rank_diseases,
    score_all,
    top_indices,
)
from meddiag.diagnosis.text_scoring import score_passages
from meddiag.eval.baseline import baseline_index
from meddiag.eval.metrics import accuracy, publication_figures
from meddiag.eval.own_facts import OWN_SHARE_GROUPS, own_share_group
from meddiag.eval.phenopackets import Case, Feature, load_cases
from meddiag.eval.questions import gold_match, vignette
from meddiag.eval.source_digest import meddiag_digest
from meddiag.knowledge.annotations import parse_gene_diseases, parse_hpoa
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Relation
from meddiag.knowledge.mondo import link_mondo, parse_mondo
from meddiag.knowledge.phenotype_relations import phenotype_relations
from meddiag.knowledge.relations import gene_relations, inheritance_relations, onset_relations
from meddiag.knowledge.sources import packaged_sources
from meddiag.schema import TextEvidence

DEFAULT_CASES = Path(__file__).resolve().parents[2] / "shared" / "data" / "phenopackets-dev.jsonl"
CACHE = Path(tempfile.gettempdir()) / "meddiag-bench"
T = TypeVar("T")


@dataclass
class Data:
    ontology: Ontology
    relations: list[Relation]
    names: dict[str, str]


def _cached(name: str, build: Callable[[], T]) -> T:
    """`build()`, pickled under `name` and the digest of the `meddiag` sources: what the
    knowledge code parses and links (MONDO readings, relations) changes with that code, so
    a pickle from other code is built again, never read, and the older one is removed."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{name}-{meddiag_digest()}.pkl"
    if path.exists():
        with path.open("rb") as fh:
            return pickle.load(fh)
    value = build()
    for older in CACHE.glob(f"{name}-*.pkl"):
        older.unlink(missing_ok=True)
    with path.open("wb") as fh:
        pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return value


def _equivalences(names: dict[str, str]) -> list[Relation]:
    """EQUIVALENT_TO links disease -> MONDO class, by MONDO's label matching (knowledge/mondo.py)."""
    src = packaged_sources()
    links = link_mondo(parse_mondo(src.mondo_json_zst), names)
    return [
        Relation(subject=d, predicate="EQUIVALENT_TO", object=m, sources=["MONDO"])
        for d, m in links.by_disease.items()
    ]


def _mondo_parents(names: dict[str, str]) -> list[Relation]:
    """IS_A links disease -> its MONDO class's parents (phenotypic series, groupings), as the KB builds them."""
    mondo = parse_mondo(packaged_sources().mondo_json_zst)
    links = link_mondo(mondo, names)
    return [
        Relation(subject=d, predicate="IS_A", object=parent, sources=["MONDO"])
        for d, m in links.by_disease.items()
        for parent in mondo[m].parents
    ]


def _load_data() -> tuple[Ontology, list[Relation], dict[str, str]]:
    src = packaged_sources()
    ontology = Ontology.from_obo(src.hp_obo)
    ann = parse_hpoa(src.phenotype_hpoa)
    relations = (
        phenotype_relations(ann.rows, ontology)
        + inheritance_relations(ann.rows, ontology)
        + onset_relations(ann.rows, ontology)
        + gene_relations(parse_gene_diseases(src.genes_to_phenotype))
        + _equivalences(ann.diseases)
    )
    return ontology, relations, ann.diseases


def load_data() -> Data:
    # plain tuples in the pickle, so any script importing this module can read the cache
    ontology, relations, names = _cached(f"kb-v6-{packaged_sources().hpo_version}", _load_data)
    parents = _cached(f"mondo-isa-v2-{packaged_sources().hpo_version}", lambda: _mondo_parents(names))
    return Data(ontology, relations + parents, names)


def load_dev_cases(path: Path) -> list[Case]:
    key = hashlib.sha1(f"{path.resolve()}:{path.stat().st_mtime_ns}".encode()).hexdigest()[:12]
    result = _cached(f"cases-{key}", lambda: load_cases(path))
    print(f"cases: {len(result.cases)} usable, skipped {dict(result.skipped)}", file=sys.stderr)
    return result.cases


@dataclass
class Prepared:
    """A case reduced to what ranking needs, with its gold profile indices."""

    case: Case
    gold: list[int]
    in_kb: bool


def prepare(index: PhenotypeIndex, cases: Sequence[Case]) -> list[Prepared]:
    out = []
    for c in cases:
        g = gold_match(c, index.profile_index, index.equivalents)
        gold = dict.fromkeys(index.profile_of[i] for i in g.ids if i in index.profile_of)
        out.append(Prepared(c, list(gold), g.in_kb))
    return out


def as_read_from_vignettes(linker: PhraseLinker, cases: Sequence[Prepared]) -> list[Prepared]:
    """The cases with the findings (and onset) the linker reads from their vignettes in place
    of the curated ones: what free text costs the ranker (the phrase index only, no embedding
    fallback). Prints how many cases keep exactly their curated findings."""
    out: list[Prepared] = []
    for p in cases:
        parsed = linker.parse_question(vignette(p.case))
        found = parsed.findings
        observed = [Feature(id=f.hpo_id, label=f.label) for f in found if not f.excluded]
        excluded = [Feature(id=f.hpo_id, label=f.label) for f in found if f.excluded]
        update = {"observed": observed, "excluded": excluded, "onset": parsed.onset}
        out.append(Prepared(p.case.model_copy(update=update), p.gold, p.in_kb))
    same = [
        {f.id for f in a.case.observed} == {f.id for f in b.case.observed}
        and {f.id for f in a.case.excluded} == {f.id for f in b.case.excluded}
        for a, b in zip(out, cases, strict=True)
    ]
    in_kb = [s for s, p in zip(same, cases, strict=True) if p.in_kb]
    print(
        f"vignettes read as their curated findings: {sum(same)} of {len(same)}, "
        f"in-KB {sum(in_kb)} of {len(in_kb)}",
        file=sys.stderr,
    )
    return out


Ranks = list[tuple[int, int] | None]  # per case: (optimistic, pessimistic) rank of the gold disease


def gold_rank(scores: np.ndarray, gold: list[int]) -> tuple[int, int] | None:
    """1-based rank of the best-placed gold profile, with ties broken for us and against us.

    Plain Resnik scores tie often (disease series curated with identical features), so
    the two differ a lot for the baseline; tuning uses the pessimistic rank so that it
    never profits from ties.
    """
    if not gold:
        return None
    best = max(scores[g] for g in gold)
    if best == -np.inf:
        return None
    others = np.delete(scores, gold)  # equivalent gold profiles pooled the same evidence: not rivals
    above = int((others > best).sum())
    return above + 1, above + 1 + int((others == best).sum())


def case_scores(index: PhenotypeIndex, case: Case, params: RankParams, lpo: bool) -> np.ndarray:
    """Every profile's score for one case, its own publications left out under `lpo`."""
    sources = case.sources if lpo else frozenset()
    scores = score_all(
        index,
        [f.id for f in case.observed],
        [f.id for f in case.excluded],
        exclude_sources=sources,
        params=params,
        onset=case.onset,
    )
    adjust_for_sex(index, scores, case.sex, sources, params)
    return scores


def ranks_for(index: PhenotypeIndex, cases: Sequence[Prepared], params: RankParams, lpo: bool) -> Ranks:
    ranks: Ranks = []
    for p in cases:
        if not p.case.observed:  # a vignette whose findings the linker could not read: not ranked
            ranks.append(None)
            continue
        ranks.append(gold_rank(case_scores(index, p.case, params, lpo), p.gold))
    return ranks


def optimistic(ranks: Ranks) -> list[int | None]:
    return [r[0] if r else None for r in ranks]


def pessimistic(ranks: Ranks) -> list[int | None]:
    return [r[1] if r else None for r in ranks]


def show(label: str, ranks: Ranks, cases: Sequence[Prepared]) -> None:
    kb = [r for r, p in zip(ranks, cases, strict=True) if p.in_kb]
    print(f"{label:<30} all   ties-against {accuracy(pessimistic(ranks)).line()}")
    print(f"{'':<30} in-KB ties-against {accuracy(pessimistic(kb)).line()}")
    print(f"{'':<30} in-KB ties-for     {accuracy(optimistic(kb)).line()}")
    # How far another set of published cases could move the in-KB figures (`meddiag eval`'s
    # `ci95_in_kb`), and the figures with each publication weighing one.
    figures = publication_figures(pessimistic(kb), [p.case.publication for p in cases if p.in_kb])
    spans = "  ".join(
        f"top-{k} {100 * figures.ci95[f'top{k}'][0]:.1f}-{100 * figures.ci95[f'top{k}'][1]:.1f}%"
        for k in (1, 10)
    )
    print(f"{'':<30} in-KB 95 % interval, resampling publications: {spans}")
    per = figures.per_publication
    print(
        f"{'':<30} in-KB, each publication weighing one: top-1 {100 * per['top1']:.1f}%  top-10 {100 * per['top10']:.1f}%"
    )


def _gold_facts(index: PhenotypeIndex, p: Prepared) -> np.ndarray:
    """The gold profiles' curated facts (relation ids), as `meddiag eval` counts them: what a
    disease's name states is no curated fact."""
    rels = np.unique(np.concatenate([index.relations_of_profile(g) for g in p.gold]))
    return rels[~index.rel_from_name[rels]]


def hidden_share_group(index: PhenotypeIndex, p: Prepared) -> str:
    """How much of the gold profile's evidence the case's own publications carry alone
    (the groups `meddiag eval` reports as ``by_own_publication_share``)."""
    rels = _gold_facts(index, p)
    return own_share_group(len(np.intersect1d(rels, index.hidden_relations(p.case.sources))), len(rels))


def gold_thinned(index: PhenotypeIndex, p: Prepared) -> int:
    """How many of the gold profile's visible facts lose their frequency to the case's own
    publications (`PhenotypeIndex.thinned_relations`): the groups count hidden facts only."""
    return len(np.intersect1d(_gold_facts(index, p), index.thinned_relations(p.case.sources)))


def by_hidden_share(index: PhenotypeIndex, cases: Sequence[Prepared], params: RankParams) -> None:
    """In-KB accuracy under both protocols, grouped by how much of the gold profile
    leave-publication-out hides: where the honest protocol's cost lies. Within each group,
    the cases whose gold also loses frequencies are counted apart."""
    in_kb = [p for p in cases if p.in_kb]
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(in_kb):
        groups.setdefault(hidden_share_group(index, p), []).append(i)
    lpo = pessimistic(ranks_for(index, in_kb, params, lpo=True))
    full = pessimistic(ranks_for(index, in_kb, params, lpo=False))
    for name in OWN_SHARE_GROUPS:
        rows = groups.get(name, [])
        thinned = [i for i in rows if gold_thinned(index, in_kb[i])]
        print(f"{name:<20} lpo  {accuracy([lpo[i] for i in rows]).line()}")
        print(f"{'':<20} full {accuracy([full[i] for i in rows]).line()}")
        if thinned:  # never in "all": a fact that stays visible is not among the hidden ones
            line = accuracy([lpo[i] for i in thinned]).line()
            print(f"{'':<20} of them, gold also losing frequencies: lpo  {line}")


# ------------------------------------------------------------------ cross-validation

# Around the tuned defaults; `noise`, `excluded_weight` and `symmetric_checked` were searched
# before (0, 0 and True in every fold) and are no longer varied.
GRID: dict[str, list[float | bool]] = {
    "freq_weight": [0.1, 0.25],
    "exact_weight": [0.1, 0.2, 0.3],
    "exact_symmetric": [0.0, 0.2, 0.4],
    "symmetric": [0.2, 0.3, 0.4],
    "symmetric_freq_power": [0.25, 0.5, 1.0],
    "checked_in_mean": [False, True],
    "checked_weight": [0.3, 0.45, 0.6, 0.8],
    "sibling_prior": [2.0, 4.0, 6.0],
    "no_gene_penalty": [0.0, 0.25, 0.5, 1.0],
    "onset_weight": [0.0, 0.05, 0.1, 0.15],
    "opposite_weight": [0.0, 0.4, 0.8, 1.2, 1.6],
}


def objective(ranks: Ranks) -> float:
    acc = accuracy(pessimistic(ranks))
    return acc.top[1] + acc.top[10] + acc.mrr


def cross_validate(
    index: PhenotypeIndex, cases: list[Prepared], folds: int, seed: int, train_cases: int = 400
) -> None:
    """Coordinate search on the training folds; report held-out metrics of the chosen parameters.

    Folds are split by publication so that no paper's patients sit on both sides. Each fold
    searches a seeded sample of `train_cases` of its training cases (0: all of them).
    """
    in_kb = [p for p in cases if p.in_kb]
    fold_of = publication_folds(in_kb, folds, seed)
    held_ranks: Ranks = []
    held_cases: list[Prepared] = []
    for k in range(folds):
        train = [p for p in in_kb if fold_of[p.case.publication] != k]
        test = [p for p in in_kb if fold_of[p.case.publication] == k]
        n_train = len(train) if train_cases <= 0 else min(len(train), train_cases)
        sample = random.Random(seed + k).sample(train, n_train)
        params = coordinate_search(index, sample)
        ranks = ranks_for(index, test, params, lpo=True)
        print(f"fold {k}: {params}", file=sys.stderr)
        show(f"  held-out fold {k}", ranks, test)
        held_ranks += ranks
        held_cases += test
    show(f"held-out, {folds} folds (lpo)", held_ranks, held_cases)


def publication_folds(cases: Sequence[Prepared], folds: int, seed: int) -> dict[str, int]:
    """Publication -> fold, so that no paper's patients sit on both sides of a split."""
    pubs = sorted({p.case.publication for p in cases})
    random.Random(seed).shuffle(pubs)
    return {pub: i % folds for i, pub in enumerate(pubs)}


def sweep(
    index: PhenotypeIndex,
    cases: list[Prepared],
    name: str,
    values: Sequence[float],
    folds: int,
    seed: int,
    base: RankParams = DEFAULT_PARAMS,
) -> None:
    """One parameter, the others at `base` (the defaults, unless `--set` moves some): each
    value's in-KB figures on every case (leave-publication-out), then the value each fold's
    training cases pick and the held-out figures of those picks. Ranks are computed once per
    value, so this costs one evaluation per value rather than one per value and fold."""
    in_kb = [p for p in cases if p.in_kb]
    by_value = {v: ranks_for(index, in_kb, base.with_(**{name: v}), lpo=True) for v in values}
    for v, ranks in by_value.items():
        print(f"{name}={v:<8g} {accuracy(pessimistic(ranks)).line()}")
    folds = max(folds, 2)
    fold_of = publication_folds(in_kb, folds, seed)
    picks: list[float] = []
    held: Ranks = [None] * len(in_kb)
    for k in range(folds):
        train = [i for i, p in enumerate(in_kb) if fold_of[p.case.publication] != k]
        pick = max(values, key=lambda v: objective([by_value[v][i] for i in train]))
        picks.append(pick)
        for i, p in enumerate(in_kb):
            if fold_of[p.case.publication] == k:
                held[i] = by_value[pick][i]
    print(f"picked per fold: {', '.join(f'{v:g}' for v in picks)}")
    print(f"held-out, {folds} folds by publication  {accuracy(pessimistic(held)).line()}")


def coordinate_search(index: PhenotypeIndex, cases: list[Prepared], rounds: int = 1) -> RankParams:
    params = DEFAULT_PARAMS
    best = objective(ranks_for(index, cases, params, lpo=True))
    for _ in range(rounds):
        changed = False
        for name, values in GRID.items():
            for v in values:
                if getattr(params, name) == v:
                    continue
                trial = params.with_(**{name: v})
                value = objective(ranks_for(index, cases, trial, lpo=True))
                print(f"    {name}={v}: {value:.4f} (best {best:.4f})", file=sys.stderr, flush=True)
                if value > best + 1e-4:
                    best, params, changed = value, trial, True
        if not changed:
            break
    return params


# ------------------------------------------------------------------ named genes


def gene_scenario(index: PhenotypeIndex, cases: Sequence[Prepared], weights: Sequence[float]) -> None:
    """The differential when the question also names the case's variant genes (leave-publication-out).

    Not the phenotype-only benchmark: the scenario of a clinician who already has a molecular
    finding. Each weight is `RankParams.gene_weight`, added to the diseases of the named genes.
    """
    diseases_of: dict[str, set[str]] = {}
    for pair in parse_gene_diseases(packaged_sources().genes_to_phenotype):
        diseases_of.setdefault(pair.symbol.upper(), set()).add(pair.disease_id)
    results: dict[float, Ranks] = {w: [] for w in weights}
    for p in cases:
        c = p.case
        named = {d: c.genes for g in c.genes for d in diseases_of.get(g.upper(), ())}
        for w in weights:
            ranked = rank_diseases(
                index,
                [f.id for f in c.observed],
                [f.id for f in c.excluded],
                sex=c.sex,
                onset=c.onset,
                exclude_sources=c.sources,
                genes=named,
                top_k=10,
                params=DEFAULT_PARAMS.with_(gene_weight=w),
            )
            ids = [r.id for r in ranked]
            gold = {index.profiles[g] for g in p.gold}
            hit = next((k for k, d in enumerate(ids, 1) if d in gold), None)
            results[w].append((hit, hit) if hit else None)
    for w in weights:
        show(f"genes named, gene_weight {w:g}", results[w], cases)


# ------------------------------------------------------------------ text fusion


def _mondo_texts() -> dict[str, tuple[str, str]]:
    return {m.id: (m.label, m.description) for m in parse_mondo(packaged_sources().mondo_json_zst).values()}


def text_fusion(
    index: PhenotypeIndex, data: Data, cases: Sequence[Prepared], weights: Sequence[float]
) -> None:
    """Re-rank the ranker's top 50 with MONDO descriptions scored against the finding labels."""
    texts = _cached("mondo-texts", _mondo_texts)
    mondo_of: dict[str, list[str]] = {}
    for rel in data.relations:
        if rel.predicate == "EQUIVALENT_TO":
            mondo_of.setdefault(rel.subject, []).append(rel.object)
    results: dict[float, Ranks] = {w: [] for w in weights}
    for p in cases:
        c = p.case
        scores = score_all(
            index,
            [f.id for f in c.observed],
            [f.id for f in c.excluded],
            exclude_sources=c.sources,
            onset=c.onset,
        )
        top = top_indices(scores, 50)
        relational = {index.profiles[i]: float(scores[i]) for i in top}
        passages: list[TextEvidence] = []
        back: dict[str, list[str]] = {}
        for i in top:
            for member in index.members[i]:
                for m in mondo_of.get(member, []):
                    label, desc = texts.get(m, ("", ""))
                    if desc:
                        passages.append(TextEvidence(ref_id=m, doc_id=f"mondo/{m}", title=label, text=desc))
                        back.setdefault(m, []).append(index.profiles[i])
        semantic = score_passages([f.label for f in c.observed], passages, equivalents=back)
        semantic = {k: v for k, v in semantic.items() if k in relational}
        gold_ids = {index.profiles[g] for g in p.gold}
        for w in weights:
            fused = fuse_scores(relational, semantic, w) if semantic else relational
            order = sorted(fused, key=lambda k: -fused[k])
            hit = next((r for r, k in enumerate(order, 1) if k in gold_ids), None)
            results[w].append((hit, hit) if hit else gold_rank(scores, p.gold))
    for w in weights:
        show(f"ranker + MONDO text, weight {w}", results[w], cases)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--protocol", choices=["full", "lpo", "both"], default="both")
    ap.add_argument("--limit", type=int, default=None, help="use a random sample of this many cases")
    ap.add_argument("--folds", type=int, default=0, help="cross-validated parameter search")
    ap.add_argument(
        "--train-cases", type=int, default=400, help="training cases each fold searches on (0: all)"
    )
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--no-pool", action="store_true", help="do not pool equivalent diseases' evidence")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument(
        "--by-hidden",
        action="store_true",
        help="in-KB accuracy grouped by how much of the gold disease leave-publication-out hides",
    )
    ap.add_argument(
        "--sweep",
        nargs="+",
        metavar=("NAME", "VALUE"),
        help="one parameter over these values, with the value each fold picks (--folds, default 5)",
    )
    ap.add_argument(
        "--set",
        nargs="*",
        action="extend",  # `--set a=1 --set b=2` keeps both
        default=[],
        help="override parameters, e.g. freq_weight=0.5 symmetric=0.3",
    )
    ap.add_argument(
        "--text-weights", nargs="*", type=float, default=[], help="measure fusion with MONDO text"
    )
    ap.add_argument(
        "--gene-weights", nargs="*", type=float, default=[], help="name the case's genes (another scenario)"
    )
    ap.add_argument(
        "--vignettes",
        action="store_true",
        help="rank the findings the linker reads from each case's vignette, not the curated ones",
    )
    ap.add_argument(
        "--no-name-findings",
        action="store_true",
        help="leave out the findings disease names state (the engine's index holds them)",
    )
    return ap


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)

    t0 = time.perf_counter()
    data = load_data()
    cases = load_dev_cases(args.cases)
    if args.limit:
        cases = random.Random(args.seed).sample(cases, min(args.limit, len(cases)))
    linker = PhraseLinker(data.ontology)
    # The ranker's relations as the engine's index holds them; the baseline keeps plain HPO.
    relations = (
        data.relations if args.no_name_findings else with_name_findings(linker, data.relations, data.names)
    )
    t1 = time.perf_counter()
    index = PhenotypeIndex(
        data.ontology, relations, data.names, pool_equivalents=not args.no_pool, match_cache_size=30000
    )
    t2 = time.perf_counter()
    print(
        f"loaded in {t1 - t0:.1f}s; index in {t2 - t1:.1f}s: {len(index.profiles)} candidate profiles, "
        f"{len(index.rel_term)} phenotype relations",
        file=sys.stderr,
    )
    prepared = prepare(index, cases)
    print(f"in-KB cases: {sum(p.in_kb for p in prepared)} of {len(prepared)}", file=sys.stderr)
    if args.vignettes:
        prepared = as_read_from_vignettes(linker, prepared)

    params = DEFAULT_PARAMS
    for item in args.set:
        name, _, raw = item.partition("=")
        current = getattr(params, name)
        value: float | bool = raw.lower() in ("1", "true", "yes") if isinstance(current, bool) else float(raw)
        params = params.with_(**{name: value})
    if args.sweep:
        name, *raw = args.sweep
        sweep(index, prepared, name, [float(v) for v in raw], args.folds or 5, args.seed, params)
        return
    if args.folds:
        cross_validate(index, prepared, args.folds, args.seed, args.train_cases)
        return
    if args.text_weights:
        text_fusion(index, data, [p for p in prepared if p.in_kb], args.text_weights)
        return
    if args.gene_weights:
        gene_scenario(index, [p for p in prepared if p.in_kb], args.gene_weights)
        return
    if args.by_hidden:
        by_hidden_share(index, prepared, params)
        return
    protocols = ["full", "lpo"] if args.protocol == "both" else [args.protocol]
    base = None
    if not args.no_baseline:
        base = baseline_index(data.ontology, data.relations, data.names)
        base_cases = prepare(base, cases)
        if args.vignettes:  # the same findings as the ranker's, read once; only the gold indices differ
            base_cases = [replace(b, case=r.case) for b, r in zip(base_cases, prepared, strict=True)]
    for proto in protocols:
        lpo = proto == "lpo"
        if base is not None:
            t = time.perf_counter()
            show(
                f"baseline Resnik BMA [{proto}]",
                ranks_for(base, base_cases, BASELINE_PARAMS, lpo),
                base_cases,
            )
            print(f"  ({time.perf_counter() - t:.0f}s)", file=sys.stderr)
        t = time.perf_counter()
        ranks = ranks_for(index, prepared, params, lpo)
        show(f"ranker [{proto}]", ranks, prepared)
        print(f"  ({time.perf_counter() - t:.0f}s) params {params}", file=sys.stderr)


if __name__ == "__main__":
    main()
