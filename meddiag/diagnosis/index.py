"""A compact, integer-indexed view of the disease–phenotype graph for fast differential ranking.

Built once per process from the knowledge base's relations (HAS_PHENOTYPE,
NOT_HAS_PHENOTYPE, EQUIVALENT_TO, HAS_ONSET, HAS_INHERITANCE, ASSOCIATED_GENE, and
disease → MONDO class IS_A). Everything
the ranker needs per query is a sparse-matrix slice:

* ``ancestors``: per HPO term, its reflexive ancestors, ordered by information content.
* ``ic``: information content per term, ``-ln(share of annotated diseases having the term
  or a descendant)``. IC is computed once over the whole KB and stays global when sources
  are left out: it describes how common a feature is among diseases, not which disease a
  case has, and recomputing it per case would cost a full rebuild.
* ``closure``: profiles × terms, the highest annotated frequency of the profile's features
  at or below each term. A *profile* is one candidate disease together with the diseases
  the KB declares equivalent to it (an OMIM entry and the ORPHA entry mapped to the same
  MONDO class), so evidence curated under either id counts for both. Measured
  (leave-publication-out, 4,171 in-KB cases): pooling lifts top-1 from 37.9 % to 40.3 %
  and top-10 from 56.2 % to 61.4 % (``bench/rank_accuracy.py --no-pool`` for the other).
* ``siblings``: profiles × profiles, 1 where two profiles share a MONDO parent class
  (the KB's disease ``IS_A`` class relations; a phenotypic series), so a profile with
  few visible facts can borrow from its series (``ranking.borrow_from_siblings``).
* ``contradictions``: per HPO term, the (ancestor, opposite) pairs a disease can contradict
  it by (`opposites`: Macrocephaly against a curated Microcephaly).
* per-relation provenance, so that leaving sources out at query time finds exactly the
  facts resting *only* on those sources and the profiles they touch.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Generic, TypeVar

import numpy as np
from scipy import sparse

from meddiag.diagnosis.name_findings import NAME_SOURCE_FILE
from meddiag.diagnosis.onset import ONSET_CLASSES, onset_gap
from meddiag.diagnosis.opposites import opposite_pairs
from meddiag.knowledge.equivalence import equivalence_groups
from meddiag.knowledge.hpo import PHENOTYPIC_ABNORMALITY, Ontology
from meddiag.knowledge.model import Relation, visible
from meddiag.schema import Onset

DEFAULT_CANDIDATE_PREFIXES: tuple[str, ...] = ("OMIM",)
MatchKey = tuple[int, float, float]  # (term, freq_weight, exact_weight): one cached match row
# (observed, excluded, left-out sources, ranking parameters): one query's scores
ScoreKey = tuple[tuple[str, ...], tuple[str, ...], frozenset[str], Hashable, Hashable]  # ..., params, onset
K = TypeVar("K", bound=Hashable)
X_RECESSIVE = "HP:0001419"  # X-linked recessive inheritance


class MatchCache(Generic[K]):
    """Least-recently-used store of score rows over every profile: one finding's match scores
    (`PhenotypeIndex.match_cache`) or one query's final scores (`score_cache`).

    A match row is 4 bytes per profile (≈33 kB for the full KB), so the default 1,024 rows
    stay near 35 MB while covering the findings clinicians use most. Thread-safe: the UI may
    answer several sessions at once from one index.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._rows: OrderedDict[K, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> np.ndarray | None:
        with self._lock:
            row = self._rows.get(key)
            if row is not None:
                self._rows.move_to_end(key)
            return row

    def put(self, key: K, row: np.ndarray) -> None:
        with self._lock:
            self._rows[key] = row
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)

    def __len__(self) -> int:
        return len(self._rows)


