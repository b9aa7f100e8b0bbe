"""The offline reasoner's semantic-channel steps: plan sub-queries, keep, summarise and answer from passages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import visible
from meddiag.reasoning.base import RankedEntity, SubAnswer
from meddiag.reasoning.offline_evidence import EvidenceReader, excluded, observed
from meddiag.reasoning.offline_params import OfflineParams
from meddiag.reasoning.resources import ReasoningResources
from meddiag.reasoning.text_match import (
    REF,
    entity_kind,
    intent,
    link_cached,
    query_words,
    sentences,
    text_words,
)
from meddiag.reasoning.wording import join_words
from meddiag.schema import ParsedQuestion, SemanticHop, TextEvidence

# What an inheritance or onset sub-query looks for: terms under this HPO branch.
_TERM_BRANCHES = {
    "inheritance": ("HP:0000005", "Modes of inheritance"),  # Mode of inheritance
    "onset": ("HP:0003674", "Ages of onset"),  # Onset
}


@lru_cache(maxsize=4)
def _branch_patterns(onto: Ontology, branch: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(term, label pattern) for the terms under an HPO branch, longest label first so that
    "autosomal dominant inheritance with maternal imprinting" is read before its prefix."""
    out = []
    for term in onto.descendants(branch) - {branch}:
        label = onto.label(term).lower()
        words = [label]
        if label.endswith(" inheritance") and label.count(" ") >= 2:
            words.append(label.removesuffix(" inheritance"))
        alternatives = "|".join(re.escape(w) for w in words)
        out.append((term, re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)))
    return tuple(sorted(out, key=lambda tp: -len(onto.label(tp[0]))))


