"""Rank diseases for a patient's observed and excluded HPO findings.

Parameters are fields of `RankParams`; `DEFAULT_PARAMS` holds the tuned ones.

1. **Candidates.** Each candidate is a *profile*: an OMIM disease pooled with the ORPHA /
   DECIPHER entries the knowledge base declares equivalent (the same MONDO class). Findings
   are resolved to current HPO terms (alt and obsolete ids follow HPO's replacements). What
   a disease's name states (`name_findings`) joins its profile as weak facts that are
   matched but not counted among its features.
2. **Patient → disease.** For finding ``t`` and profile ``d``: the best, over ancestors
   ``x`` of ``t``, of ``IC(x) + freq_weight · ln f(d, x)``, where ``IC(x) = -ln P(x)`` over
   annotated diseases and ``f(d, x)`` is the highest curated frequency of ``d``'s features at
   or below ``x`` (0.5 when not stated): the log of one over the background probability plus
   the log of the disease-specific one, so a match on a rare feature the disease shows often
   weighs most, and a more specific patient term than the disease's is matched through
   their shared ancestor. A finding the profile is annotated with *exactly* adds
   ``exact_weight · IC(t)``: case reports and annotations are curated in one vocabulary, so
   the identical term is stronger evidence than an ancestor of equal information content.
   A profile whose visible features include the *opposite* of a finding (`opposites`:
   Microcephaly curated, Macrocephaly observed) and none on the finding's side loses
   ``opposite_weight`` times that feature's IC times its frequency, averaged over the
   findings: the shared ancestor would otherwise credit the two as a partial match.
3. **Examined but absent.** Published case descriptions list the absence of features
   expected for the diagnosis under consideration, so an excluded finding that a profile is
   annotated with is evidence that the disease was considered: its match joins the observed
   findings' in one mean, each excluded finding counting ``checked_weight`` of an observed
   one (``checked_in_mean``), so it weighs the same fraction of a finding however many were
   observed.
4. **Disease → patient**: the score is ``1 - symmetric`` times that mean plus ``symmetric``
   times the mean, over the profile's features, of the IC of their best shared ancestor
   with any examined finding (observed, and with ``symmetric_checked`` excluded ones too),
   plus ``exact_symmetric · IC`` for a feature examined as such. Each feature weighs its
   frequency raised to ``symmetric_freq_power``: at 1 a profile's most frequent features
   all but decide this side, at 0.5 (the tuned value) a feature seen in a fifth of the
   patients still weighs nearly half as much as an obligate one (item 40). It favours diseases
   whose characteristic features were looked at.
5. **Priors**, subtracted from the score and named under "against" with their sources: a
   profile with no visible causal gene (``ASSOCIATED_GENE``) loses ``no_gene_penalty`` —
   diagnoses are mostly molecular today, and provisional or susceptibility entries are
   rarely the answer; one whose visible curated onsets all lie outside the patient's onset
   loses ``onset_weight`` times the distance to the nearest in log months
   (`onset.onset_gap`; no visible onset, no penalty); and, for a female patient, one whose
   every visible mode of inheritance is X-linked recessive loses ``female_x_recessive``
   (carriers seldom show it; a penalty, not an exclusion).
6. **The phenotypic series** (``sibling_prior``): profiles sharing a MONDO parent class are
   siblings. Each score is shrunk toward its best sibling's with weight
   ``sibling_prior / (sibling_prior + own visible features)``, and a profile with nothing
   visible ranks just below that sibling: a disease that shows nothing must not outrank the
   one whose evidence stands in for it. The gene and onset priors apply before borrowing,
   so they cannot reorder the two either.
7. **A named gene** (``gene_weight``, only when the question names genes): a disease
   associated with a named gene gains more than any spread of phenotype scores, so those
   diseases form the differential's first tier, ordered among themselves by phenotype fit.

Available and off, since they lowered accuracy or changed nothing: ``excluded_weight``
(excluded findings as a penalty, ``-ln(1 - 0.95 f)`` each), ``negated_weight`` (curated
NOT annotations contradicting a finding), ``size_prior`` / ``publication_prior`` (log
number of features / publications), ``collapse_redundant`` (drop findings that are
ancestors of other findings) and ``noise`` (a floor on a finding's log-ratio).

Leaving sources out: facts whose every source is in `exclude_sources` are hidden at query
time; the profiles that used them are re-scored from their remaining facts (no
precomputed score or cached match row leaks them) and a profile with no fact left is not
ranked. Information content stays global — it measures how common a feature is among all
diseases, not which disease the case has. A fact's frequency is pooled over all its sources
(one annotation row may cite several publications, and the HPO relation builder averages
the rows it merges), so a visible fact citing a left-out source is scored and explained
as if no frequency had been curated (`PhenotypeIndex.thinned_relations`).

Tuned defaults: 5-fold cross-validation on the development phenopackets, folds split by
publication, leave-publication-out, one coordinate-search round per fold over
`bench/rank_accuracy.py`'s grid on all of the fold's training cases, then the folds'
median (``python bench/rank_accuracy.py --folds 5 --train-cases 0``); since item 38 the
medians of ``exact_symmetric`` and ``opposite_weight`` sit one grid step lower, which traded
top-3 and top-10 for top-1 at the same MRR, so those two defaults were kept. ``gene_weight``
(a tier) and ``female_x_recessive`` are not tuned. What each step measured, how each default
was chosen and every idea measured and not adopted are in ``bench/HISTORY.md`` ("The
ranker, item by item"), which the items cited in comments below refer to.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TypeVar

import numpy as np

from meddiag.diagnosis.index import X_RECESSIVE, FeatureCover, MatchCache, PhenotypeIndex, ProfileMatrices
from meddiag.diagnosis.onset import ONSET_CLASSES
from meddiag.errors import InputError
from meddiag.schema import DifferentialEntry, Onset, SeriesRole

_MAX_FREQ = 0.95  # an "obligate" feature may still be missed or unreported


@dataclass(frozen=True)
class RankParams:
    freq_weight: float = 0.0
    noise: float = 0.0
    symmetric: float = 0.0
    excluded_weight: float = 0.0
    checked_weight: float = 0.0
    # Excluded findings join the observed ones in one mean, each counting `checked_weight` of
    # an observed finding, instead of adding `checked_weight` x their own mean: each then
    # weighs the same fraction of a finding however many were observed (step 3).
    checked_in_mean: bool = False
    symmetric_checked: bool = False
    # Exponent of the frequencies weighting the disease -> patient mean (step 4): 1 weighs
    # each feature by its frequency, 0 weighs all alike.
    symmetric_freq_power: float = 1.0
    negated_weight: float = 0.0
    size_prior: float = 0.0
    publication_prior: float = 0.0
    collapse_redundant: bool = False
    sibling_prior: float = 0.0  # pseudo-count of borrowed facts: 0 = no borrowing from MONDO siblings
    exact_weight: float = 0.0  # bonus x IC when a profile is annotated with exactly the finding's term
    exact_symmetric: float = 0.0  # the same bonus, disease -> patient: a feature examined as such
    # Added to the score of a disease associated with a gene the question names: larger than
    # any spread of phenotype scores, so a named gene's diseases form the differential's first
    # tier, ordered among themselves by phenotype fit.
    gene_weight: float = 0.0
    # Subtracted for a female patient from a disease whose only visible mode of inheritance is
    # X-linked recessive (heterozygous carriers seldom show it): a penalty, not an exclusion.
    female_x_recessive: float = 0.0
    # Subtracted from a disease with no known causal gene (no visible ASSOCIATED_GENE fact):
    # a prior, not an exclusion (module docstring, step 5).
    no_gene_penalty: float = 0.0
    # Times IC x frequency of a visible feature opposite to an observed finding (Microcephaly
    # curated, Macrocephaly observed), averaged over the findings, subtracted (step 2).
    opposite_weight: float = 0.0
    # Times how far (log months, `onset.onset_gap`) the patient's onset lies from a disease's
    # nearest visible curated onset, subtracted from its score (module docstring, step 5).
    onset_weight: float = 0.0

    def with_(self, **changes: float | bool) -> RankParams:
        return replace(self, **changes)  # type: ignore[arg-type]


BASELINE_PARAMS = RankParams()
DEFAULT_PARAMS = RankParams(
    freq_weight=0.25,
    symmetric=0.3,
    checked_weight=0.6,
    checked_in_mean=True,
    symmetric_checked=True,
    symmetric_freq_power=0.5,
    sibling_prior=2.0,
    exact_weight=0.3,
    exact_symmetric=0.4,
    gene_weight=10.0,
    female_x_recessive=0.5,
    no_gene_penalty=1.0,
    onset_weight=0.05,
    opposite_weight=1.2,
)


@dataclass(frozen=True)
class FindingMatch:
    """Why a finding supports a disease: the disease feature it matched and how specific the match is."""

    finding: str
    finding_label: str
    disease_term: str
    disease_term_label: str
    shared_term: str
    ic: float
    frequency: float
    sources: tuple[str, ...]
    from_name: bool = False  # the disease's name states it (`name_findings`), no curated frequency

    def seen_rarely(self, threshold: float) -> bool:
        """Curated as (almost) never seen in the disease, so rather a point against it; a
        finding its name states has no frequency and is never that."""
        return not self.from_name and self.frequency < threshold


@dataclass(frozen=True)
class FindingConflict:
    """An excluded finding the disease has, or an observed finding the disease is curated not to have."""

    finding: str
    finding_label: str
    disease_term: str
    frequency: float
    # "excluded_but_expected" | "observed_but_negated" | "observed_but_opposite" | "sex" | "no_gene" | "onset"
    kind: str
    sources: tuple[str, ...]
    from_name: bool = False  # expected because the disease's name states it (no curated frequency)
    disease_term_label: str = ""

    @property
    def is_finding(self) -> bool:
        """A finding in conflict, not a reason of another kind (the patient's sex, no known gene)."""
        return self.kind in ("excluded_but_expected", "observed_but_negated", "observed_but_opposite")

    @property
    def listed(self) -> str:
        """How the conflict reads in the list of findings against a disease: the finding, or,
        for one the patient has, why it counts against ("Macrocephaly, the opposite of ...")."""
        return self.statement if self.kind == "observed_but_opposite" else self.finding_label

    @property
    def statement(self) -> str:
        """The conflict in a clinician's words."""
        if self.kind == "excluded_but_expected":
            why = "which its name states" if self.from_name else f"expected in {self.frequency:.0%}"
            return f"no {self.finding_label}, {why}"
        if self.kind == "observed_but_negated":
            return f"{self.finding_label}, curated as absent"
        if self.kind == "observed_but_opposite":
            seen = "its name states" if self.from_name else f"curated in {self.frequency:.0%}"
            return f"{self.finding_label}, the opposite of {self.disease_term_label} ({seen})"
        return self.finding_label


@dataclass(frozen=True)
class RankedDisease:
    id: str
    name: str
    score: float
    rank: int
    members: tuple[str, ...] = ()  # equivalent ids whose evidence was pooled
    for_: tuple[FindingMatch, ...] = ()
    against: tuple[FindingConflict, ...] = ()
    absent: tuple[str, ...] = field(default=())  # frequent disease features the patient lacks
    # The MONDO sibling its place comes from, and how (`schema.SeriesRole`): "scored_by" with
    # no visible curated phenotype fact of its own (what its name states may still match),
    # "shrunk_toward" with visible facts that match no finding.
    series: str = ""
    series_role: SeriesRole | None = None
    series_class: str = ""  # the smallest MONDO class the two share (`PhenotypeIndex.shared_class`)
    genes: tuple[str, ...] = ()  # genes named in the question that the disease is associated with
    # What the score owes to something other than the phenotype: a named gene's tier, the
    # sex and no-known-gene penalties. ``score - prior`` is the phenotype fit alone.
    prior: float = 0.0

    def as_entry(self) -> DifferentialEntry:
        """The wire form the synthesis shows (channel: relational)."""
        for_ = [
            f"{m.finding_label} ~ {m.disease_term_label}"
            + (" (in its name)" if m.from_name else f" ({m.frequency:.0%})" if m.frequency else "")
            for m in self.for_
        ]
        against = [c.statement for c in self.against]
        return DifferentialEntry(
            id=self.id,
            name=self.name,
            score=self.score,
            for_=for_,
            against=against,
            channels=["relational"],
            series=self.series,
            series_role=self.series_role,
            series_class=self.series_class,
        )

    @property
    def sources(self) -> tuple[str, ...]:
        out: dict[str, None] = {}
        for m in self.for_:
            out.update(dict.fromkeys(m.sources))
        for c in self.against:
            out.update(dict.fromkeys(c.sources))
        return tuple(out)


@dataclass
class _Query:
    observed: np.ndarray
    excluded: np.ndarray


def _resolve(index: PhenotypeIndex, ids: Sequence[str]) -> list[int]:
    out: list[int] = []
    for term_id in ids:
        idx = index.term(term_id)
        if idx is not None and idx not in out:
            out.append(idx)
    return out


def _query(
    index: PhenotypeIndex, observed: Sequence[str], excluded: Sequence[str], params: RankParams
) -> _Query:
    obs = _resolve(index, observed)
    if not obs:
        raise InputError("None of the findings could be matched to an HPO term, so no disease can be ranked.")
    if params.collapse_redundant and len(obs) > 1:
        covered: set[int] = set()
        for t in obs:
            covered.update(int(a) for a in index.ancestors_of(t) if a != t)
        obs = [t for t in obs if t not in covered]
    exc = [t for t in _resolve(index, excluded) if t not in obs]
    return _Query(np.asarray(obs, dtype=np.int32), np.asarray(exc, dtype=np.int32))


def _match_matrix(
    index: PhenotypeIndex, mats: ProfileMatrices, terms: np.ndarray, params: RankParams
) -> np.ndarray:
    """findings × profiles: best IC-weighted match of each finding in each profile."""
    out = np.empty((len(terms), mats.closure.shape[0]), dtype=np.float64)
    for i, t in enumerate(terms.tolist()):
        key = (t, params.freq_weight, params.exact_weight)
        out[i] = _row(index, mats, index.match_cache, key, partial(_match_row, index, mats, t, params))
    if params.noise:
        # a finding the disease does not explain is not impossible: floor its log-likelihood ratio
        out = np.logaddexp(out, params.noise)
    return out


K = TypeVar("K", bound=Hashable)


def _row(
    index: PhenotypeIndex,
    mats: ProfileMatrices,
    cache: MatchCache[K],
    key: K,
    build: Callable[[], np.ndarray],
) -> np.ndarray:
    """One finding's row over the profiles; the whole KB's rows depend only on the finding
    (and the parameters in `key`), so they are remembered across queries, while a query's
    re-scored profiles (`mats` of its own) are built afresh."""
    if mats is not index.matrices:
        return build()
    row = cache.get(key)
    if row is None:
        row = build()
        cache.put(key, row)
    return row


def _match_row(index: PhenotypeIndex, mats: ProfileMatrices, term: int, params: RankParams) -> np.ndarray:
    freq_weight = params.freq_weight
    closure = mats.closure
    row = np.zeros(closure.shape[0], dtype=np.float32)
    for x in index.ancestors_of(term).tolist():
        lo, hi = closure.indptr[x], closure.indptr[x + 1]
        if lo == hi:
            continue
        rows = closure.indices[lo:hi]
        if freq_weight:
            _max_into(row, rows, index.ic[x] + freq_weight * np.log(closure.data[lo:hi]))
        else:
            _max_into(row, rows, index.ic[x])
    if params.exact_weight:
        # the disease was curated with the very term the case names, not just a relative of it
        by_term = mats.direct_by_term
        lo, hi = by_term.indptr[term], by_term.indptr[term + 1]
        row[by_term.indices[lo:hi]] += params.exact_weight * index.ic[term]
    return row


def _max_into(row: np.ndarray, rows: np.ndarray, vals: np.ndarray | float) -> None:
    row[rows] = np.maximum(row[rows], vals)


def _scores(index: PhenotypeIndex, mats: ProfileMatrices, q: _Query, params: RankParams) -> np.ndarray:
    n_obs, n_exc = max(len(q.observed), 1), len(q.excluded)
    score = _match_matrix(index, mats, q.observed, params).mean(axis=0)
    if params.checked_weight and n_exc:
        # published cases name the absence of features expected for the diagnosis considered
        checked = _match_matrix(index, mats, q.excluded, params).mean(axis=0)
        w = params.checked_weight
        if params.checked_in_mean:
            score = (n_obs * score + w * n_exc * checked) / (n_obs + w * n_exc)
        else:
            score += w * checked
    if params.symmetric:
        examined = np.concatenate([q.observed, q.excluded]) if params.symmetric_checked else q.observed
        score = (1 - params.symmetric) * score + params.symmetric * _disease_to_patient(
            index, mats, examined, params.exact_symmetric, params.symmetric_freq_power
        )
    if params.opposite_weight:
        score = score - params.opposite_weight * _opposites(index, mats, q.observed) / n_obs
    if params.excluded_weight and len(q.excluded):
        closure = mats.closure
        penalty = np.zeros(closure.shape[0])
        for e in q.excluded.tolist():
            lo, hi = closure.indptr[e], closure.indptr[e + 1]
            # log-likelihood ratio of *not* seeing a feature the disease shows with frequency f
            penalty[closure.indices[lo:hi]] -= np.log1p(-_MAX_FREQ * closure.data[lo:hi])
        score -= params.excluded_weight * penalty / n_obs
    if params.negated_weight and mats.negated.nnz:
        neg = mats.negated
        penalty = np.zeros(neg.shape[0])
        for t in q.observed.tolist():
            lo, hi = neg.indptr[t], neg.indptr[t + 1]
            penalty[neg.indices[lo:hi]] += index.ic[t]
        score -= params.negated_weight * penalty / n_obs
    if params.publication_prior:
        score += params.publication_prior * np.log1p(mats.publications)
    if params.size_prior:
        score += params.size_prior * np.log1p(mats.n_features)
    return score


def _opposites(index: PhenotypeIndex, mats: ProfileMatrices, terms: np.ndarray) -> np.ndarray:
    """Per profile, the sum over findings of how strongly it contradicts each (`_opposite_row`)."""
    total = np.zeros(mats.closure.shape[0])
    for t in terms.tolist():
        total += _row(index, mats, index.opposite_cache, t, partial(_opposite_row, index, mats, t))
    return total


def _opposite_row(index: PhenotypeIndex, mats: ProfileMatrices, term: int) -> np.ndarray:
    """IC x frequency of the strongest visible feature opposite to the finding, per profile;
    0 for a profile that also has a feature at or below the finding's side of the pair (a
    disease curated with both Microcephaly and Macrocephaly varies, it does not contradict)."""
    closure = mats.closure
    row = np.zeros(closure.shape[0])
    for a, o in index.contradictions(term):
        lo, hi = closure.indptr[o], closure.indptr[o + 1]
        if lo == hi:
            continue
        against = np.zeros(closure.shape[0])
        against[closure.indices[lo:hi]] = index.ic[o] * closure.data[lo:hi]
        lo, hi = closure.indptr[a], closure.indptr[a + 1]
        against[closure.indices[lo:hi]] = 0.0
        np.maximum(row, against, out=row)
    return row


def _disease_to_patient(
    index: PhenotypeIndex, mats: ProfileMatrices, terms: np.ndarray, exact: float = 0.0, power: float = 1.0
) -> np.ndarray:
    """Mean over each disease's features of their best match among the findings, each feature
    weighted by its frequency raised to `power`."""
    best = np.zeros(len(index.terms))
    shared = np.unique(np.concatenate([index.ancestors_of(t) for t in terms.tolist()]))
    for x in shared[np.argsort(index.ic[shared])].tolist():  # ascending: later (rarer) wins
        best[index.descendants_of(x)] = index.ic[x]
    if exact:
        best[terms] += exact * index.ic[terms]
    weights, weight = mats.direct_powered(power)
    total = weights @ best
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(weight > 0, total / np.maximum(weight, 1e-9), 0.0)
    return out


def score_all(
    index: PhenotypeIndex,
    observed: Sequence[str],
    excluded: Sequence[str] = (),
    *,
    exclude_sources: Collection[str] = frozenset(),
    params: RankParams = DEFAULT_PARAMS,
    onset: Onset | None = None,
) -> np.ndarray:
    """One score per profile (`index.profiles` order), with facts resting only on `exclude_sources` hidden.

    `onset`, when the illness began, lowers diseases whose curated onsets lie far from it.
    Remembered per query on the index (a fresh copy is returned), since one ask ranks the
    same findings several times."""
    sources = frozenset(exclude_sources)
    key = (tuple(observed), tuple(excluded), sources, params, onset)
    scores = index.score_cache.get(key)
    if scores is None:
        scores = _score_all(index, observed, excluded, sources, params, onset)
        index.score_cache.put(key, scores)
    return scores.copy()


def _score_all(
    index: PhenotypeIndex,
    observed: Sequence[str],
    excluded: Sequence[str],
    exclude_sources: frozenset[str],
    params: RankParams,
    onset: Onset | None = None,
) -> np.ndarray:
    q = _query(index, observed, excluded, params)
    scores = _scores(index, index.matrices, q, params)
    none = np.zeros(0, np.int32)
    hidden = index.hidden_relations(exclude_sources) if exclude_sources else none
    thinned = index.thinned_relations(exclude_sources) if exclude_sources else none
    affected = index.profiles_using(np.union1d(hidden, thinned).astype(np.int32))
    n_visible = index.matrices.n_features
    if len(affected):
        sub = index.profile_matrices(affected.tolist(), hidden, thinned)
        scores[affected] = _scores(index, sub, q, params)
        # nothing curated left to compare (what its name states is no profile): not a candidate
        empty = sub.n_features == 0
        scores[affected[empty]] = -np.inf
        n_visible = n_visible.copy()
        n_visible[affected] = sub.n_features
    penalty = params.no_gene_penalty * index.without_gene(exclude_sources) if params.no_gene_penalty else None
    if onset is not None and params.onset_weight:
        late = params.onset_weight * index.onset_gaps(onset, exclude_sources)
        penalty = late if penalty is None else penalty + late
    if penalty is not None:
        # Priors (no known gene, a distant onset) before borrowing, so that a disease scored
        # through its series never overtakes the sibling it borrows from (`borrow_from_siblings`) ...
        scores = scores - penalty
    if params.sibling_prior:
        empty = ~np.isfinite(scores)
        scores = borrow_from_siblings(index, scores, n_visible, params.sibling_prior)
        if penalty is not None:
            # ... and one that shows nothing still bears its own penalty below the lender's.
            scores[empty] -= penalty[empty]
    return scores


# How far below its lender a profile with nothing visible is put: far smaller than any score
# difference that matters, yet large enough to survive the fusion's z-scores (one unit in the
# last place would not, and the differential breaks exact ties by id).
JUST_BELOW = 1e-6


def borrow_from_siblings(
    index: PhenotypeIndex, scores: np.ndarray, n_visible: np.ndarray, prior: float
) -> np.ndarray:
    """Shrink each profile's score toward its best MONDO sibling's, the more the fewer facts it shows.

    Empirical-Bayes style smoothing: a disease of a phenotypic series with few curated
    (or, when sources are left out, few visible) features is judged partly by how well
    the series fits, with weight ``prior / (prior + own visible features)``; a profile
    with nothing visible ranks just below its best-fitting sibling, at that sibling's
    final score. The series is represented by its best-fitting member: series
    members differ in a few features, so the closest one stands for what the sparse one
    would show. Sibling scores already obey the query's left-out sources, so no hidden
    fact comes back through a sibling.
    """
    sib = index.siblings
    with_sibs = np.flatnonzero(np.diff(sib.indptr) > 0)
    if len(with_sibs) == 0:
        return scores
    best = np.full(len(scores), -np.inf)
    best[with_sibs] = np.maximum.reduceat(scores[sib.indices], sib.indptr[with_sibs])
    has = np.isfinite(best)
    own = np.isfinite(scores)
    weight = prior / (prior + np.maximum(n_visible, 1e-9))
    out = scores.copy()
    mix = has & own
    out[mix] = (1 - weight[mix]) * scores[mix] + weight[mix] * best[mix]
    # Nothing of its own: scored by the best-fitting sibling, at that sibling's *final* score
    # (it is shrunk toward its own series too) and just below it — a disease that shows
    # nothing must not rank above the disease whose evidence it borrows.
    for p in np.flatnonzero(has & ~own).tolist():
        row = _siblings(index, p)
        lender = row[np.argmax(scores[row])]
        out[p] = out[lender] - JUST_BELOW
    return out


def rank_diseases(
    index: PhenotypeIndex,
    observed: Sequence[str],
    excluded: Sequence[str] = (),
    *,
    age_years: float | None = None,
    sex: str | None = None,
    onset: Onset | None = None,
    exclude_sources: frozenset[str] = frozenset(),
    candidates: Collection[str] | None = None,
    genes: Mapping[str, Sequence[str]] | None = None,
    top_k: int = 20,
    params: RankParams = DEFAULT_PARAMS,
) -> list[RankedDisease]:
    """The `top_k` best-matching diseases with the evidence for and against each.

    `genes` maps disease ids to the genes named in the question that they are associated
    with (a clinician reporting a variant): those diseases gain `params.gene_weight`.

    `sex` lowers X-linked recessive diseases for a female patient (`adjust_for_sex`) and
    `onset` diseases whose curated onsets lie far from the patient's (step 5), each named in
    the disease's `against`; `age_years` is accepted for the interface but does not change
    scores: the age at the visit bounds the onset only loosely (ranking item 8 of
    `bench/HISTORY.md`). Scores are comparable within one query only and may be negative; a
    disease is evidence only through `for_`.
    """
    del age_years
    scores = score_all(index, observed, excluded, exclude_sources=exclude_sources, params=params, onset=onset)
    # The scores borrowing left, before the sex penalty and a named gene's tier move a lender
    # away from the profiles scored just below it (`_best_sibling`).
    borrowed = scores.copy()
    against_sex = adjust_for_sex(index, scores, sex, exclude_sources, params)
    named = _gene_profiles(index, genes or {}) if params.gene_weight else {}
    if named:
        rows = np.fromiter(named, dtype=np.int64, count=len(named))
        finite = scores[np.isfinite(scores)]
        # A disease of the named gene stays in the gene's tier even with no visible fact left.
        floor = float(finite.min()) if len(finite) else 0.0
        scores[rows] = np.where(np.isfinite(scores[rows]), scores[rows], floor) + params.gene_weight
    if candidates is not None:
        allowed = np.zeros(len(scores), dtype=bool)
        for c in candidates:
            p = index.profile_of.get(c)
            if p is not None:
                allowed[p] = True
        scores = np.where(allowed, scores, -np.inf)
    order = top_indices(scores, top_k)
    without_gene = index.without_gene(exclude_sources) if params.no_gene_penalty else None
    onset_gaps = index.onset_gaps(onset, exclude_sources) if onset and params.onset_weight else None
    hidden = set(index.hidden_relations(exclude_sources).tolist()) if exclude_sources else set()
    thinned = set(index.thinned_relations(exclude_sources).tolist()) if exclude_sources else set()
    q = _query(index, observed, excluded, params)
    exclude_sources = frozenset(exclude_sources)  # a cache key below: any collection works
    ranked: list[RankedDisease] = []
    for r, p in enumerate(order.tolist()):
        disease = explain(
            index,
            p,
            float(scores[p]),
            r + 1,
            q,
            hidden,
            exclude_sources,
            thinned=thinned,
            freq_weight=params.freq_weight,
            opposite_weight=params.opposite_weight,
        )
        # A disease whose curated facts are all hidden (or never curated) is scored as its best
        # sibling (`borrow_from_siblings`) — what its name states may match, but does not
        # score — and one whose few visible facts match no finding ranks on the share it
        # borrows from the best-fitting one: name that sibling, since no curated finding of
        # its own explains its place.
        if params.sibling_prior:
            if not index.feature_cover(p, exclude_sources, hidden, thinned).curated:
                disease = _with_series(index, disease, p, _best_sibling(index, p, borrowed), "scored_by")
            elif not disease.for_:
                member = _best_fitting_sibling(index, p, borrowed)
                disease = _with_series(index, disease, p, member, "shrunk_toward")
        if p in named:
            disease = replace(disease, genes=named[p], prior=disease.prior + params.gene_weight)
        if p in against_sex:
            disease = replace(
                disease,
                against=(*disease.against, _sex_conflict(against_sex[p])),
                prior=disease.prior - params.female_x_recessive,
            )
        if onset_gaps is not None and onset_gaps[p] > 0:
            disease = replace(
                disease,
                against=(*disease.against, _onset_conflict(index, p, onset, exclude_sources)),
                prior=disease.prior - params.onset_weight * float(onset_gaps[p]),
            )
        if without_gene is not None and without_gene[p]:
            disease = replace(
                disease,
                against=(*disease.against, NO_GENE_CONFLICT),
                prior=disease.prior - params.no_gene_penalty,
            )
        ranked.append(disease)
    return ranked


def adjust_for_sex(
    index: PhenotypeIndex,
    scores: np.ndarray,
    sex: str | None,
    exclude_sources: Collection[str],
    params: RankParams,
) -> dict[int, tuple[str, ...]]:
    """Lower, in place, the diseases the patient's sex speaks against; return them with the
    sources of the fact that does.

    Only one rule: a female patient and a disease whose every visible mode of inheritance is
    X-linked recessive (module docstring, step 5).
    """
    if sex != "female" or not params.female_x_recessive:
        return {}
    found = index.x_recessive_only(exclude_sources)
    if found:
        scores[np.fromiter(found, dtype=np.int64, count=len(found))] -= params.female_x_recessive
    return found


NO_GENE_CONFLICT = FindingConflict(
    finding="",
    finding_label="no gene known to cause it",
    disease_term="",
    frequency=0.0,
    kind="no_gene",
    sources=(),
)


def _sex_conflict(sources: tuple[str, ...]) -> FindingConflict:
    return FindingConflict(
        finding=X_RECESSIVE,
        finding_label="X-linked recessive inheritance in a female patient (carriers seldom show it)",
        disease_term=X_RECESSIVE,
        frequency=0.0,
        kind="sex",
        sources=sources,
    )


def _onset_conflict(
    index: PhenotypeIndex, profile: int, onset: Onset | None, exclude_sources: Collection[str]
) -> FindingConflict:
    """ "onset: infantile onset in the patient; curated: adult onset" with the curated facts' sources."""
    facts = index.onset_facts(profile, exclude_sources)
    curated = ", ".join(dict.fromkeys(ONSET_CLASSES[t][0] for t, _ in facts))
    patient = onset.label if onset is not None else "unknown"
    return FindingConflict(
        finding="",
        finding_label=f"onset: {patient} in the patient; curated: {curated}",
        disease_term=facts[0][0] if facts else "",
        frequency=0.0,
        kind="onset",
        sources=tuple(dict.fromkeys(s for _, srcs in facts for s in srcs)),
    )


def _gene_profiles(index: PhenotypeIndex, genes: Mapping[str, Sequence[str]]) -> dict[int, tuple[str, ...]]:
    """Ranking profile -> the named genes its diseases are associated with."""
    out: dict[int, tuple[str, ...]] = {}
    for disease_id, symbols in genes.items():
        p = index.profile_of.get(disease_id)
        if p is not None:
            out[p] = tuple(dict.fromkeys([*out.get(p, ()), *symbols]))
    return out


def _siblings(index: PhenotypeIndex, profile: int) -> np.ndarray:
    """The profiles sharing a MONDO parent class with `profile` (its phenotypic series)."""
    sib = index.siblings
    return sib.indices[sib.indptr[profile] : sib.indptr[profile + 1]]


def _with_series(
    index: PhenotypeIndex, disease: RankedDisease, profile: int, member: int | None, role: SeriesRole
) -> RankedDisease:
    """The disease naming the series member its place comes from, if it has one, and the
    class they share."""
    if member is None:
        return disease
    return replace(
        disease,
        series=index.profiles[member],
        series_role=role,
        series_class=index.shared_class(profile, member),
    )


def _best_sibling(index: PhenotypeIndex, profile: int, scores: np.ndarray) -> int | None:
    """The sibling a profile with nothing visible was scored by: the one ranked just above it."""
    row = _siblings(index, profile)
    above = row[scores[row] >= scores[profile]] if np.isfinite(scores[profile]) else row[:0]
    return int(above[np.argmin(scores[above])]) if len(above) else None


def _best_fitting_sibling(index: PhenotypeIndex, profile: int, scores: np.ndarray) -> int | None:
    """The sibling whose fit a profile with visible facts is shrunk toward: the best-scoring one."""
    row = _siblings(index, profile)
    row = row[np.isfinite(scores[row])]
    return int(row[np.argmax(scores[row])]) if len(row) else None


def _opposite_conflicts(
    index: PhenotypeIndex, q: _Query, cover: FeatureCover, cite: Callable[[int], tuple[str, ...]]
) -> list[FindingConflict]:
    """The findings a profile's visible features contradict, as `_opposite_row` scores them:
    the strongest opposite feature (IC x frequency) where none lies on the finding's side."""
    plain = index.plain
    rel_term, ic = plain.rel_term, plain.ic
    under, rel_freq = cover.under, cover.frequency
    label = index.ontology.label
    out: list[FindingConflict] = []
    for t in q.observed.tolist():
        opposed = [
            (ic[o] * rel_freq[under[o]], under[o])
            for a, o in index.contradictions(t)
            if o in under and a not in under
        ]
        if not opposed:
            continue
        r = max(opposed)[1]
        from_name = bool(index.rel_from_name[r])
        out.append(
            FindingConflict(
                finding=index.terms[t],
                finding_label=label(index.terms[t]),
                disease_term=index.terms[rel_term[r]],
                disease_term_label=label(index.terms[rel_term[r]]),
                frequency=0.0 if from_name else round(rel_freq[r], 3),
                kind="observed_but_opposite",
                sources=cite(r),
                from_name=from_name,
            )
        )
    return out


def top_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k highest finite scores, best first (ties broken by index for stability)."""
    finite = np.flatnonzero(np.isfinite(scores))
    if len(finite) == 0:
        return finite
    k = min(k, len(finite))
    part = finite[np.argpartition(-scores[finite], k - 1)[:k]] if k < len(finite) else finite
    return part[np.lexsort((part, -scores[part]))]


def explain(
    index: PhenotypeIndex,
    profile: int,
    score: float,
    rank: int,
    q: _Query,
    hidden: set[int],
    exclude_sources: Collection[str] = frozenset(),
    *,
    thinned: set[int],
    freq_weight: float = 0.0,
    opposite_weight: float = 0.0,
) -> RankedDisease:
    """The visible facts behind one profile's score, citing only sources that were not left out.

    `hidden` and `thinned` are the relations `exclude_sources` hides and thins."""

    def cite(r: int) -> tuple[str, ...]:
        return tuple(s for s in index.relation_sources(r) if s not in exclude_sources)

    plain = index.plain
    rel_term, ic = plain.rel_term, plain.ic
    cover = index.feature_cover(profile, frozenset(exclude_sources), hidden, thinned)
    positive, negative, under, rel_freq = cover.positive, cover.negative, cover.under, cover.frequency
    label = index.ontology.label
    observed = [(t, index.ancestor_list(t)) for t in q.observed.tolist()]
    matches: list[FindingMatch] = []
    for t, anc in observed:
        shared_terms = [x for x in anc if x in under and ic[x] > 0]
        if not shared_terms:
            continue
        # the same choice the score made: IC of the shared term plus the weighted log frequency
        shared = max(shared_terms, key=lambda x: ic[x] + freq_weight * float(np.log(rel_freq[under[x]])))
        r = under[shared]
        matches.append(
            FindingMatch(
                finding=index.terms[t],
                finding_label=label(index.terms[t]),
                disease_term=index.terms[rel_term[r]],
                disease_term_label=label(index.terms[rel_term[r]]),
                shared_term=index.terms[shared],
                ic=round(ic[shared], 3),
                frequency=0.0 if index.rel_from_name[r] else round(rel_freq[r], 3),
                sources=cite(r),
                from_name=bool(index.rel_from_name[r]),
            )
        )
    conflicts: list[FindingConflict] = []
    for e in q.excluded.tolist():
        expected = under.get(e)
        if expected is not None:
            conflicts.append(
                FindingConflict(
                    finding=index.terms[e],
                    finding_label=label(index.terms[e]),
                    disease_term=index.terms[rel_term[expected]],
                    frequency=round(rel_freq[expected], 3),
                    kind="excluded_but_expected",
                    sources=cite(expected),
                    from_name=bool(index.rel_from_name[expected]),
                )
            )
    for t, anc_list in observed:
        ancestors = set(anc_list)
        for r in negative:
            if rel_term[r] in ancestors:
                conflicts.append(
                    FindingConflict(
                        finding=index.terms[t],
                        finding_label=label(index.terms[t]),
                        disease_term=index.terms[rel_term[r]],
                        frequency=0.0,
                        kind="observed_but_negated",
                        sources=cite(r),
                    )
                )
                break
    if opposite_weight:
        conflicts += _opposite_conflicts(index, q, cover, cite)
    patient_anc: set[int] = set()
    for _, anc_list in observed:
        patient_anc.update(anc_list)
    absent = [
        index.terms[rel_term[r]]
        for r in sorted(positive, key=lambda r: -rel_freq[r])
        if rel_freq[r] >= 0.8 and rel_term[r] not in patient_anc
    ]
    disease_id = index.profiles[profile]
    return RankedDisease(
        id=disease_id,
        name=index.name(disease_id),
        score=score,  # unrounded: the order of near-equal scores must survive (JUST_BELOW)
        rank=rank,
        members=tuple(index.members[profile]),
        for_=tuple(matches),
        against=tuple(conflicts),
        absent=tuple(dict.fromkeys(absent))[:10],
    )
