"""The offline reasoner: deterministic, evidence-bound judgement at every engine step.

No model and no network. Questions are understood by phrase linking to HPO (with
negation), the relational channel's candidates are ranked by phenotype similarity
(`meddiag.diagnosis.ranking`), the semantic channel's by how well each disease's passages
cover the patient's findings over the HPO hierarchy, and every sentence it writes is
filled from the evidence it was handed: names, findings, doc ids and triples that a hop
retrieved. Citations are only ever made to passages and triples found in the hops.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from meddiag.diagnosis import ranking
from meddiag.diagnosis.fusion import fuse_scores
from meddiag.diagnosis.linking import LinkedText, PhraseLinker, tokenize
from meddiag.knowledge.model import visible
from meddiag.reasoning.base import RankedEntity, SubAnswer
from meddiag.reasoning.resources import ReasoningResources, name_key
from meddiag.schema import (
    Agreement,
    ChannelName,
    Citation,
    DifferentialEntry,
    Finding,
    KGEvidence,
    KGTriple,
    ParsedQuestion,
    PatientInput,
    RelationalHop,
    RelationalResult,
    SemanticHop,
    SemanticResult,
    Synthesis,
    TextEvidence,
    TriplePattern,
    Verification,
)

_REF = re.compile(r"#(\d+)\b")
_PLACEHOLDER = re.compile(r"^Entity#(\d+)$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(])")
_DOC_DISEASE = re.compile(r"^(?:profile|mondo|user)/((?:OMIM|ORPHA|DECIPHER|MONDO):[\w.]+)")
_DISEASE_PREFIXES = ("OMIM:", "ORPHA:", "DECIPHER:", "MONDO:")
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an the and or of in on at to for from by with which what who is are was were be do does how "
        "that this these those its their reported present presents characteristic",
    )
)


@dataclass(frozen=True)
class OfflineParams:
    """The few knobs of the offline reasoner; defaults are the product's behaviour."""

    plan_findings: int = 4  # findings named in the first sub-query / pattern hop
    follow_candidates: int = 3  # candidates a ``#N`` / ``Entity#N`` reference expands to
    keep_passages: int = 8
    summary_sentences: int = 4
    min_frequency: float = 0.04  # HAS_PHENOTYPE facts rarer than this are dropped as low-confidence
    answer_size: int = 10
    differential_size: int = 10
    semantic_weight: float = 0.35  # share of the semantic channel in the fused differential
    sufficient_findings: int = 2
    sufficient_margin: float = 0.02  # relative score margin between the top two candidates


def is_disease(entity_id: str) -> bool:
    return entity_id.startswith(_DISEASE_PREFIXES)


def normalise_predicate(predicate: str) -> str:
    """``has phenotype`` / ``HAS_PHENOTYPE`` / ``has-phenotype`` → ``HAS_PHENOTYPE``."""
    return re.sub(r"[^A-Z]+", "_", predicate.upper()).strip("_")


@lru_cache(maxsize=4096)
def _link_cached(linker: PhraseLinker, text: str) -> LinkedText:
    return linker.link(text)


def _join(items: Sequence[str], word: str = "and") -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def _markers(ns: Iterable[int]) -> str:
    return "".join(f"[{n}]" for n in dict.fromkeys(ns))


class _Citations:
    """Numbers citations in order of first use; only evidence handed in can be registered."""

    def __init__(self) -> None:
        self.items: list[Citation] = []
        self._by_key: dict[tuple[str, ...], int] = {}

    def passage(self, hop: int, p: TextEvidence) -> int:
        key = ("passage", str(hop), p.doc_id or p.ref_id)
        if key not in self._by_key:
            n = len(self.items) + 1
            self._by_key[key] = n
            self.items.append(
                Citation(
                    n=n,
                    kind="passage",
                    channel="semantic",
                    hop=hop,
                    doc_id=p.doc_id or p.ref_id,
                    text=p.text[:400],
                    provenance=list(p.provenance),
                )
            )
        return self._by_key[key]

    def triple(self, hop: int, t: KGTriple) -> int:
        key = ("triple", str(hop), t.key)
        if key not in self._by_key:
            n = len(self.items) + 1
            self._by_key[key] = n
            self.items.append(
                Citation(
                    n=n,
                    kind="triple",
                    channel="relational",
                    hop=hop,
                    subject=t.subject,
                    predicate=t.predicate,
                    object=t.object,
                    provenance=list(t.provenance),
                )
            )
        return self._by_key[key]


