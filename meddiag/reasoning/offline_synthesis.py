"""The offline reasoner's fan-in: one cited answer and differential from both channels' hops.

Every row of the differential is a disease (never a MONDO class), equivalent ids (OMIM ↔
ORPHA ↔ MONDO) are one row under the OMIM id where there is one, "for" names only findings
the disease's own evidence states, and every citation points at a passage or triple a hop kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from meddiag.diagnosis.fusion import exact_ties, fuse_scores, fused_order
from meddiag.reasoning.base import RankedEntity, SubAnswer
from meddiag.reasoning.citations import CitationLedger
from meddiag.reasoning.offline_evidence import EvidenceReader, excluded, most_frequent_first, observed
from meddiag.reasoning.offline_params import OfflineParams
from meddiag.reasoning.resources import ReasoningResources
from meddiag.reasoning.text_match import (
    STATES_INHERITANCE,
    STATES_ONSET,
    entity_kind,
    link_cached,
    normalise_predicate,
    sentences,
)
from meddiag.reasoning.wording import join_words, markers
from meddiag.schema import (
    NEAR_TIE,
    Agreement,
    ChannelName,
    DifferentialEntry,
    Finding,
    KGTriple,
    ParsedQuestion,
    RelationalResult,
    SemanticResult,
    SeriesRole,
    Synthesis,
    TextEvidence,
    opens_with_near_tie,
)

_TripleRows = dict[str, dict[str, list[tuple[int, KGTriple]]]]  # subject row -> predicate -> (hop, triple)


class Synthesiser:
    """Fuses both channels into a `Synthesis`; read-only, so thread-safe."""

    def __init__(
        self, resources: ReasoningResources, params: OfflineParams, evidence: EvidenceReader
    ) -> None:
        self.res = resources
        self.params = params
        self.ev = evidence

    def synthesise(
        self,
        parsed: ParsedQuestion,
        semantic: SemanticResult,
        relational: RelationalResult,
        semantic_answers: list[SubAnswer],
        relational_answers: list[SubAnswer],
    ) -> Synthesis:
        if parsed.kind == "diagnosis" and observed(parsed):
            return self._diagnosis(parsed, semantic, relational, semantic_answers, relational_answers)
        return self._lookup(parsed, semantic, relational, semantic_answers)

    # ------------------------------------------------------------------ diagnosis

    def _scores(self, answers: Sequence[SubAnswer]) -> tuple[dict[str, float], dict[str, RankedEntity]]:
        """Latest score per differential row across hops (a later hop refines an earlier one).

        Within one hop, equivalent ids keep the best-ranked one's score; ids that stand for
        no disease (a MONDO class without an equivalent disease) are left out.
        """
        scores: dict[str, float] = {}
        entities: dict[str, RankedEntity] = {}
        for a in answers:
            this_hop: set[str] = set()
            for e in a.entities:
                if entity_kind(e.id) != "disease":
                    continue
                row = self.ev.disease_row(e.id)
                if row is None or row in this_hop:
                    continue
                this_hop.add(row)
                scores[row] = e.score
                entities[row] = e
        return scores, entities

    def _diagnosis(
        self,
        parsed: ParsedQuestion,
        semantic: SemanticResult,
        relational: RelationalResult,
        semantic_answers: list[SubAnswer],
        relational_answers: list[SubAnswer],
    ) -> Synthesis:
        rel_scores, rel_entities = self._scores(relational_answers)
        sem_scores, sem_entities = self._scores(semantic_answers)
        fused = fuse_scores(rel_scores, sem_scores, self.params.semantic_weight)
        order = fused_order(fused, self.params.differential_size)
        ties = exact_ties(fused, order)
        cites = CitationLedger()
        seen, absent = observed(parsed), excluded(parsed)
        entries: list[DifferentialEntry] = []
        conflict_cites: dict[str, list[int]] = {}
        conflicts: dict[str, list[str]] = {}
        missing: dict[str, list[str]] = {}
        caveats: dict[str, list[str]] = {}
        for d in order:
            rel, sem = rel_entities.get(d), sem_entities.get(d)
            found = [e for e in (rel, sem) if e is not None]
            supported = {x for e in found for x in e.for_}
            for_ = [f.label for f in seen if f.label in supported]
            conflicts[d] = list(dict.fromkeys(x for e in found for x in e.against))
            missing[d] = self._absent_features(rel)
            caveats[d] = rel.caveats if rel is not None else []
            named: tuple[tuple[ChannelName, RankedEntity | None], ...] = (
                ("relational", rel),
                ("semantic", sem),
            )
            channels = [c for c, e in named if e is not None]
            for_cites, against_cites = self._cite_for(d, seen, absent, semantic, relational, cites)
            conflict_cites[d] = against_cites
            entries.append(
                DifferentialEntry(
                    id=d,
                    name=self.res.name(d),
                    score=round(fused[d], 4),
                    for_=for_,
                    against=[
                        *conflicts[d],
                        *caveats[d],
                        *(f"{x} not reported (frequent in this disease)" for x in missing[d]),
                    ],
                    channels=channels,
                    citations=list(dict.fromkeys([*for_cites, *against_cites])),
                    aliases=self.res.aliases(d),
                    series=rel.series if rel is not None else "",
                    series_role=rel.series_role if rel is not None else None,
                    series_class=rel.series_class if rel is not None else "",
                    genes=rel.genes if rel is not None else [],
                    tied_with=ties[d],
                )
            )
        agreement = _agreement(
            semantic, relational, _top(sem_scores), _top(rel_scores), self.res.name, "candidate diagnosis"
        )
        answer = self._paragraph(entries, agreement, parsed, conflict_cites, conflicts, missing, caveats)
        return Synthesis(
            answer=answer,
            differential=entries,
            citations=cites.items,
            agreement=agreement,
            # Unrounded: `bench/fusion_weights.py` re-fuses these, and a rounded gap between a
            # disease and the series member it borrows from would become a tie broken by id.
            channel_scores={"relational": dict(rel_scores), "semantic": dict(sem_scores)},
        )

    def _absent_features(self, rel: RankedEntity | None) -> list[str]:
        """The most specific frequent features the ranker found the patient lacks (relational rows only)."""
        if rel is None or not rel.absent:
            return []
        return rel.absent[: self.params.absent_features]

    def _cite_for(
        self,
        disease: str,
        seen: Sequence[Finding],
        absent: Sequence[Finding],
        semantic: SemanticResult,
        relational: RelationalResult,
        cites: CitationLedger,
    ) -> tuple[list[int], list[int]]:
        """(up to two supporting triples and two passages, one conflicting triple) about `disease`.

        Evidence about any of the disease's equivalent ids counts; a passage is cited only
        when it is about the disease and states one of the findings.
        """
        obs_ids = [f.hpo_id for f in seen]
        exc_ids = [f.hpo_id for f in absent]
        support: list[tuple[int, KGTriple]] = []
        conflict: list[tuple[int, KGTriple]] = []
        for hop in relational.hops:
            for t in hop.triples:
                if self.res.canonical_disease(self.ev.entity_id(t.subject, t.subject_id)) != disease:
                    continue
                pred = normalise_predicate(t.predicate)
                obj = self.ev.entity_id(t.object, t.object_id)
                if pred == "HAS_PHENOTYPE" and any(self.ev.slot_matches(f, obj, t.object) for f in obs_ids):
                    support.append((hop.index, t))
                elif (pred == "HAS_PHENOTYPE" and obj in exc_ids) or (
                    pred == "NOT_HAS_PHENOTYPE"
                    and any(self.ev.slot_matches(f, obj, t.object) for f in obs_ids)
                ):
                    conflict.append((hop.index, t))
        numbers = [cites.triple(h, t) for h, t in support[:2]]
        against = [cites.triple(h, t) for h, t in conflict[:1]]
        passages: dict[str, tuple[int, TextEvidence]] = {}
        for sem_hop in semantic.hops:
            for p in sem_hop.passages:
                if (p.doc_id or p.ref_id) in passages or disease not in self.ev.passage_subjects(p):
                    continue
                terms = self.ev.passage_terms(p)
                if any(self.ev.supports(f, terms) for f in obs_ids):
                    passages[p.doc_id or p.ref_id] = (sem_hop.index, p)
        numbers += [cites.passage(h, p) for h, p in list(passages.values())[:2]]
        return list(dict.fromkeys(numbers)), against

    def _paragraph(
        self,
        entries: Sequence[DifferentialEntry],
        agreement: Agreement,
        parsed: ParsedQuestion,
        conflict_cites: Mapping[str, list[int]],
        conflicts: Mapping[str, list[str]],
        missing: Mapping[str, list[str]],
        caveats: Mapping[str, list[str]],
    ) -> str:
        if not entries:
            return (
                "No candidate disease could be ranked from the retrieved evidence for "
                f"{join_words([self.res.in_sentence(f.label) for f in observed(parsed)])}."
            )
        top = entries[0]
        series_clause = _series_clause(top)
        via = " and ".join(
            {"relational": "the knowledge graph", "semantic": "the text passages"}[c] for c in top.channels
        )
        support = [n for n in top.citations if n not in conflict_cites.get(top.id, [])]
        sentences_out = [
            f"The most likely diagnosis is {top.name}"
            + (f", a disease of the named gene {join_words(top.genes)}" if top.genes else "")
            + (
                f", supported by {join_words([self.res.in_sentence(x) for x in top.for_[:5]])}"
                if top.for_
                else ""
            )
            + series_clause
            + (f" in {via}" if via else "")
            + f" {markers(support)}".rstrip()
            + "."
        ]
        if top.tied_with:
            names = {e.id: e.name for e in entries}
            sentences_out.append(
                f"{join_words([names[i] for i in top.tied_with])} "
                f"{'scores' if len(top.tied_with) == 1 else 'score'} exactly the same on this evidence, "
                "so the order among them is by catalogue id, not by fit."
            )
        elif opens_with_near_tie(entries):
            sentences_out.append(
                f"{entries[1].name} scores within {NEAR_TIE:g} of {top.name}: on this evidence the two "
                "are practically level, so weigh both."
            )
        if conflicts.get(top.id):
            marks = markers(conflict_cites.get(top.id, []))
            sentences_out.append(
                f"Against {top.name}: {join_words([self.res.in_sentence(x) for x in conflicts[top.id][:3]])} "
                f"(absent in the patient but annotated for it, or present but curated as absent) {marks}".rstrip()
                + "."
            )
        if caveats.get(top.id):
            sentences_out.append(f"Also against {top.name}: {join_words(caveats[top.id])}.")
        if missing.get(top.id):
            sentences_out.append(
                f"Frequent features of {top.name} not reported in the patient: "
                f"{join_words([self.res.in_sentence(x) for x in missing[top.id]])}."
            )
        others = [f"{e.name} {markers(e.citations[:2])}".strip() for e in entries[1:4]]
        if others:
            sentences_out.append(f"Other candidates: {join_words(others)}.")
        sentences_out.append(agreement.detail)
        return " ".join(sentences_out)

    # ------------------------------------------------------------------ genes / features / compare

    def _triple_rows(self, relational: RelationalResult) -> _TripleRows:
        by_subject: _TripleRows = {}
        for hop in relational.hops:
            for t in hop.triples:
                s = self.res.canonical_disease(self.ev.entity_id(t.subject, t.subject_id))
                by_subject.setdefault(s, {}).setdefault(normalise_predicate(t.predicate), []).append(
                    (hop.index, t)
                )
        return by_subject

    def _contrast(self, parsed: ParsedQuestion, by_subject: _TripleRows, cites: CitationLedger) -> list[str]:
        """Shared and distinguishing annotated features of the two named diseases, from retrieved triples."""
        pair = [self.res.canonical_disease(x) for x in parsed.diseases][:2]
        if len(pair) < 2:
            return []
        rows = [
            {
                self.ev.entity_id(t.object, t.object_id): (h, t)
                for h, t in by_subject.get(d, {}).get("HAS_PHENOTYPE", [])
            }
            for d in pair
        ]
        if not rows[0] or not rows[1]:
            return []

        def cited(ids: Iterable[str], side: int) -> str:
            best = self.res.most_specific(ids, 4)
            return (
                join_words(
                    [f"{rows[side][i][1].object} {markers([cites.triple(*rows[side][i])])}" for i in best]
                )
                or "none"
            )

        shared = rows[0].keys() & rows[1].keys()
        a, b = self.res.name(pair[0]), self.res.name(pair[1])
        return [
            f"Both {a} and {b} are annotated with {cited(shared, 0)}.",
            f"Only {a}: {cited(rows[0].keys() - shared, 0)}; only {b}: {cited(rows[1].keys() - shared, 1)}.",
        ]

    def _gene_diseases(
        self, parsed: ParsedQuestion, relational: RelationalResult, cites: CitationLedger, out: list[str]
    ) -> list[str]:
        """The sentences "Diseases associated with FBN1: …" from the retrieved gene triples;
        returns the disease ids listed."""
        listed: dict[str, str] = {}
        for gene in parsed.genes[:2]:
            rows: dict[str, tuple[int, KGTriple]] = {}
            for hop in relational.hops:
                for t in hop.triples:
                    if (
                        normalise_predicate(t.predicate) == "ASSOCIATED_GENE"
                        and t.object.upper() == gene.upper()
                    ):
                        d = self.res.canonical_disease(self.ev.entity_id(t.subject, t.subject_id))
                        rows.setdefault(d, (hop.index, t))
            if not rows:
                out.append(f"No retrieved triple links {gene} to a disease.")
                continue
            parts = [f"{t.subject} {markers([cites.triple(h, t)])}" for h, t in list(rows.values())[:15]]
            out.append(f"Diseases associated with {gene}: {', '.join(parts)}.")
            listed.update(dict.fromkeys(rows, gene))
        return list(listed)

    def _quote(
        self, passages: Sequence[tuple[int, TextEvidence]], kind: str
    ) -> tuple[int, TextEvidence, str] | None:
        """The first passage sentence that states what the question asks (a gene, a mode of
        inheritance, an onset, else a finding), so a generated profile's heading is never the quote."""
        for h, p in passages:
            for sentence in sentences(p.text):
                if self._states(sentence, kind):
                    return h, p, sentence.strip()
        return None

    def _states(self, sentence: str, kind: str) -> bool:
        if kind in ("inheritance", "onset"):
            return bool(_STATES[kind].search(sentence))
        linked = link_cached(self.res.linker, sentence)
        return bool(linked.genes if kind in ("genes", "gene_diseases") else linked.findings)

    def _lookup(
        self,
        parsed: ParsedQuestion,
        semantic: SemanticResult,
        relational: RelationalResult,
        semantic_answers: list[SubAnswer],
    ) -> Synthesis:
        """Genes / features / inheritance / onset of a disease, a gene's diseases, a comparison:
        list what the triples state, with their citations."""
        cites = CitationLedger()
        subjects = {self.res.canonical_disease(d) for d in parsed.diseases}
        out: list[str] = []
        names = [self.res.name(d) for d in parsed.diseases] or list(parsed.genes)
        by_subject = self._triple_rows(relational)
        wanted = _LOOKUP_PREDICATE.get(parsed.kind)
        rel_top: list[str] = []
        if wanted:
            for d in [self.res.canonical_disease(x) for x in parsed.diseases][:2]:
                rows = sorted(
                    by_subject.get(d, {}).get(wanted, []), key=lambda ht: most_frequent_first(ht[1])
                )
                # one line per object: equivalent ids (OMIM, ORPHA) may state the same fact twice
                rows = list(
                    {self.ev.entity_id(t.object, t.object_id): (h, t) for h, t in reversed(rows)}.values()
                )[::-1]
                noun, what, shown = _LOOKUP_WORDING[wanted]
                if not rows:
                    out.append(f"No retrieved triple states the {what} of {self.res.name(d)}.")
                    continue
                listed = [f"{_with_frequency(t)} {markers([cites.triple(h, t)])}" for h, t in rows[:shown]]
                rel_top.extend(self.ev.entity_id(t.object, t.object_id) for _, t in rows[:shown])
                out.append(f"{noun} {self.res.name(d)}: {', '.join(listed)}.")
                for pred, word in (("HAS_INHERITANCE", "Inheritance"), ("HAS_ONSET", "Onset")):
                    facts = by_subject.get(d, {}).get(pred, []) if pred != wanted else []
                    if facts:
                        out.append(
                            f"{word}: {', '.join(f'{t.object} {markers([cites.triple(h, t)])}' for h, t in facts[:3])}."
                        )
        if parsed.kind == "gene_diseases":
            rel_top = self._gene_diseases(parsed, relational, cites, out)
        if parsed.kind == "compare":
            out.extend(self._contrast(parsed, by_subject, cites))
        passages = [
            (hop.index, p)
            for hop in semantic.hops
            for p in hop.passages
            if not subjects or subjects & set(self.ev.passage_subjects(p)[:1])  # the document's own disease
        ]
        if parsed.kind == "genes":
            named = {self.res.name(g) for g in rel_top}
            passages = [hp for hp in passages if named & set(link_cached(self.res.linker, hp[1].text).genes)]
        quote = self._quote(passages, parsed.kind)
        if quote:
            h, p, sentence = quote
            out.append(f"{sentence} {markers([cites.passage(h, p)])}")
        wanted_kind = _LOOKUP_ENTITY_KIND.get(parsed.kind, "")
        sem_top = list(
            dict.fromkeys(
                e.id for a in semantic_answers for e in a.entities if entity_kind(e.id) == wanted_kind
            )
        )
        if not out:
            what = join_words(names) if names else "the question"
            out.append(f"The retrieved evidence does not answer {what}.")
        if parsed.kind in ("genes", "gene_diseases"):  # lists without an order to compare
            agreement = _set_agreement(semantic, relational, sem_top, rel_top, parsed.kind, self.res.name)
        else:
            agreement = _agreement(semantic, relational, sem_top, rel_top, self.res.name, "answer")
        out.append(agreement.detail)
        return Synthesis(answer=" ".join(out), differential=[], citations=cites.items, agreement=agreement)