@dataclass(frozen=True)
class ProfileMatrices:
    """Sparse matrices for a set of profiles (all of them, or the few a query must recompute)."""

    closure: sparse.csc_matrix  # profiles × terms: max frequency at or below the term
    direct: sparse.csr_matrix  # profiles × terms: frequency of directly annotated terms
    negated: sparse.csc_matrix  # profiles × terms: 1 where NOT_HAS_PHENOTYPE at or above the term
    publications: np.ndarray  # per profile: distinct publications (PMIDs) behind its visible facts
    # per profile: distinct visible curated features (findings read from its name not counted)
    n_features: np.ndarray
    _powered: dict[float, tuple[sparse.csr_matrix, np.ndarray]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @cached_property
    def direct_weight(self) -> np.ndarray:
        """Per profile, the sum of its features' frequencies."""
        return np.asarray(self.direct.sum(axis=1)).ravel()

    def direct_powered(self, power: float) -> tuple[sparse.csr_matrix, np.ndarray]:
        """`direct` with each frequency raised to `power`, and its row sums: the weights of
        the disease → patient mean (`ranking._disease_to_patient`). Built once per power."""
        if power == 1.0:
            return self.direct, self.direct_weight
        found = self._powered.get(power)
        if found is None:
            weights = self.direct.copy()
            weights.data = weights.data**power
            found = self._powered[power] = (weights, np.asarray(weights.sum(axis=1)).ravel())
        return found

    @cached_property
    def direct_by_term(self) -> sparse.csc_matrix:
        """`direct` by term column: which profiles are annotated with exactly that term."""
        return self.direct.tocsc()


@dataclass(frozen=True)
class PlainArrays:
    rel_term: list[int]
    rel_freq: list[float]
    rel_negated: list[bool]
    ic: list[float]


@dataclass(frozen=True)
class FeatureCover:
    """One profile's visible facts, read-only once built (shared between callers)."""

    positive: list[int]  # visible HAS_PHENOTYPE relations
    negative: list[int]  # visible NOT_HAS_PHENOTYPE relations
    under: dict[int, int]  # term -> the positive relation below it with the highest (frequency, IC)
    curated: bool  # some positive relation is curated, not only read from the disease's name
    frequency: dict[int, float]  # positive relation -> its frequency as the query may see it


COVER_CACHE_SIZE = 4096


class PhenotypeIndex:
    """Diseases, HPO terms and their annotations as integer ids and sparse matrices."""

    def __init__(
        self,
        ontology: Ontology,
        relations: Iterable[Relation],
        names: Mapping[str, str] | None = None,
        *,
        candidate_prefixes: Sequence[str] = DEFAULT_CANDIDATE_PREFIXES,
        pool_equivalents: bool = True,
        unknown_frequency: float = 0.5,
        match_cache_size: int = 1024,
    ) -> None:
        self.ontology = ontology
        self.unknown_frequency = unknown_frequency
        self._build_terms(ontology)
        self._build_relations(relations)
        self.names: dict[str, str] = dict(names or {})
        self._build_profiles(candidate_prefixes, pool_equivalents)
        self._build_ic()
        self.matrices = self.profile_matrices(range(len(self.profiles)))
        self.match_cache: MatchCache[MatchKey] = MatchCache(match_cache_size)
        # per finding, how much each profile contradicts it (`ranking._opposite_row`)
        self.opposite_cache: MatchCache[int] = MatchCache(match_cache_size)
        # An ask ranks the same findings several times (each relational hop, twice per hop:
        # the whole differential, then the retrieved candidates); 100 kB per entry.
        self.score_cache: MatchCache[ScoreKey] = MatchCache(32)
        self._ancestor_lists: dict[int, list[int]] = {}
        self._contradictions: dict[int, list[tuple[int, int]]] = {}
        self._covers: OrderedDict[tuple[int, frozenset[str]], FeatureCover] = OrderedDict()
        self._cover_lock = threading.Lock()

    # ------------------------------------------------------------------ construction

    def _build_terms(self, ontology: Ontology) -> None:
        self.terms: list[str] = list(ontology.terms)
        self.term_index: dict[str, int] = {t: i for i, t in enumerate(self.terms)}
        ptr = [0]
        idx: list[int] = []
        for t in self.terms:
            idx.extend(self.term_index[a] for a in ontology.ancestors(t))
            ptr.append(len(idx))
        self._anc_ptr = np.asarray(ptr, dtype=np.int64)
        self._anc_idx = np.asarray(idx, dtype=np.int32)
        # descendants are the transpose of ancestors
        term_of = np.repeat(np.arange(len(self.terms), dtype=np.int32), np.diff(self._anc_ptr))
        desc = sparse.csr_matrix(
            (np.ones(len(idx), dtype=np.int8), (self._anc_idx, term_of)), shape=(len(self.terms),) * 2
        )
        self._desc_ptr, self._desc_idx = desc.indptr, desc.indices

    def ancestors_of(self, term: int) -> np.ndarray:
        """The term and its ancestors, most informative first."""
        return self._anc_idx[self._anc_ptr[term] : self._anc_ptr[term + 1]]

    def descendants_of(self, term: int) -> np.ndarray:
        """The term and its descendants."""
        return self._desc_idx[self._desc_ptr[term] : self._desc_ptr[term + 1]]

    def _build_relations(self, relations: Iterable[Relation]) -> None:
        self.diseases: list[str] = []
        self.disease_index: dict[str, int] = {}
        self.sources: list[str] = []
        self.source_index: dict[str, int] = {}
        rel_d: list[int] = []
        rel_t: list[int] = []
        rel_f: list[float] = []
        rel_known: list[bool] = []
        rel_neg: list[bool] = []
        rel_named: list[bool] = []
        src_ptr = [0]
        src_idx: list[int] = []
        self.labels: dict[str, str] = {}
        # disease -> (HPO onset class, sources of that fact)
        self.onsets: dict[str, list[tuple[str, tuple[str, ...]]]] = defaultdict(list)
        # disease -> (mode of inheritance, sources of that fact)
        self.inheritance: dict[str, list[tuple[str, tuple[str, ...]]]] = defaultdict(list)
        equivalences: list[tuple[str, str]] = []
        # disease -> the sources of each of its ASSOCIATED_GENE facts (a known causal gene)
        self._gene_facts: dict[str, list[tuple[str, ...]]] = defaultdict(list)
        disease_classes: dict[str, list[str]] = defaultdict(list)

        def disease(did: str) -> int:
            i = self.disease_index.get(did)
            if i is None:
                i = self.disease_index[did] = len(self.diseases)
                self.diseases.append(did)
            return i

        for rel in relations:
            if rel.predicate == "EQUIVALENT_TO":
                equivalences.append((rel.subject, rel.object))
                continue
            if rel.predicate == "HAS_ONSET":
                self.onsets[rel.subject].append((rel.object, tuple(rel.sources)))
                continue
            if rel.predicate == "HAS_INHERITANCE":
                self.inheritance[rel.subject].append((rel.object, tuple(rel.sources)))
                continue
            if rel.predicate == "ASSOCIATED_GENE":
                self._gene_facts[rel.subject].append(tuple(rel.sources))
                continue
            if rel.predicate == "IS_A" and rel.subject not in self.term_index:
                disease_classes[rel.subject].append(rel.object)  # disease -> its MONDO parent class
                continue
            if rel.predicate not in ("HAS_PHENOTYPE", "NOT_HAS_PHENOTYPE"):
                continue
            term = self.term_index.get(rel.object)
            if term is None:
                resolved = self.ontology.resolve(rel.object)
                if resolved is None:
                    continue
                term = self.term_index[resolved]
            rel_d.append(disease(rel.subject))
            rel_t.append(term)
            freq = rel.frequency if rel.frequency is not None else self.unknown_frequency
            rel_f.append(max(freq, 0.01))
            rel_known.append(rel.frequency is not None)
            rel_neg.append(rel.predicate == "NOT_HAS_PHENOTYPE")
            rel_named.append(rel.source_file == NAME_SOURCE_FILE)
            for s in rel.sources:
                si = self.source_index.get(s)
                if si is None:
                    si = self.source_index[s] = len(self.sources)
                    self.sources.append(s)
                src_idx.append(si)
            src_ptr.append(len(src_idx))
        self.rel_disease = np.asarray(rel_d, dtype=np.int32)
        self.rel_term = np.asarray(rel_t, dtype=np.int32)
        self.rel_freq = np.asarray(rel_f, dtype=np.float32)
        self.rel_freq_curated = np.asarray(rel_known, dtype=bool)  # else `unknown_frequency`
        self.rel_negated = np.asarray(rel_neg, dtype=bool)
        # read from the disease's name (`name_findings`): matched, never counted as a feature
        self.rel_from_name = np.asarray(rel_named, dtype=bool)
        self._src_ptr = np.asarray(src_ptr, dtype=np.int64)
        self._src_idx = np.asarray(src_idx, dtype=np.int32)
        # source -> relations citing it, to find hidden facts without scanning them all
        n_rel = len(rel_d)
        rel_of_src = np.repeat(np.arange(n_rel, dtype=np.int32), np.diff(self._src_ptr))
        self._by_source = sparse.csr_matrix(
            (np.ones(len(src_idx), dtype=np.int8), (self._src_idx, rel_of_src)),
            shape=(len(self.sources), n_rel),
        )
        self._n_sources = np.diff(self._src_ptr).astype(np.int32)
        self._is_publication = np.asarray([s.startswith("PMID:") for s in self.sources], dtype=bool)
        self._equivalences = equivalences
        self._disease_classes = disease_classes

    def _build_profiles(self, prefixes: Sequence[str], pool: bool) -> None:
        has_phenotype = np.zeros(len(self.diseases), dtype=bool)
        has_phenotype[self.rel_disease[~self.rel_negated]] = True
        groups = equivalence_groups(self._equivalences) if pool else {}
        rel_by_disease: dict[int, list[int]] = defaultdict(list)
        for r, d in enumerate(self.rel_disease.tolist()):
            rel_by_disease[d].append(r)
        candidates = [
            d
            for i, d in enumerate(self.diseases)
            if has_phenotype[i] and (not prefixes or d.split(":", 1)[0] in prefixes)
        ]
        # One profile per equivalence group: two OMIM entries the KB links to one MONDO class
        # are one disease (an entry and its former or alternative number), shown and ranked
        # once under the entry curated with the most facts, the others as its aliases.
        curated = {d: len(rel_by_disease.get(self.disease_index[d], ())) for d in candidates}
        chosen: dict[str, str] = {}
        for d in sorted(candidates, key=lambda d: (-curated[d], d)):
            for m in groups.get(d, {d}):
                chosen.setdefault(m, d)
        self.profiles: list[str] = [d for d in candidates if chosen[d] == d]
        self.profile_index: dict[str, int] = {d: i for i, d in enumerate(self.profiles)}
        self.members: list[list[str]] = []
        ptr = [0]
        rels: list[int] = []
        for d in self.profiles:
            members = [d, *sorted(m for m in groups.get(d, ()) if m != d and m in self.disease_index)]
            self.members.append(members)
            for m in members:
                rels.extend(rel_by_disease.get(self.disease_index[m], ()))
            ptr.append(len(rels))
        # any member id (an ORPHA id pooled into an OMIM profile) finds its profile
        self.profile_of: dict[str, int] = {}
        for p, members in enumerate(self.members):
            for m in members:
                self.profile_of.setdefault(m, p)
        self._prof_ptr = np.asarray(ptr, dtype=np.int64)
        self._prof_rels = np.asarray(rels, dtype=np.int32)
        prof_of = np.repeat(np.arange(len(self.profiles), dtype=np.int32), np.diff(self._prof_ptr))
        # relation -> profiles that use it, for finding the profiles a query must recompute
        self._profiles_of_rel = sparse.csr_matrix(
            (np.ones(len(rels), dtype=np.int8), (self._prof_rels, prof_of)),
            shape=(len(self.rel_disease), len(self.profiles)),
        )
        self.equivalents: dict[str, list[str]] = {
            m: g for g in (sorted(v) for v in groups.values()) for m in g
        }
        self.siblings, self._class_size = self._sibling_matrix()
        self._gene_sources = frozenset(s for facts in self._gene_facts.values() for f in facts for s in f)
        self._without_gene = self._profiles_without_gene(frozenset())
        self._build_onsets()
        self._x_recessive: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
        for p, members in enumerate(self.members):
            facts = [f for m in members for f in self.inheritance.get(m, ())]
            if any(mode == X_RECESSIVE for mode, _ in facts):
                self._x_recessive[p] = facts

    def _build_onsets(self) -> None:
        """One row per (profile, onset fact) with an age range, for `onset_gaps`."""
        prof: list[int] = []
        terms: list[str] = []
        srcs: list[tuple[str, ...]] = []
        for p, members in enumerate(self.members):
            for m in members:
                for term, sources in self.onsets.get(m, ()):
                    if term in ONSET_CLASSES:
                        prof.append(p)
                        terms.append(term)
                        srcs.append(sources)
        self._onset_profile = np.asarray(prof, dtype=np.int64)
        self._onset_terms = terms
        self._onset_sources = srcs
        self._onset_low = np.asarray([ONSET_CLASSES[t][1] for t in terms], dtype=np.float64)
        self._onset_high = np.asarray([ONSET_CLASSES[t][2] for t in terms], dtype=np.float64)
        self._onset_rows: dict[int, list[int]] = defaultdict(list)
        for row, p in enumerate(prof):
            self._onset_rows[p].append(row)
        self._onset_rows_citing: dict[str, list[int]] = defaultdict(list)
        for row, sources in enumerate(srcs):
            for src in sources:
                self._onset_rows_citing[src].append(row)

    def _onset_visible(self, exclude: frozenset[str]) -> np.ndarray:
        shown = np.ones(len(self._onset_terms), dtype=bool)
        for src in exclude:  # only facts citing a left-out source can be hidden
            for row in self._onset_rows_citing.get(src, ()):
                shown[row] = visible(list(self._onset_sources[row]), exclude)
        return shown

    def onset_gaps(self, onset: Onset, exclude_sources: Collection[str] = frozenset()) -> np.ndarray:
        """Per profile: how far the patient's onset lies from the nearest of its visible curated
        onsets (`onset.onset_gap`, log months); 0 for a profile with none, which says nothing."""
        shown = self._onset_visible(frozenset(exclude_sources))
        nearest = np.full(len(self.profiles), np.inf)
        gaps = onset_gap(onset, self._onset_low[shown], self._onset_high[shown])
        np.minimum.at(nearest, self._onset_profile[shown], gaps)
        return np.where(np.isfinite(nearest), nearest, 0.0)

    def onset_facts(
        self, profile: int, exclude_sources: Collection[str] = frozenset()
    ) -> list[tuple[str, tuple[str, ...]]]:
        """A profile's visible onset classes with their sources (those left out dropped)."""
        exclude = frozenset(exclude_sources)
        return [
            (self._onset_terms[r], tuple(s for s in self._onset_sources[r] if s not in exclude))
            for r in self._onset_rows.get(profile, ())
            if visible(list(self._onset_sources[r]), exclude)
        ]

    def x_recessive_only(self, exclude_sources: Collection[str] = frozenset()) -> dict[int, tuple[str, ...]]:
        """Profiles whose only visible mode of inheritance is X-linked recessive -> that fact's sources.

        A mode of inheritance resting only on left-out sources is hidden, like any other fact.
        """
        exclude = frozenset(exclude_sources)
        out: dict[int, tuple[str, ...]] = {}
        for p, facts in self._x_recessive.items():
            shown = [(mode, srcs) for mode, srcs in facts if visible(list(srcs), exclude)]
            if shown and all(mode == X_RECESSIVE for mode, _ in shown):
                cited = (s for _, srcs in shown for s in srcs if s not in exclude)
                out[p] = tuple(dict.fromkeys(cited))
        return out

    def without_gene(self, exclude_sources: Collection[str] = frozenset()) -> np.ndarray:
        """Per profile: True when none of its diseases has a visible known causal gene.

        All False when the knowledge base records no gene at all: then the absence says nothing.
        """
        exclude = frozenset(exclude_sources) & self._gene_sources
        return self._without_gene if not exclude else self._profiles_without_gene(exclude)

    def _profiles_without_gene(self, exclude: frozenset[str]) -> np.ndarray:
        if not self._gene_facts:
            return np.zeros(len(self.profiles), dtype=bool)
        return np.asarray(
            [
                not any(visible(list(f), exclude) for m in members for f in self._gene_facts.get(m, ()))
                for members in self.members
            ],
            dtype=bool,
        )

    def _classes(self, profile: int) -> set[str]:
        return {c for m in self.members[profile] for c in self._disease_classes.get(m, ())}

    def shared_class(self, profile: int, other: int) -> str:
        """The MONDO class two sibling profiles share with the fewest members (the closest series
        they form: a phenotypic series rather than "hereditary disease"), or "" for none."""
        common = self._classes(profile) & self._classes(other)
        return min(common, key=lambda c: (self._class_size[c], c)) if common else ""

    def _sibling_matrix(self) -> tuple[sparse.csr_matrix, dict[str, int]]:
        """profiles × profiles, 1 where two profiles share a MONDO parent class (a phenotypic
        series); and each class's number of member profiles."""
        n = len(self.profiles)
        class_index: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        for p in range(n):
            for c in self._classes(p):
                rows.append(p)
                cols.append(class_index.setdefault(c, len(class_index)))
        incidence = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, len(class_index)))
        sizes = np.asarray(incidence.sum(axis=0)).ravel()
        shared = (incidence @ incidence.T).tocsr()
        shared.setdiag(0.0)
        shared.eliminate_zeros()
        shared.data[:] = 1.0
        shared.sort_indices()
        return shared, {c: int(sizes[k]) for c, k in class_index.items()}

    def _build_ic(self) -> None:
        """IC over all annotated diseases (not only candidates): how rare a feature is among diseases."""
        positive = ~self.rel_negated
        d = self.rel_disease[positive]
        t = self.rel_term[positive]
        counts_anc = np.diff(self._anc_ptr)[t]
        rows = np.repeat(d, counts_anc)
        cols = _gather(self._anc_ptr, self._anc_idx, t)
        has = sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(self.diseases), len(self.terms))
        )
        has.data[:] = 1.0  # duplicates summed: reset to presence
        n_with = np.asarray(has.sum(axis=0)).ravel()
        n_total = max(int(has.getnnz(axis=1).astype(bool).sum()), 1)
        self.term_disease_count = n_with.astype(np.int32)
        with np.errstate(divide="ignore"):
            ic = -np.log(np.maximum(n_with, 1.0) / n_total)
        ic[n_with == 0] = np.log(n_total)  # never annotated: as rare as one disease
        self.ic = ic.astype(np.float64)
        self.n_annotated = n_total
        # ancestor lists ordered by IC, most informative first (best match found first)
        owner = np.repeat(np.arange(len(self.terms)), np.diff(self._anc_ptr))
        order = np.lexsort((-self.ic[self._anc_idx], owner))
        self._anc_idx = self._anc_idx[order]
        self.root = self.term_index.get(PHENOTYPIC_ABNORMALITY)

    # ------------------------------------------------------------------ per-query helpers

    @cached_property
    def plain(self) -> PlainArrays:
        """The per-relation and per-term arrays as Python lists, for per-fact loops (explaining
        a score), where indexing a numpy array one element at a time costs ~10x a list."""
        return PlainArrays(
            rel_term=self.rel_term.tolist(),
            rel_freq=self.rel_freq.tolist(),
            rel_negated=self.rel_negated.tolist(),
            ic=self.ic.tolist(),
        )

    def feature_cover(
        self,
        profile: int,
        exclude_sources: frozenset[str],
        hidden: Collection[int],
        thinned: Collection[int],
    ) -> FeatureCover:
        """A profile's visible facts and, for every term at or above a visible feature, the
        feature under it the disease shows most often (then the most specific).

        `hidden` and `thinned` must be the relations `exclude_sources` hides and thins
        (`hidden_relations`, `thinned_relations`); the answer is remembered per (profile,
        exclusions), since one ask explains the same top diseases several times.
        """
        key = (profile, exclude_sources)
        with self._cover_lock:
            found = self._covers.get(key)
            if found is not None:
                self._covers.move_to_end(key)
                return found
        plain = self.plain
        rel_term, rel_freq, ic = plain.rel_term, plain.rel_freq, plain.ic
        rels = [r for r in self.relations_of_profile(profile).tolist() if r not in hidden]
        positive = [r for r in rels if not plain.rel_negated[r]]
        negative = [r for r in rels if plain.rel_negated[r]]
        unknown = self.unknown_frequency
        freq = {r: unknown if r in thinned else rel_freq[r] for r in positive}
        under: dict[int, int] = {}
        for r in positive:
            rank = (freq[r], ic[rel_term[r]])
            for a in self.ancestor_list(rel_term[r]):
                held = under.get(a)
                if held is None or rank > (freq[held], ic[rel_term[held]]):
                    under[a] = r
        from_name = self.rel_from_name
        cover = FeatureCover(
            positive, negative, under, curated=any(not from_name[r] for r in positive), frequency=freq
        )
        with self._cover_lock:
            self._covers[key] = cover
            while len(self._covers) > COVER_CACHE_SIZE:
                self._covers.popitem(last=False)
        return cover

    @cached_property
    def _opposites(self) -> dict[int, list[int]]:
        pairs = opposite_pairs(self.ontology)
        return {
            self.term_index[t]: sorted(self.term_index[o] for o in others)
            for t, others in pairs.items()
            if t in self.term_index
        }

    def contradictions(self, term: int) -> list[tuple[int, int]]:
        """(ancestor, opposite) pairs for a finding: a disease with a feature at or below the
        opposite and none at or below the ancestor contradicts it. An opposite that is itself
        an ancestor of the finding (a term under both of a pair) contradicts nothing."""
        found = self._contradictions.get(term)
        if found is None:
            anc = self.ancestor_list(term)
            held = set(anc)
            opposites = self._opposites
            found = [(a, o) for a in anc for o in opposites.get(a, ()) if o not in held]
            self._contradictions[term] = found
        return found

    def ancestor_list(self, term: int) -> list[int]:
        """`ancestors_of` as a list, remembered per term (read-only: shared between callers)."""
        found = self._ancestor_lists.get(term)
        if found is None:
            found = self._ancestor_lists[term] = self.ancestors_of(term).tolist()
        return found

    def relations_of_profile(self, profile: int) -> np.ndarray:
        return self._prof_rels[self._prof_ptr[profile] : self._prof_ptr[profile + 1]]

    def relation_sources(self, rel: int) -> list[str]:
        return [self.sources[s] for s in self._src_idx[self._src_ptr[rel] : self._src_ptr[rel + 1]]]

    def _citing(self, exclude_sources: Collection[str]) -> tuple[np.ndarray, np.ndarray]:
        """The relations citing any of `exclude_sources`, and how many of those each cites."""
        cols = [self.source_index[s] for s in exclude_sources if s in self.source_index]
        if not cols:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
        by_source = self._by_source
        cited = np.concatenate(
            [by_source.indices[by_source.indptr[c] : by_source.indptr[c + 1]] for c in cols]
        )
        return np.unique(cited, return_counts=True)

    def hidden_relations(self, exclude_sources: Collection[str]) -> np.ndarray:
        """Relations whose every source is in `exclude_sources` (facts a query must not see)."""
        touched, hits = self._citing(exclude_sources)
        return touched[hits >= self._n_sources[touched]].astype(np.int32)

    def thinned_relations(self, exclude_sources: Collection[str]) -> np.ndarray:
        """Visible relations with a curated frequency that one of `exclude_sources` was pooled
        into (`meddiag.knowledge.model.keeps_frequency`): scored and shown as if no frequency
        had been curated."""
        touched, hits = self._citing(exclude_sources)
        keep = (hits < self._n_sources[touched]) & self.rel_freq_curated[touched]
        return touched[keep].astype(np.int32)

    def profiles_using(self, rels: np.ndarray) -> np.ndarray:
        if len(rels) == 0:
            return np.zeros(0, dtype=np.int32)
        return np.unique(self._profiles_of_rel[rels].indices).astype(np.int32)

    def profile_matrices(
        self, profiles: Iterable[int], hidden: np.ndarray | None = None, thinned: np.ndarray | None = None
    ) -> ProfileMatrices:
        """Matrices for `profiles` (in that order), leaving `hidden` relations out and giving
        `thinned` ones the frequency of a feature curated without one."""
        profiles = list(profiles)
        items = np.asarray(profiles, dtype=np.int64)
        rels = _gather(self._prof_ptr, self._prof_rels, items)
        rows = np.repeat(
            np.arange(len(profiles), dtype=np.int32), self._prof_ptr[items + 1] - self._prof_ptr[items]
        )
        if hidden is not None and len(hidden):
            keep = ~np.isin(rels, hidden)
            rels, rows = rels[keep], rows[keep]
        neg = self.rel_negated[rels]
        shape = (len(profiles), len(self.terms))
        pos_rels, pos_rows = rels[~neg], rows[~neg]
        terms = self.rel_term[pos_rels]
        freqs = self.rel_freq[pos_rels]
        if thinned is not None and len(thinned):
            freqs = np.where(np.isin(pos_rels, thinned), np.float32(self.unknown_frequency), freqs)
        direct = _max_matrix(pos_rows, terms, freqs, shape).tocsr()
        n_anc = np.diff(self._anc_ptr)[terms]
        c_rows = np.repeat(pos_rows, n_anc)
        c_cols = _gather(self._anc_ptr, self._anc_idx, terms)
        closure = _max_matrix(c_rows, c_cols, np.repeat(freqs, n_anc), shape).tocsc()
        # NOT_HAS_PHENOTYPE holds for the term and everything below it
        n_rels, n_rows = rels[neg], rows[neg]
        negated_rows: list[int] = []
        negated_cols: list[int] = []
        for r, p in zip(n_rels.tolist(), n_rows.tolist(), strict=True):
            below = self.ontology.descendants(self.terms[self.rel_term[r]])
            negated_cols.extend(self.term_index[x] for x in below)
            negated_rows.extend([p] * len(below))
        negated = _max_matrix(
            np.asarray(negated_rows, dtype=np.int32),
            np.asarray(negated_cols, dtype=np.int32),
            np.ones(len(negated_rows), dtype=np.float32),
            shape,
        ).tocsc()
        curated = ~self.rel_from_name[pos_rels]
        return ProfileMatrices(
            closure=closure,
            direct=direct,
            negated=negated,
            publications=self._publication_counts(rels, rows, shape[0]),
            n_features=_distinct_per_row(pos_rows[curated], terms[curated], shape),
        )

    def _publication_counts(self, rels: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
        """Distinct PMIDs per row over the given relations (a literature-size prior)."""
        lens = self._n_sources[rels]
        srcs = _gather(self._src_ptr, self._src_idx, rels)
        owners = np.repeat(rows, lens).astype(np.int64)
        is_pub = self._is_publication[srcs]
        width = max(len(self.sources), 1)
        pairs = np.unique(owners[is_pub] * width + srcs[is_pub])
        return np.bincount(pairs // width, minlength=n)

    def term(self, term_id: str) -> int | None:
        idx = self.term_index.get(term_id)
        if idx is None:
            resolved = self.ontology.resolve(term_id)
            idx = self.term_index.get(resolved) if resolved else None
        return idx

    def name(self, disease_id: str) -> str:
        return self.names.get(disease_id, disease_id)


def _distinct_per_row(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Per row, the number of distinct columns among the (row, col) pairs."""
    pairs = np.unique(rows.astype(np.int64) * shape[1] + cols)
    return np.bincount(pairs // shape[1], minlength=shape[0])


def _gather(ptr: np.ndarray, idx: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Concatenated CSR rows `idx[ptr[i]:ptr[i+1]]` for each i in `items`, without a Python loop."""
    lens = ptr[items + 1] - ptr[items]
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=idx.dtype)
    offsets = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
    return idx[np.repeat(ptr[items], lens) + offsets]


def _max_matrix(
    rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, shape: tuple[int, int]
) -> sparse.coo_matrix:
    """A sparse matrix keeping the maximum of duplicate entries (scipy would sum them)."""
    if len(rows) == 0:
        return sparse.coo_matrix(shape, dtype=np.float32)
    key = rows.astype(np.int64) * shape[1] + cols
    order = np.lexsort((-vals, key))
    key, vals = key[order], vals[order]
    first = np.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    key, vals = key[first], vals[first]
    return sparse.coo_matrix(
        (vals.astype(np.float32), ((key // shape[1]).astype(np.int32), (key % shape[1]).astype(np.int32))),
        shape=shape,
    )