class SemanticSteps:
    """Deterministic judgement over text passages; read-only, so thread-safe."""

    def __init__(
        self, resources: ReasoningResources, params: OfflineParams, evidence: EvidenceReader
    ) -> None:
        self.res = resources
        self.params = params
        self.ev = evidence

    def plan(self, parsed: ParsedQuestion) -> list[str]:
        names = [self.res.name(d) for d in parsed.diseases]
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
        if parsed.kind == "inheritance" and names:
            return [f"How is {names[0]} inherited?"]
        if parsed.kind == "onset" and names:
            return [f"At what age does {names[0]} begin (onset)?"]
        if parsed.kind == "gene_diseases" and parsed.genes:
            return [f"Which diseases are associated with {parsed.genes[0]}?"]
        if parsed.kind == "compare" and len(names) >= 2:
            return [
                f"What are the characteristic features of {names[0]}?",
                f"What are the characteristic features of {names[1]}?",
                "Which features distinguish #1 from #2?",
            ]
        seen = observed(parsed)
        if seen:
            labels = [
                self.res.in_sentence(f.label) for f in self.ev.informative(seen, self.params.plan_findings)
            ]
            return [
                f"Which diseases present with {join_words(labels)}?",
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
            kind = entity_kind(answer.entities[0].id)
            same = [e for e in answer.entities if entity_kind(e.id) == kind]
            return join_words([e.name for e in same[: self.params.follow_candidates]], "or")

        return REF.sub(sub, sub_query), list(dict.fromkeys(unresolved))

    # ------------------------------------------------------------------ keeping passages

    def _relevance(
        self,
        p: TextEvidence,
        parsed: ParsedQuestion,
        words: set[str],
        wanted: set[str],
        genes: set[str],
        seeks_disease: bool,
    ) -> float:
        """2 × IC-weighted share of findings the passage covers + 1.5 if it is about a wanted
        disease or names a wanted gene + the share of the sub-query's words it contains; halved
        for a passage that names no disease when the sub-query asks for diseases (a term
        definition cannot answer "which diseases …")."""
        terms = self.ev.passage_terms(p)
        seen = observed(parsed)
        total = sum(self.res.ic(f.hpo_id) for f in seen) or 1.0
        finding_part = sum(self.ev.credit(f.hpo_id, terms) for f in seen) / total
        word_part = len(words & text_words(f"{p.title} {p.text}")) / len(words) if words else 0.0
        diseases = set(self.ev.passage_diseases(p))
        names_gene = bool(genes) and bool(genes & set(link_cached(self.res.linker, p.text).genes))
        entity_part = 1.0 if wanted & diseases or names_gene else 0.0
        score = 2.0 * finding_part + 1.5 * entity_part + word_part
        return score * 0.5 if seeks_disease and not diseases else score

    def filter(
        self, sub_query: str, passages: list[TextEvidence], parsed: ParsedQuestion
    ) -> list[TextEvidence]:
        hidden = frozenset(parsed.exclude_sources)
        words = query_words(sub_query)
        named = [*parsed.diseases, *link_cached(self.res.linker, sub_query).disease_ids]
        wanted = {self.res.canonical_disease(d) for d in named}
        genes = set(link_cached(self.res.linker, sub_query).genes)
        seeks_disease = intent(sub_query) in ("diseases", "distinguish")
        scored = [
            (self._relevance(p, parsed, words, wanted, genes, seeks_disease), i, p)
            for i, p in enumerate(passages)
            if visible(p.provenance, hidden)
        ]
        kept = sorted((s for s in scored if s[0] >= 0.34), key=lambda s: (-s[0], s[1]))
        return [p for _, _, p in kept[: self.params.keep_passages]]

    def summarise(self, sub_query: str, passages: list[TextEvidence]) -> str:
        if not passages:
            return "No passage relevant to this sub-query was retrieved."
        words = query_words(sub_query)
        candidates: list[tuple[float, int, str]] = []
        for i, p in enumerate(passages):
            for k, sentence in enumerate(sentences(p.text)):
                overlap = len(words & text_words(sentence)) / (len(words) or 1)
                linked = len(link_cached(self.res.linker, sentence).findings)
                score = overlap + 0.1 * min(linked, 5) - 0.01 * k
                candidates.append((score, i, f"{sentence.strip()} [{p.doc_id or p.ref_id}]"))
        best = sorted(candidates, key=lambda c: (-c[0], c[1]))[: self.params.summary_sentences]
        return " ".join(text for _, _, text in best)

    # ------------------------------------------------------------------ answering

    def text_ranking(self, passages: Sequence[TextEvidence], parsed: ParsedQuestion) -> list[RankedEntity]:
        """Diseases the passages are about, scored by the IC-weighted share of findings their text covers.

        A passage's findings count for the disease it is about, not for every disease it
        names; "for" lists only findings its passages state (exactly or as a near relative in
        HPO), "against" the excluded findings they state.
        """
        seen = observed(parsed)
        absent = excluded(parsed)
        total = sum(self.res.ic(f.hpo_id) for f in seen) or 1.0
        best: dict[str, dict[str, float]] = {}
        support: dict[str, dict[str, None]] = {}
        against: dict[str, dict[str, float]] = {}
        for p in passages:
            terms, denied = self.ev.passage_findings(p)
            for d in self.ev.passage_subjects(p):
                row = best.setdefault(d, {})
                backed = support.setdefault(d, {})
                bad = against.setdefault(d, {})
                for f in seen:
                    row[f.label] = max(row.get(f.label, 0.0), self.ev.credit(f.hpo_id, terms))
                    if self.ev.supports(f.hpo_id, terms):
                        backed[f.label] = None
                    elif f.hpo_id in denied:  # the passage says the disease does not show it
                        bad[f.label] = max(bad.get(f.label, 0.0), self.res.ic(f.hpo_id))
                for f in absent:
                    if self.ev.supports(f.hpo_id, terms):
                        bad[f.label] = max(bad.get(f.label, 0.0), self.ev.credit(f.hpo_id, terms))
        out: list[RankedEntity] = []
        for d, row in best.items():
            score = (sum(row.values()) - 0.5 * sum(against[d].values())) / total
            out.append(
                RankedEntity(
                    id=d,
                    name=self.res.name(d),
                    score=round(score, 4),
                    for_=[f.label for f in seen if f.label in support[d]],
                    against=list(against[d]),
                )
            )
        out.sort(key=lambda e: (-e.score, e.id))
        return out[: self.params.answer_size]

    def answer(
        self, sub_query: str, summary: str, passages: list[TextEvidence], parsed: ParsedQuestion
    ) -> SubAnswer:
        if not passages:
            return SubAnswer(
                text="No retrieved passage addresses this sub-query.", entities=[], channel="semantic"
            )
        wants = intent(sub_query)
        if wants == "genes":
            return self._gene_answer(sub_query, passages)
        if wants == "features" and not observed(parsed):
            return self._feature_answer(sub_query, passages)
        if wants in _TERM_BRANCHES and not observed(parsed):
            return self._term_answer(sub_query, passages, wants)
        genes = link_cached(self.res.linker, sub_query).genes
        if genes and wants == "diseases" and not observed(parsed):
            # "Which diseases are associated with FBN1?": only passages that name the gene
            passages = [p for p in passages if set(genes) & set(link_cached(self.res.linker, p.text).genes)]
            if not passages:
                return SubAnswer(
                    text=f"No kept passage names {join_words(genes)}.", entities=[], channel="semantic"
                )
        ranked = self.text_ranking(passages, parsed)
        if not observed(parsed):
            # No patient findings to match: the diseases the passages are about, in passage order.
            about = list(dict.fromkeys(d for p in passages for d in self.ev.passage_diseases(p)))
            ranked = [RankedEntity(id=d, name=self.res.name(d), score=0.0) for d in about]
        if not ranked:
            return SubAnswer(text="The kept passages name no disease.", entities=[], channel="semantic")
        top = ranked[: self.params.follow_candidates]
        if observed(parsed):
            parts = [
                f"{e.name} (covers {join_words([self.res.in_sentence(x) for x in e.for_]) or 'none of the findings'})"
                for e in top
            ]
            text = f"Passages most consistent with the findings: {'; '.join(parts)}."
        else:
            text = f"The passages are about {join_words([e.name for e in top])}."
        if wants == "distinguish":
            # The pair the sub-query names, else the two best-supported diseases.
            named = self._about_named(sub_query, passages)[0]
            pair = named[:2] if len(named) >= 2 else [e.id for e in top[:2]]
            if len(pair) == 2:
                text += " " + self._distinguish_sentence(pair[0], pair[1])
        return SubAnswer(text=text, entities=ranked, channel="semantic")

    def _about_named(
        self, sub_query: str, passages: Sequence[TextEvidence]
    ) -> tuple[list[str], list[TextEvidence]]:
        """(the diseases the sub-query names, the passages about them — all passages when it
        names none): another disease's profile must not lend its features or genes to the
        disease asked about."""
        named = list(
            dict.fromkeys(
                row
                for d in link_cached(self.res.linker, sub_query).disease_ids
                if (row := self.ev.disease_row(d)) is not None
            )
        )
        if not named:
            return named, list(passages)
        return named, [p for p in passages if set(named) & set(self.ev.passage_subjects(p))]

    def _gene_answer(self, sub_query: str, passages: Sequence[TextEvidence]) -> SubAnswer:
        genes: list[str] = []
        for p in self._about_named(sub_query, passages)[1]:
            for g in link_cached(self.res.linker, p.text).genes:
                if g not in genes:
                    genes.append(g)
        if not genes:
            return SubAnswer(text="The kept passages name no gene.", entities=[], channel="semantic")
        entities = []
        for k, g in enumerate(genes[: self.params.answer_size]):
            gid = next((i for i in self.res.lookup(g) if i.startswith("NCBIGene:")), g)
            entities.append(RankedEntity(id=gid, name=g, score=round(1.0 / (k + 1), 4)))
        return SubAnswer(
            text=f"Genes named in the passages: {join_words(genes[:10])}.",
            entities=entities,
            channel="semantic",
        )

    def _feature_answer(self, sub_query: str, passages: Sequence[TextEvidence]) -> SubAnswer:
        """Features the passages about the named disease describe, in the order they state them
        (a generated profile lists the most frequent first), a feature stated by more of them
        ahead; the answer leads with the disease the sub-query names."""
        named, about = self._about_named(sub_query, passages)
        counts: dict[str, int] = {}
        for p in about:
            for f in dict.fromkeys(
                x.hpo_id for x in link_cached(self.res.linker, p.text).findings if not x.excluded
            ):
                counts[f] = counts.get(f, 0) + 1
        diseases = named or list(dict.fromkeys(d for p in passages for d in self.ev.passage_diseases(p)))
        order = {t: i for i, t in enumerate(counts)}  # first statement
        ranked = sorted(counts, key=lambda t: (-counts[t], order[t]))[: self.params.answer_size]
        labels = [self.res.in_sentence(self.res.ontology.label(t)) for t in ranked]
        entities = [RankedEntity(id=d, name=self.res.name(d), score=0.0) for d in diseases]
        entities += [
            RankedEntity(id=t, name=self.res.ontology.label(t), score=float(counts[t])) for t in ranked
        ]
        subject = self.res.name(diseases[0]) if diseases else "the disease"
        text = f"Features the passages describe for {subject}: {join_words(labels) or 'none recognised'}."
        return SubAnswer(text=text, entities=entities, channel="semantic")

    def _term_answer(self, sub_query: str, passages: Sequence[TextEvidence], wants: str) -> SubAnswer:
        """The modes of inheritance or ages of onset the passages about the named disease state.

        These terms sit outside HPO's phenotype branch, which the finding linker reads, so
        they are found by their labels ("autosomal dominant inheritance", "adult onset"; a
        mode of inheritance also without its last word, as in "an autosomal dominant pattern").
        """
        named, about = self._about_named(sub_query, passages)
        branch, what = _TERM_BRANCHES[wants]
        onto = self.res.ontology
        found: list[str] = []
        for p in about:
            text = p.text
            for term, pattern in _branch_patterns(onto, branch):
                text, hits = pattern.subn(" ", text)  # a longer label's words are not read again
                if hits and term not in found:
                    found.append(term)
        terms = found[: self.params.answer_size]
        subject = self.res.name(named[0]) if named else "the disease"
        entities = [RankedEntity(id=d, name=self.res.name(d), score=0.0) for d in named]
        entities += [RankedEntity(id=t, name=onto.label(t), score=1.0) for t in terms]
        labels = join_words([self.res.in_sentence(onto.label(t)) for t in terms])
        text = f"{what} the passages state for {subject}: {labels or 'none'}."
        return SubAnswer(text=text, entities=entities, channel="semantic")

    def _distinguish_sentence(self, a: str, b: str) -> str:
        fa = set(self.ev.features_of(a))
        fb = set(self.ev.features_of(b))
        only_a = self.res.most_specific(fa - fb, 3)
        only_b = self.res.most_specific(fb - fa, 3)
        label = self.res.ontology.label
        return (
            f"{self.res.name(a)} alone is annotated with {join_words([self.res.in_sentence(label(t)) for t in only_a]) or 'no distinct feature'}; "
            f"{self.res.name(b)} alone with {join_words([self.res.in_sentence(label(t)) for t in only_b]) or 'no distinct feature'}."
        )

    def draft_logic(self, hop: SemanticHop, parsed: ParsedQuestion) -> list[str]:
        steps = [f"Sub-query {hop.index}: {hop.grounded_query}"]
        if hop.unresolved:
            steps.append(f"Unresolved references {', '.join(hop.unresolved)}: no earlier answer to point to.")
        docs = [p.doc_id or p.ref_id for p in hop.passages]
        steps.append(
            f"Kept {len(docs)} passage(s) that mention the findings or the sub-query's terms: {', '.join(docs[:6])}."
        )
        wanted = {f.label.lower() for f in observed(parsed)}
        for p in hop.passages[:3]:
            named = [f.label.lower() for f in link_cached(self.res.linker, p.text).findings if not f.excluded]
            shared = sorted(set(named) & wanted)
            if shared:
                steps.append(f"{p.doc_id or p.ref_id} describes {join_words(shared)}.")
        if hop.sub_answer:
            steps.append(f"Therefore: {hop.sub_answer}")
        return steps