# What a lookup question lists from the triples: predicate per kind, and its wording
# (lead-in, noun for "no triple states the …", how many to list).
_LOOKUP_PREDICATE = {
    "genes": "ASSOCIATED_GENE",
    "features": "HAS_PHENOTYPE",
    "compare": "HAS_PHENOTYPE",
    "inheritance": "HAS_INHERITANCE",
    "onset": "HAS_ONSET",
}
_LOOKUP_WORDING = {
    "ASSOCIATED_GENE": ("Genes associated with", "genes", 15),
    "HAS_PHENOTYPE": ("Annotated features of", "features", 8),
    "HAS_INHERITANCE": ("Mode of inheritance of", "mode of inheritance", 5),
    "HAS_ONSET": ("Age of onset of", "age of onset", 5),
}
_STATES = {"inheritance": STATES_INHERITANCE, "onset": STATES_ONSET}
# The kind of entity each lookup's answer is made of, for the channels' agreement.
_LOOKUP_ENTITY_KIND = {
    "genes": "gene",
    "features": "phenotype",
    "compare": "phenotype",
    "inheritance": "phenotype",
    "onset": "phenotype",
    "gene_diseases": "disease",
}


# Why a row placed by its MONDO series stands where it does (`schema.SeriesRole`), keyed on
# how, and on whether something of its own (what its name states, the text) still supports it.
_SERIES_CLAUSES: dict[tuple[SeriesRole | None, bool], str] = {
    ("scored_by", False): (
        ", with no curated feature of its own visible, scored as the member of its disease series "
        "that fits best, {member}"
    ),
    ("scored_by", True): (
        ", though with no curated feature of its own visible its place comes from its disease "
        "series, scored as the member that fits best, {member}"
    ),
    ("shrunk_toward", False): (
        ", whose own curated features match none of the findings, placed by what it borrows from "
        "the member of its disease series that fits best, {member}"
    ),
    ("shrunk_toward", True): (
        ", though its own curated features match none of the findings, so its place comes from "
        "what it borrows from the member of its disease series that fits best, {member}"
    ),
    # Rows recorded before the role was kept say only that the series placed them.
    (None, False): ", placed through the member of its disease series that fits best, {member}",
    (None, True): (
        ", though its place comes from its disease series, through the member that fits best, {member}"
    ),
}