class OfflineReasoner:
    """Deterministic default reasoner; thread-safe (holds only read-only resources)."""

    name = "offline"

    def __init__(self, resources: ReasoningResources, params: OfflineParams | None = None) -> None:
        self.res = resources
        self.params = params or OfflineParams()
        self.fallbacks: list[str] = []  # always empty: nothing to fall back from

    # ================================================================== understanding

    def parse_question(self, question: str, patient: PatientInput | None = None) -> ParsedQuestion:
        return self.res.linker.parse_question(question, patient)

    def _observed(self, parsed: ParsedQuestion) -> list[Finding]:
        return [f for f in parsed.findings if not f.excluded]

    def _excluded(self, parsed: ParsedQuestion) -> list[Finding]:
        return [f for f in parsed.findings if f.excluded]

    def _informative(self, findings: Sequence[Finding], n: int) -> list[Finding]:
        """The `n` most specific findings (highest information content), in question order."""
        top = sorted(findings, key=lambda f: -self.res.ic(f.hpo_id))[:n]
        return [f for f in findings if f in top]

    def _disease_names(self, parsed: ParsedQuestion) -> list[str]:
        return [self.res.name(d) for d in parsed.diseases]

    # ================================================================== semantic channel

    def plan_semantic(self, parsed: ParsedQuestion, initial: list[TextEvidence]) -> list[str]:
        names = self._disease_names(parsed)
        if parsed.kind == "genes" and names:
            return [
                f"Which genes are associated with {names[0]}?",
                "Which other diseases are associated with #1?",
            ]
        if parsed.kind == "features" and names:
            return [
                f"What are the characteristic features of {names[0]}?",
                f"Which genes and inheritance are reported for {names[0]}?",
            ]
        if parsed.kind == "compare" and len(names) >= 2:
            return [
                f"What are the characteristic features of {names[0]}?",
                f"What are the characteristic features of {names[1]}?",
                "Which features distinguish #1 from #2?",
            ]
        observed = self._observed(parsed)
        if observed:
            labels = [f.label.lower() for f in self._informative(observed, self.params.plan_findings)]
            return [
                f"Which diseases present with {_join(labels)}?",
                "What are the characteristic features of #1?",
                "Which genes and inheritance are reported for #1?",
            ]
        return [parsed.text]

    def ground(self, sub_query: str, answers: dict[int, SubAnswer]) -> tuple[str, list[str]]:
        unresolved: list[str] = []

        def sub(m: re.Match[str]) -> str:
            answer = answers.get(int(m.group(1)))
            if answer is None or not answer.entities:
                unresolved.append(m.group(0))
                return m.group(0)
            # Only entities of the kind the answer leads with (a features answer lists its disease first).
            kind = _kind(answer.entities[0].id)
            same = [e for e in answer.entities if _kind(e.id) == kind]
            return _join([e.name for e in same[: self.params.follow_candidates]], "or")

        return _REF.sub(sub, sub_query), list(dict.fromkeys(unresolved))

    def _query_words(self, text: str) -> set[str]:
        return {t.norm for t in tokenize(text) if t.lower not in _STOP and len(t.norm) > 2}

    def _passage_diseases(self, p: TextEvidence) -> list[str]:
        out: list[str] = []
        m = _DOC_DISEASE.match(p.doc_id or p.ref_id)
        if m:
            out.append(self.res.canonical_disease(m.group(1)))
        for did in _link_cached(self.res.linker, p.text).disease_ids:
            c = self.res.canonical_disease(did)
            if c not in out:
                out.append(c)
        return out

    def _passage_terms(self, p: TextEvidence) -> set[str]:
        return {f.hpo_id for f in _link_cached(self.res.linker, p.text).findings if not f.excluded}

    def _credit(self, finding: str, terms: Iterable[str]) -> float:
        """IC of the best match of a patient finding among a passage's terms (0 when unrelated)."""
        onto = self.res.ontology
        if finding not in onto.terms:
            return 0.0
        best = 0.0
        f_anc = onto.ancestors(finding)
        for t in terms:
            if t == finding or finding in onto.ancestors(t):
                return self.res.ic(finding)
            if t in f_anc:
                best = max(best, self.res.ic(t))
        return best

    def _relevance(
        self, p: TextEvidence, parsed: ParsedQuestion, words: set[str], wanted: set[str], seeks_disease: bool
    ) -> float:
        """2 × IC-weighted share of findings the passage covers + 1.5 if it is about a wanted disease
        + the share of the sub-query's words it contains; halved for a passage that names no disease
        when the sub-query asks for diseases (a term definition cannot answer "which diseases …")."""
        terms = self._passage_terms(p)
        observed = self._observed(parsed)
        total = sum(self.res.ic(f.hpo_id) for f in observed) or 1.0
        finding_part = sum(self._credit(f.hpo_id, terms) for f in observed) / total
        text_words = {t.norm for t in tokenize(f"{p.title} {p.text}")}
        word_part = len(words & text_words) / len(words) if words else 0.0
        diseases = set(self._passage_diseases(p))
        entity_part = 1.0 if wanted & diseases else 0.0
        score = 2.0 * finding_part + 1.5 * entity_part + word_part
        return score * 0.5 if seeks_disease and not diseases else score

    def filter_passages(
        self, sub_query: str, passages: list[TextEvidence], parsed: ParsedQuestion
    ) -> list[TextEvidence]:
        excluded = frozenset(parsed.exclude_sources)
        words = self._query_words(sub_query)
        named = [*parsed.diseases, *_link_cached(self.res.linker, sub_query).disease_ids]
        wanted = {self.res.canonical_disease(d) for d in named}
        seeks_disease = _intent(sub_query) in ("diseases", "distinguish")
        scored = [
            (self._relevance(p, parsed, words, wanted, seeks_disease), i, p)
            for i, p in enumerate(passages)
            if visible(p.provenance, excluded)
        ]
        kept = sorted((s for s in scored if s[0] >= 0.34), key=lambda s: (-s[0], s[1]))
        return [p for _, _, p in kept[: self.params.keep_passages]]

    def summarise_passages(self, sub_query: str, passages: list[TextEvidence]) -> str:
        if not passages:
            return "No passage relevant to this sub-query was retrieved."
        words = self._query_words(sub_query)
        candidates: list[tuple[float, int, str]] = []
        for i, p in enumerate(passages):
            for k, sentence in enumerate(_SENTENCE.split(p.text.strip())):
                s_words = {t.norm for t in tokenize(sentence)}
                overlap = len(words & s_words) / (len(words) or 1)
                linked = len(_link_cached(self.res.linker, sentence).findings)
                score = overlap + 0.1 * min(linked, 5) - 0.01 * k
                candidates.append((score, i, f"{sentence.strip()} [{p.doc_id or p.ref_id}]"))
        best = sorted(candidates, key=lambda c: (-c[0], c[1]))[: self.params.summary_sentences]
        return " ".join(text for _, _, text in best)

    def _text_ranking(self, passages: Sequence[TextEvidence], parsed: ParsedQuestion) -> list[RankedEntity]:
        """Diseases named in the passages, scored by the IC-weighted share of findings their text covers."""
        observed = self._observed(parsed)
        excluded = self._excluded(parsed)
        total = sum(self.res.ic(f.hpo_id) for f in observed) or 1.0
        best: dict[str, dict[str, float]] = {}
        against: dict[str, dict[str, float]] = {}
        for p in passages:
            terms = self._passage_terms(p)
            for d in self._passage_diseases(p):
                row = best.setdefault(d, {})
                for f in observed:
                    row[f.label] = max(row.get(f.label, 0.0), self._credit(f.hpo_id, terms))
                bad = against.setdefault(d, {})
                for f in excluded:
                    credit = self._credit(f.hpo_id, terms)
                    if credit:
                        bad[f.label] = max(bad.get(f.label, 0.0), credit)
        out: list[RankedEntity] = []
        for d, row in best.items():
            score = (sum(row.values()) - 0.5 * sum(against[d].values())) / total
            out.append(
                RankedEntity(
                    id=d,
                    name=self.res.name(d),
                    score=round(score, 4),
                    for_=[k for k, v in row.items() if v > 0],
                    against=list(against[d]),
                )
            )
        out.sort(key=lambda e: (-e.score, e.id))
        return out[: self.params.answer_size]

    def answer_semantic(
        self, sub_query: str, summary: str, passages: list[TextEvidence], parsed: ParsedQuestion
    ) -> SubAnswer:
        if not passages:
            return SubAnswer(
                text="No retrieved passage addresses this sub-query.", entities=[], channel="semantic"
            )
        intent = _intent(sub_query)
        if intent == "genes":
            return self._gene_answer_from_passages(passages)
        if intent == "features" and not self._observed(parsed):
            return self._feature_answer_from_passages(sub_query, passages)
        ranked = self._text_ranking(passages, parsed)
        if not self._observed(parsed):
            # No patient findings to match: the diseases the passages are about, in passage order.
            seen = list(dict.fromkeys(d for p in passages for d in self._passage_diseases(p)))
            ranked = [RankedEntity(id=d, name=self.res.name(d), score=0.0) for d in seen]
        if not ranked:
            return SubAnswer(text="The kept passages name no disease.", entities=[], channel="semantic")
        top = ranked[: self.params.follow_candidates]
        parts = [
            f"{e.name} (covers {_join([x.lower() for x in e.for_]) or 'none of the findings'})" for e in top
        ]
        text = f"Passages most consistent with the findings: {'; '.join(parts)}."
        if intent == "distinguish" and len(top) >= 2:
            text += " " + self._distinguish_sentence(top[0].id, top[1].id)
        return SubAnswer(text=text, entities=ranked, channel="semantic")

    def _gene_answer_from_passages(self, passages: Sequence[TextEvidence]) -> SubAnswer:
        genes: list[str] = []
        for p in passages:
            for g in _link_cached(self.res.linker, p.text).genes:
                if g not in genes:
                    genes.append(g)
        if not genes:
            return SubAnswer(text="The kept passages name no gene.", entities=[], channel="semantic")
        entities = []
        for k, g in enumerate(genes[: self.params.answer_size]):
            gid = next((i for i in self.res.lookup(g) if i.startswith("NCBIGene:")), g)
            entities.append(RankedEntity(id=gid, name=g, score=round(1.0 / (k + 1), 4)))
        return SubAnswer(
            text=f"Genes named in the passages: {_join(genes[:10])}.", entities=entities, channel="semantic"
        )

    def _feature_answer_from_passages(self, sub_query: str, passages: Sequence[TextEvidence]) -> SubAnswer:
        """Features the passages describe; the answer leads with the disease the sub-query names."""
        counts: dict[str, int] = {}
        for p in passages:
            for f in _link_cached(self.res.linker, p.text).findings:
                if not f.excluded:
                    counts[f.hpo_id] = counts.get(f.hpo_id, 0) + 1
        named = [self.res.canonical_disease(d) for d in _link_cached(self.res.linker, sub_query).disease_ids]
        diseases = list(dict.fromkeys(named)) or list(
            dict.fromkeys(d for p in passages for d in self._passage_diseases(p))
        )
        ranked = sorted(counts, key=lambda t: (-counts[t], -self.res.ic(t)))[: self.params.answer_size]
        labels = [self.res.ontology.label(t).lower() for t in ranked]
        entities = [RankedEntity(id=d, name=self.res.name(d), score=0.0) for d in diseases]
        entities += [
            RankedEntity(id=t, name=self.res.ontology.label(t), score=float(counts[t])) for t in ranked
        ]
        subject = self.res.name(diseases[0]) if diseases else "the disease"
        text = f"Features the passages describe for {subject}: {_join(labels) or 'none recognised'}."
        return SubAnswer(text=text, entities=entities, channel="semantic")

    def _distinguish_sentence(self, a: str, b: str) -> str:
        fa = set(self._features_of(a))
        fb = set(self._features_of(b))
        only_a = sorted(fa - fb, key=lambda t: -self.res.ic(t))[:3]
        only_b = sorted(fb - fa, key=lambda t: -self.res.ic(t))[:3]
        label = self.res.ontology.label
        return (
            f"{self.res.name(a)} alone is annotated with {_join([label(t).lower() for t in only_a]) or 'no distinct feature'}; "
            f"{self.res.name(b)} alone with {_join([label(t).lower() for t in only_b]) or 'no distinct feature'}."
        )

    def _features_of(self, disease: str) -> list[str]:
        p = self.res.index.profile_index.get(self.res.canonical_disease(disease))
        if p is None:
            return []
        idx = self.res.index
        rels = idx.relations_of_profile(p).tolist()
        return [idx.terms[int(idx.rel_term[r])] for r in rels if not idx.rel_negated[r]]

    def draft_logic_semantic(self, hop: SemanticHop, parsed: ParsedQuestion) -> list[str]:
        steps = [f"Sub-query {hop.index}: {hop.grounded_query}"]
        if hop.unresolved:
            steps.append(f"Unresolved references {', '.join(hop.unresolved)}: no earlier answer to point to.")
        docs = [p.doc_id or p.ref_id for p in hop.passages]
        steps.append(
            f"Kept {len(docs)} passage(s) that mention the findings or the sub-query's terms: {', '.join(docs[:6])}."
        )
        observed = {f.label.lower() for f in self._observed(parsed)}
        for p in hop.passages[:3]:
            named = [
                f.label.lower() for f in _link_cached(self.res.linker, p.text).findings if not f.excluded
            ]
            shared = sorted(set(named) & observed)
            if shared:
                steps.append(f"{p.doc_id or p.ref_id} describes {_join(shared)}.")
        if hop.sub_answer:
            steps.append(f"Therefore: {hop.sub_answer}")
        return steps

    # ================================================================== relational channel

    def plan_relational(self, parsed: ParsedQuestion, initial: KGEvidence) -> list[list[TriplePattern]]:
        P = TriplePattern
        diseases = parsed.diseases
        if parsed.kind == "genes" and diseases:
            return [
                [P(subject=diseases[0], predicate="ASSOCIATED_GENE", object="?")],
                [P(subject="?", predicate="ASSOCIATED_GENE", object="Entity#1")],
            ]
        if parsed.kind == "features" and diseases:
            d = diseases[0]
            return [
                [
                    P(subject=d, predicate="HAS_PHENOTYPE", object="?"),
                    P(subject=d, predicate="HAS_ONSET", object="?"),
                    P(subject=d, predicate="HAS_INHERITANCE", object="?"),
                ]
            ]
        if parsed.kind == "compare" and len(diseases) >= 2:
            return [
                [P(subject=diseases[0], predicate="HAS_PHENOTYPE", object="?")],
                [P(subject=diseases[1], predicate="HAS_PHENOTYPE", object="?")],
            ]
        observed = self._observed(parsed)
        if not observed:
            return []
        hop1 = [
            P(subject="Entity#1", predicate="HAS_PHENOTYPE", object=f.hpo_id)
            for f in self._informative(observed, self.params.plan_findings + 1)
        ]
        hop2 = [
            P(subject="Entity#1", predicate="NOT_HAS_PHENOTYPE", object=f.hpo_id)
            for f in self._excluded(parsed)[:2]
        ]
        hop2 += [
            P(subject="Entity#1", predicate="HAS_PHENOTYPE", object=f.hpo_id)
            for f in self._excluded(parsed)[:2]
        ]
        hop2.append(P(subject="Entity#1", predicate="HAS_ONSET", object="?"))
        hop3 = [
            P(subject="Entity#2", predicate="ASSOCIATED_GENE", object="?"),
            P(subject="Entity#2", predicate="HAS_INHERITANCE", object="?"),
        ]
        return [hop1, hop2, hop3]

    def resolve(
        self, patterns: list[TriplePattern], bindings: dict[int, SubAnswer]
    ) -> tuple[list[TriplePattern], list[str]]:
        """Expand ``Entity#N`` into hop N's top answer entities, one pattern per entity.

        A placeholder for a hop that has not answered yet (N beyond the answered hops) is
        this hop's own unknown and stays as it is; a placeholder for an answered hop with
        no entities is reported as unresolved and kept visible in the pattern.
        """
        answered = max(bindings, default=0)
        resolved: list[TriplePattern] = []
        unresolved: list[str] = []
        for pat in patterns:
            options: list[list[str]] = []
            for slot in (pat.subject, pat.object):
                m = _PLACEHOLDER.match(slot.strip())
                if m is None or int(m.group(1)) > answered:
                    options.append([slot])
                    continue
                answer = bindings.get(int(m.group(1)))
                ids = [e.id for e in answer.entities[: self.params.follow_candidates]] if answer else []
                if not ids:
                    unresolved.append(slot.strip())
                    options.append([slot])
                else:
                    options.append(ids)
            for s in options[0]:
                for o in options[1]:
                    p = TriplePattern(subject=s, predicate=pat.predicate, object=o)
                    if p not in resolved:
                        resolved.append(p)
        return resolved, list(dict.fromkeys(unresolved))

    def _entity_id(self, name: str, given: str | None) -> str:
        if given:
            return given
        ids = self.res.lookup(name)
        return ids[0] if ids else name

    def _slot_matches(self, slot: str, value_id: str, value_name: str) -> bool:
        s = slot.strip()
        if s in ("?", "") or s.startswith("Entity#"):
            return True
        if s == value_id or name_key(s) == name_key(value_name):
            return True
        if is_disease(s) and is_disease(value_id):
            return self.res.canonical_disease(s) == self.res.canonical_disease(value_id)
        onto = self.res.ontology
        if s.startswith("HP:") and value_id.startswith("HP:") and s in onto.terms and value_id in onto.terms:
            if s in onto.ancestors(value_id):  # the fact names a more specific feature
                return True
            # a more general feature counts only while it stays informative
            return value_id in onto.ancestors(s) and self.res.ic(value_id) >= 0.5 * self.res.ic(s)
        return False

    def _matches(self, pattern: TriplePattern, t: KGTriple) -> bool:
        if normalise_predicate(pattern.predicate) != normalise_predicate(t.predicate):
            return False
        subject = self._entity_id(t.subject, t.subject_id)
        obj = self._entity_id(t.object, t.object_id)
        return self._slot_matches(pattern.subject, subject, t.subject) and self._slot_matches(
            pattern.object, obj, t.object
        )

    def filter_triples(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> tuple[list[KGTriple], int]:
        excluded = frozenset(parsed.exclude_sources)
        kept: list[KGTriple] = []
        seen: set[str] = set()
        for t in triples:
            if t.key in seen:
                continue
            if not visible(t.provenance, excluded):
                continue
            pred = normalise_predicate(t.predicate)
            if pred == "HAS_PHENOTYPE" and t.weight is not None and t.weight < self.params.min_frequency:
                continue
            if not any(self._matches(p, t) for p in patterns):
                continue
            seen.add(t.key)
            kept.append(t)
        return kept, len(triples) - len(kept)

    def summarise_triples(self, triples: list[KGTriple]) -> str:
        if not triples:
            return "No triple matched the patterns."
        groups: dict[tuple[str, str], list[str]] = {}
        for t in triples:
            obj = t.object
            if (
                normalise_predicate(t.predicate) == "HAS_PHENOTYPE"
                and t.weight is not None
                and t.weight < 1.0
            ):
                obj = f"{obj} ({t.weight:.0%})"
            groups.setdefault(
                (t.subject, normalise_predicate(t.predicate).lower().replace("_", " ")), []
            ).append(obj)
        lines = [
            f"{s} {p}: {', '.join(objs[:8])}{' …' if len(objs) > 8 else ''}"
            for (s, p), objs in groups.items()
        ]
        return "; ".join(lines[:12]) + ("; …" if len(lines) > 12 else "") + "."

    def _rank(
        self, parsed: ParsedQuestion, candidates: Iterable[str] | None, top_k: int
    ) -> list[RankedEntity]:
        observed = [f.hpo_id for f in self._observed(parsed)]
        if not observed:
            return []
        excluded = [f.hpo_id for f in self._excluded(parsed)]
        ranked = ranking.rank_diseases(
            self.res.index,
            observed,
            excluded,
            age_years=parsed.age_years,
            sex=parsed.sex,
            exclude_sources=frozenset(parsed.exclude_sources),
            candidates=None if candidates is None else list(candidates),
            top_k=top_k,
        )
        return [
            RankedEntity(
                id=r.id,
                name=r.name,
                score=round(float(r.score), 4),
                for_=list(dict.fromkeys(m.finding_label for m in r.for_)),
                against=list(dict.fromkeys(c.finding_label for c in r.against)),
            )
            for r in ranked
            if r.score > 0 and r.for_  # a candidate matching no finding is not evidence of anything
        ]

    def answer_relational(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> SubAnswer:
        predicates = {normalise_predicate(p.predicate) for p in patterns}
        if parsed.kind == "diagnosis" and self._observed(parsed):
            return self._diagnosis_answer(patterns, triples, parsed)
        # The unknown side: subjects when every pattern fixes its object and leaves the subject open.
        reverse = all(_open(p.subject) and not _open(p.object) for p in patterns) if patterns else False
        if "ASSOCIATED_GENE" in predicates:
            what = "Diseases associated" if reverse else "Genes"
            return self._objects_answer(triples, "ASSOCIATED_GENE", what, reverse=reverse)
        if "HAS_PHENOTYPE" in predicates:
            what = "Diseases with these features" if reverse else "Features"
            return self._objects_answer(triples, "HAS_PHENOTYPE", what, reverse=reverse)
        return self._objects_answer(triples, None, "Facts", reverse=reverse)

    def _diagnosis_answer(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> SubAnswer:
        named = [p.subject for p in patterns if is_disease(p.subject.strip())]
        size = self.params.answer_size
        if named:
            # A later hop about given candidates: re-rank exactly those with all findings.
            ranked = self._rank(parsed, {self.res.canonical_disease(d) for d in named}, len(named))
        else:
            seen = {
                self.res.canonical_disease(self._entity_id(t.subject, t.subject_id))
                for t in triples
                if normalise_predicate(t.predicate) == "HAS_PHENOTYPE"
            }
            own = self._rank(parsed, None, size)
            from_triples = self._rank(parsed, seen, len(seen)) if seen else []
            merged = {e.id: e for e in [*own, *from_triples]}
            ranked = sorted(merged.values(), key=lambda e: (-e.score, e.id))[:size]
        if not ranked:
            return SubAnswer(
                text="No candidate disease matches the findings.", entities=[], channel="relational"
            )
        support = self._triple_support(triples, parsed)
        parts = []
        for e in ranked[: self.params.follow_candidates]:
            matches = _join([x.lower() for x in e.for_][:4]) or "no finding"
            found = "" if named else f"; {support.get(e.id, 0)} retrieved triple(s)"
            parts.append(f"{e.name} (score {e.score:g}{found}; matches {matches})")
        lead = "Candidates re-ranked with all findings" if named else "Phenotype-similarity ranking"
        text = f"{lead}: " + "; ".join(parts) + "."
        extra = self._facts_sentence(triples, ranked[: self.params.follow_candidates], parsed)
        return SubAnswer(text=f"{text} {extra}".strip(), entities=ranked, channel="relational")

    def _triple_support(self, triples: Iterable[KGTriple], parsed: ParsedQuestion) -> dict[str, int]:
        """Per candidate, how many retrieved HAS_PHENOTYPE triples match an observed finding."""
        observed = [f.hpo_id for f in self._observed(parsed)]
        out: dict[str, int] = {}
        for t in triples:
            if normalise_predicate(t.predicate) != "HAS_PHENOTYPE":
                continue
            obj = self._entity_id(t.object, t.object_id)
            if any(self._slot_matches(f, obj, t.object) for f in observed):
                d = self.res.canonical_disease(self._entity_id(t.subject, t.subject_id))
                out[d] = out.get(d, 0) + 1
        return out

    def _facts_sentence(
        self, triples: Sequence[KGTriple], entities: Sequence[RankedEntity], parsed: ParsedQuestion
    ) -> str:
        """Genes, inheritance, onset and conflicts stated by the retrieved triples for the top candidates."""
        wanted = {e.id for e in entities}
        excluded = {f.hpo_id for f in self._excluded(parsed)}
        facts: dict[str, dict[str, list[str]]] = {}
        for t in triples:
            pred = normalise_predicate(t.predicate)
            if pred == "HAS_PHENOTYPE" and self._entity_id(t.object, t.object_id) in excluded:
                pred = "CONFLICT"
            if pred not in (
                "ASSOCIATED_GENE",
                "HAS_INHERITANCE",
                "HAS_ONSET",
                "NOT_HAS_PHENOTYPE",
                "CONFLICT",
            ):
                continue
            d = self.res.canonical_disease(self._entity_id(t.subject, t.subject_id))
            if d in wanted:
                facts.setdefault(d, {}).setdefault(pred, []).append(t.object)
        templates = {
            "ASSOCIATED_GENE": "gene {}",
            "HAS_INHERITANCE": "inheritance {}",
            "HAS_ONSET": "onset {}",
            "NOT_HAS_PHENOTYPE": "curated as never showing {}",
            "CONFLICT": "annotated with {}, which the patient does not have",
        }
        out = []
        for e in entities:
            if e.id in facts:
                bits = [templates[p].format(", ".join(dict.fromkeys(v))) for p, v in facts[e.id].items()]
                out.append(f"{e.name}: {'; '.join(bits)}.")
        return " ".join(out)

    def _objects_answer(
        self, triples: Sequence[KGTriple], predicate: str | None, what: str, *, reverse: bool = False
    ) -> SubAnswer:
        """The entities on the unknown side of the kept triples (objects, or subjects when `reverse`)."""
        rows = [t for t in triples if predicate is None or normalise_predicate(t.predicate) == predicate]
        if not rows:
            return SubAnswer(
                text=f"No retrieved triple answers this hop ({what.lower()}).",
                entities=[],
                channel="relational",
            )
        rows.sort(key=lambda t: -(t.weight if t.weight is not None else 1.0))
        entities: list[RankedEntity] = []
        for t in rows:
            name, given, other = (
                (t.subject, t.subject_id, t.object) if reverse else (t.object, t.object_id, t.subject)
            )
            oid = self._entity_id(name, given)
            if all(e.id != oid for e in entities):
                entities.append(
                    RankedEntity(
                        id=oid,
                        name=name,
                        score=float(t.weight if t.weight is not None else 1.0),
                        **{"for": [other]},
                    )
                )
        shown = [e.name for e in entities[: self.params.answer_size]]
        subjects = list(dict.fromkeys(t.object if reverse else t.subject for t in rows))
        text = f"{what} for {_join(subjects[:3])}: {', '.join(shown)}{' …' if len(entities) > len(shown) else ''}."
        return SubAnswer(text=text, entities=entities[: self.params.answer_size * 3], channel="relational")

    def draft_logic_relational(self, hop: RelationalHop, parsed: ParsedQuestion) -> list[str]:
        steps = [
            f"Hop {hop.index} patterns: {'; '.join(str(p) for p in hop.triple_queries)}",
        ]
        if hop.resolved_queries != hop.triple_queries:
            steps.append(f"Resolved: {'; '.join(str(p) for p in hop.resolved_queries[:6])}")
        if hop.unresolved:
            steps.append(f"Unresolved placeholders {', '.join(hop.unresolved)}: no earlier answer to bind.")
        steps.append(
            f"Kept {len(hop.triples)} triple(s) matching a pattern; dropped {hop.dropped} "
            "(no pattern matched, low frequency, or resting only on excluded sources)."
        )
        support = self._triple_support(hop.triples, parsed)
        for d, n in sorted(support.items(), key=lambda kv: -kv[1])[:3]:
            steps.append(f"{self.res.name(d)} is linked to the findings by {n} triple(s).")
        if hop.sub_answer:
            steps.append(f"Therefore: {hop.sub_answer}")
        return steps

    # ================================================================== both channels

    def verify(self, parsed: ParsedQuestion, answers: list[SubAnswer]) -> Verification:
        if not answers:
            return Verification(sufficient=False, reason="No hop produced an answer.")
        if parsed.kind != "diagnosis":
            if any(a.entities for a in answers):
                return Verification(
                    sufficient=True, reason="The hops returned the entities the question asks for."
                )
            return Verification(sufficient=False, reason="No hop returned an entity the question asks for.")
        ranked = _last_diseases(answers)
        if not ranked:
            return Verification(sufficient=False, reason="No candidate disease was found.")
        top = ranked[0]
        need = min(self.params.sufficient_findings, len(self._observed(parsed)))
        if len(top.for_) < need:
            return Verification(
                sufficient=False,
                reason=f"{top.name} is supported by only {len(top.for_)} of the patient's findings.",
            )
        if len(ranked) > 1:
            second = ranked[1]
            margin = top.score - second.score
            if margin < self.params.sufficient_margin * max(abs(top.score), 1e-9):
                return Verification(
                    sufficient=False,
                    reason=f"{top.name} and {second.name} are nearly tied ({top.score:g} vs {second.score:g}).",
                )
        return Verification(
            sufficient=True,
            reason=f"{top.name} is supported by {len(top.for_)} finding(s) with a clear margin.",
        )

    def expand(
        self,
        parsed: ParsedQuestion,
        answers: list[SubAnswer],
        verification: Verification,
        channel: ChannelName | None = None,
    ) -> list[str]:
        """At most two follow-ups; relational ones are written as ``(S, P, O)`` patterns."""
        if verification.sufficient:
            return []
        channel = channel or next((a.channel for a in reversed(answers) if a.channel), None)
        ranked = _last_diseases(answers)
        if channel == "relational":
            if len(ranked) >= 2:
                a, b = ranked[0].id, ranked[1].id
                return [f"({a}, HAS_PHENOTYPE, ?); ({b}, HAS_PHENOTYPE, ?)"]
            return []
        if channel != "semantic":
            return []
        out: list[str] = []
        if len(ranked) >= 2:
            out.append(f"Which features distinguish {ranked[0].name} from {ranked[1].name}?")
        observed = self._observed(parsed)
        rest = [f for f in observed if f not in self._informative(observed, self.params.plan_findings)]
        if rest:
            labels = [f.label.lower() for f in self._informative(rest, self.params.plan_findings)]
            out.append(f"Which diseases present with {_join(labels)}?")
        return out[:2]

    # ================================================================== fan-in

    def synthesise(
        self,
        parsed: ParsedQuestion,
        semantic: SemanticResult,
        relational: RelationalResult,
        semantic_answers: list[SubAnswer],
        relational_answers: list[SubAnswer],
    ) -> Synthesis:
        if parsed.kind == "diagnosis" and self._observed(parsed):
            return self._synthesise_diagnosis(
                parsed, semantic, relational, semantic_answers, relational_answers
            )
        return self._synthesise_lookup(parsed, semantic, relational, semantic_answers, relational_answers)

    def _scores(self, answers: Sequence[SubAnswer]) -> tuple[dict[str, float], dict[str, RankedEntity]]:
        """Latest score per disease across hops (a later hop refines an earlier one)."""
        scores: dict[str, float] = {}
        entities: dict[str, RankedEntity] = {}
        for a in answers:
            for e in a.entities:
                if is_disease(e.id):
                    d = self.res.canonical_disease(e.id)
                    scores[d] = e.score
                    entities[d] = e
        return scores, entities

    def _synthesise_diagnosis(
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
        order = sorted(fused, key=lambda d: (-fused[d], d))[: self.params.differential_size]
        cites = _Citations()
        observed = self._observed(parsed)
        excluded = self._excluded(parsed)
        entries: list[DifferentialEntry] = []
        against_numbers: dict[str, list[int]] = {}
        for d in order:
            rel, sem = rel_entities.get(d), sem_entities.get(d)
            for_ = list(dict.fromkeys([*(rel.for_ if rel else []), *(sem.for_ if sem else [])]))
            against = list(dict.fromkeys([*(rel.against if rel else []), *(sem.against if sem else [])]))
            channels: list[ChannelName] = [
                c for c, e in (("relational", rel), ("semantic", sem)) if e is not None
            ]
            for_cites, against_cites = self._cite_for(d, observed, excluded, semantic, relational, cites)
            against_numbers[d] = against_cites
            entries.append(
                DifferentialEntry(
                    id=d,
                    name=self.res.name(d),
                    score=round(fused[d], 4),
                    for_=for_,
                    against=against,
                    channels=channels,
                    citations=list(dict.fromkeys([*for_cites, *against_cites])),
                )
            )
        agreement = _agreement(
            semantic, relational, _top(sem_scores), _top(rel_scores), self.res.name, "candidate diagnosis"
        )
        answer = self._diagnosis_paragraph(entries, agreement, parsed, against_numbers)
        return Synthesis(answer=answer, differential=entries, citations=cites.items, agreement=agreement)

    def _cite_for(
        self,
        disease: str,
        observed: Sequence[Finding],
        excluded: Sequence[Finding],
        semantic: SemanticResult,
        relational: RelationalResult,
        cites: _Citations,
    ) -> tuple[list[int], list[int]]:
        """(up to two supporting triples and two passages, one conflicting triple) about `disease`."""
        numbers: list[int] = []
        obs_ids = [f.hpo_id for f in observed]
        exc_ids = [f.hpo_id for f in excluded]
        support: list[tuple[int, KGTriple]] = []
        conflict: list[tuple[int, KGTriple]] = []
        for hop in relational.hops:
            for t in hop.triples:
                if self.res.canonical_disease(self._entity_id(t.subject, t.subject_id)) != disease:
                    continue
                pred = normalise_predicate(t.predicate)
                obj = self._entity_id(t.object, t.object_id)
                if pred == "HAS_PHENOTYPE" and any(self._slot_matches(f, obj, t.object) for f in obs_ids):
                    support.append((hop.index, t))
                elif (pred == "HAS_PHENOTYPE" and obj in exc_ids) or (
                    pred == "NOT_HAS_PHENOTYPE" and any(self._slot_matches(f, obj, t.object) for f in obs_ids)
                ):
                    conflict.append((hop.index, t))
        numbers += [cites.triple(h, t) for h, t in support[:2]]
        against = [cites.triple(h, t) for h, t in conflict[:1]]
        passages: dict[str, tuple[int, TextEvidence]] = {}
        for hop in semantic.hops:
            for p in hop.passages:
                if (p.doc_id or p.ref_id) in passages or disease not in self._passage_diseases(p):
                    continue
                if any(self._credit(f, self._passage_terms(p)) for f in obs_ids):
                    passages[p.doc_id or p.ref_id] = (hop.index, p)
        numbers += [cites.passage(h, p) for h, p in list(passages.values())[:2]]
        return list(dict.fromkeys(numbers)), against

    def _diagnosis_paragraph(
        self,
        entries: Sequence[DifferentialEntry],
        agreement: Agreement,
        parsed: ParsedQuestion,
        against_numbers: Mapping[str, list[int]],
    ) -> str:
        if not entries:
            return (
                "No candidate disease could be ranked from the retrieved evidence for "
                f"{_join([f.label.lower() for f in self._observed(parsed)])}."
            )
        top = entries[0]
        via = " and ".join(
            {"relational": "the knowledge graph", "semantic": "the text passages"}[c] for c in top.channels
        )
        sentences = [
            f"The most likely diagnosis is {top.name}"
            + (f", supported by {_join([x.lower() for x in top.for_[:5]])}" if top.for_ else "")
            + (f" in {via}" if via else "")
            + f" {_markers(n for n in top.citations if n not in against_numbers.get(top.id, []))}".rstrip()
            + "."
        ]
        if top.against:
            marks = _markers(against_numbers.get(top.id, []))
            sentences.append(
                f"Against {top.name}: {_join([x.lower() for x in top.against[:3]])} "
                f"(absent in the patient but annotated for it, or present but curated as absent) {marks}".rstrip()
                + "."
            )
        others = [f"{e.name} {_markers(e.citations[:2])}".strip() for e in entries[1:4]]
        if others:
            sentences.append(f"Other candidates: {_join(others)}.")
        sentences.append(agreement.detail)
        return " ".join(sentences)

    def _contrast(
        self,
        parsed: ParsedQuestion,
        by_subject: Mapping[str, Mapping[str, list[tuple[int, KGTriple]]]],
        cites: _Citations,
    ) -> list[str]:
        """Shared and distinguishing annotated features of the two named diseases, from retrieved triples."""
        pair = [self.res.canonical_disease(x) for x in parsed.diseases][:2]
        if len(pair) < 2:
            return []
        rows = [
            {
                self._entity_id(t.object, t.object_id): (h, t)
                for h, t in by_subject.get(d, {}).get("HAS_PHENOTYPE", [])
            }
            for d in pair
        ]
        if not rows[0] or not rows[1]:
            return []

        def cited(ids: Iterable[str], side: int) -> str:
            best = sorted(ids, key=lambda i: -self.res.ic(i))[:4]
            return (
                _join([f"{rows[side][i][1].object} {_markers([cites.triple(*rows[side][i])])}" for i in best])
                or "none"
            )

        shared = rows[0].keys() & rows[1].keys()
        a, b = self.res.name(pair[0]), self.res.name(pair[1])
        return [
            f"Both {a} and {b} are annotated with {cited(shared, 0)}.",
            f"Only {a}: {cited(rows[0].keys() - shared, 0)}; only {b}: {cited(rows[1].keys() - shared, 1)}.",
        ]

    def _synthesise_lookup(
        self,
        parsed: ParsedQuestion,
        semantic: SemanticResult,
        relational: RelationalResult,
        semantic_answers: list[SubAnswer],
        relational_answers: list[SubAnswer],
    ) -> Synthesis:
        """Genes / features / compare / unknown: list what the triples state, with their citations."""
        cites = _Citations()
        subjects = {self.res.canonical_disease(d) for d in parsed.diseases}
        sentences: list[str] = []
        names = self._disease_names(parsed)
        by_subject: dict[str, dict[str, list[tuple[int, KGTriple]]]] = {}
        for hop in relational.hops:
            for t in hop.triples:
                s = self.res.canonical_disease(self._entity_id(t.subject, t.subject_id))
                by_subject.setdefault(s, {}).setdefault(normalise_predicate(t.predicate), []).append(
                    (hop.index, t)
                )
        wanted = {"genes": "ASSOCIATED_GENE", "features": "HAS_PHENOTYPE", "compare": "HAS_PHENOTYPE"}.get(
            parsed.kind
        )
        rel_top: list[str] = []
        if wanted:
            for d in [self.res.canonical_disease(x) for x in parsed.diseases][:2]:
                rows = sorted(by_subject.get(d, {}).get(wanted, []), key=lambda ht: -(ht[1].weight or 0.0))
                # one line per object: equivalent ids (OMIM, ORPHA) may state the same fact twice
                rows = list(
                    {self._entity_id(t.object, t.object_id): (h, t) for h, t in reversed(rows)}.values()
                )[::-1]
                if not rows:
                    sentences.append(
                        f"No retrieved triple states the {'genes' if wanted == 'ASSOCIATED_GENE' else 'features'} of {self.res.name(d)}."
                    )
                    continue
                listed = [f"{t.object} {_markers([cites.triple(h, t)])}" for h, t in rows[:8]]
                rel_top.extend(self._entity_id(t.object, t.object_id) for _, t in rows[:3])
                noun = "Genes associated with" if wanted == "ASSOCIATED_GENE" else "Annotated features of"
                sentences.append(f"{noun} {self.res.name(d)}: {', '.join(listed)}.")
                for pred, word in (("HAS_INHERITANCE", "Inheritance"), ("HAS_ONSET", "Onset")):
                    facts = by_subject.get(d, {}).get(pred, [])
                    if facts:
                        sentences.append(
                            f"{word}: {', '.join(f'{t.object} {_markers([cites.triple(h, t)])}' for h, t in facts[:3])}."
                        )
        if parsed.kind == "compare":
            sentences.extend(self._contrast(parsed, by_subject, cites))
        passages = [
            (hop.index, p)
            for hop in semantic.hops
            for p in hop.passages
            if not subjects or subjects & set(self._passage_diseases(p)[:1])  # the document's own disease
        ]
        if parsed.kind == "genes":
            named = {self.res.name(g) for g in rel_top}
            passages = [hp for hp in passages if named & set(_link_cached(self.res.linker, hp[1].text).genes)]
        if passages:
            h, p = passages[0]
            first = _SENTENCE.split(p.text.strip())[0]
            sentences.append(f"{first} {_markers([cites.passage(h, p)])}")
        wanted_kind = {"genes": "gene", "features": "phenotype", "compare": "phenotype"}.get(parsed.kind, "")
        sem_top = [e.id for a in semantic_answers for e in a.entities if _kind(e.id) == wanted_kind][:3]
        if not sentences:
            what = _join(names) if names else "the question"
            sentences.append(f"The retrieved evidence does not answer {what}.")
        agreement = _agreement(semantic, relational, sem_top, rel_top, self.res.name, "answer")
        sentences.append(agreement.detail)
        return Synthesis(
            answer=" ".join(sentences), differential=[], citations=cites.items, agreement=agreement
        )


# ---------------------------------------------------------------------- helpers


def _intent(sub_query: str) -> str:
    q = sub_query.lower()
    if re.search(r"\b(distinguish|differ|versus|compare)\w*", q):
        return "distinguish"
    if re.search(r"\bgenes?\b|inheritance", q):
        return "genes"
    if re.search(r"\b(features?|symptoms?|signs?|characteristic|manifestations?)\b", q):
        return "features"
    return "diseases"


def _kind(entity_id: str) -> str:
    """disease / phenotype / gene / other, from the id's prefix."""
    if is_disease(entity_id):
        return "disease"
    return {"HP": "phenotype", "NCBIGene": "gene"}.get(entity_id.split(":", 1)[0], "other")


def _open(slot: str) -> bool:
    """A slot still to be found: ``?`` or an unresolved placeholder."""
    s = slot.strip()
    return s in ("?", "") or s.startswith("Entity#")


def _last_diseases(answers: Sequence[SubAnswer]) -> list[RankedEntity]:
    """The latest hop's disease ranking (a later hop refines an earlier one)."""
    for a in reversed(answers):
        ranked = [e for e in a.entities if is_disease(e.id)]
        if ranked:
            return ranked
    return []


def _top(scores: Mapping[str, float], k: int = 3) -> list[str]:
    return sorted(scores, key=lambda d: (-scores[d], d))[:k]


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
            detail=f"The channels share {_join([label(d) for d in shared])} among their top three but differ on the first.",
        )
    return Agreement(
        status="disagree",
        detail=f"The text channel favours {label(sem_top[0])}, the knowledge-graph channel {label(rel_top[0])}.",
    )