def _series_clause(entry: DifferentialEntry) -> str:
    if not entry.series:
        return ""
    return _SERIES_CLAUSES[(entry.series_role, bool(entry.for_))].format(member=entry.series_member)


def _with_frequency(t: KGTriple) -> str:
    """A feature with the share of patients it is curated in, when that is known."""
    return t.object if t.frequency is None else f"{t.object} ({t.frequency:.0%})"


def _top(scores: Mapping[str, float], k: int = 3) -> list[str]:
    return sorted(scores, key=lambda d: (-scores[d], d))[:k]


def _set_agreement(
    semantic: SemanticResult,
    relational: RelationalResult,
    sem_ids: Sequence[str],
    rel_ids: Sequence[str],
    kind: str,
    label: Callable[[str], str],
) -> Agreement:
    """Agreement between two unordered lists (a disease's genes, a gene's diseases): how many
    of those the text names the knowledge graph lists too."""
    what = "genes" if kind == "genes" else "diseases"
    if not sem_ids or not rel_ids:
        return _agreement(semantic, relational, sem_ids, rel_ids, label, what)
    shared = [i for i in sem_ids if i in set(rel_ids)]
    if shared == list(sem_ids) and len(shared) == 1:
        return Agreement(
            status="agree", detail=f"The text names {label(shared[0])}, which the knowledge graph lists too."
        )
    if len(shared) == len(sem_ids):
        return Agreement(
            status="agree",
            detail=f"All {len(sem_ids)} {what} the text names are among the {len(rel_ids)} the knowledge graph lists.",
        )
    if shared:
        return Agreement(
            status="partial",
            detail=f"{len(shared)} of the {len(sem_ids)} {what} the text names are among the {len(rel_ids)} "
            "the knowledge graph lists.",
        )
    return Agreement(
        status="disagree",
        detail=f"None of the {what} the text names is among those the knowledge graph lists.",
    )


def _agreement(
    semantic: SemanticResult,
    relational: RelationalResult,
    sem_top: Sequence[str],
    rel_top: Sequence[str],
    label: Callable[[str], str],
    what: str,
) -> Agreement:
    if not semantic.hops or not relational.hops:
        ran = "semantic" if semantic.hops else "relational" if relational.hops else "no"
        return Agreement(status="single-channel", detail=f"Only the {ran} channel produced evidence.")
    if not sem_top or not rel_top:
        missing = "text" if not sem_top else "knowledge-graph"
        return Agreement(
            status="single-channel",
            detail=f"The {missing} channel found no {what}, so only one channel supports the answer.",
        )
    if sem_top[0] == rel_top[0]:
        return Agreement(status="agree", detail=f"Both channels rank {label(sem_top[0])} first.")
    shared = [d for d in rel_top[:3] if d in sem_top[:3]]
    if shared:
        return Agreement(
            status="partial",
            detail=f"The channels share {join_words([label(d) for d in shared])} among their top three but differ on the first.",
        )
    return Agreement(
        status="disagree",
        detail=f"The text channel favours {label(sem_top[0])}, the knowledge-graph channel {label(rel_top[0])}.",
    )
