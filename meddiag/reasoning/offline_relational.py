"""The offline reasoner's relational-channel steps: SPO patterns, triple filtering and ranked answers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from meddiag.diagnosis import ranking
from meddiag.knowledge.model import visible
from meddiag.reasoning.base import RankedEntity, SubAnswer
from meddiag.reasoning.offline_evidence import (
    UNSTATED_FREQUENCY,
    EvidenceReader,
    excluded,
    most_frequent_first,
    observed,
)
from meddiag.reasoning.offline_params import OfflineParams
from meddiag.reasoning.resources import ReasoningResources
from meddiag.reasoning.text_match import PLACEHOLDER, is_disease, is_open_slot, normalise_predicate
from meddiag.reasoning.wording import join_words
from meddiag.schema import KGEvidence, KGTriple, ParsedQuestion, RelationalHop, TriplePattern

# Shown with a candidate that no reported finding matches: the ranker placed it on the
# features the case reports examined and absent, which published cases list for the
# diagnosis under consideration (`ranking` step 3).
ONLY_EXAMINED_ABSENT = (
    "no reported finding matches it: ranked on the features examined and reported absent, "
    "which case descriptions list for a diagnosis under consideration"
)

_FACT_TEMPLATES = {
    "ASSOCIATED_GENE": "gene {}",
    "HAS_INHERITANCE": "inheritance {}",
    "HAS_ONSET": "onset {}",
    "NOT_HAS_PHENOTYPE": "curated as never showing {}",
    "CONFLICT": "annotated with {}, which the patient does not have",
}


class RelationalSteps:
    """Deterministic judgement over SPO triples; read-only, so thread-safe."""

    def __init__(
        self, resources: ReasoningResources, params: OfflineParams, evidence: EvidenceReader
    ) -> None:
        self.res = resources
        self.params = params
        self.ev = evidence

    def plan(self, parsed: ParsedQuestion, initial: KGEvidence) -> list[list[TriplePattern]]:
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
        for kind, predicate in (("inheritance", "HAS_INHERITANCE"), ("onset", "HAS_ONSET")):
            if parsed.kind == kind and diseases:
                return [[P(subject=diseases[0], predicate=predicate, object="?")]]
        if parsed.kind == "gene_diseases":
            genes = [g for g in (self._gene_id(s) for s in parsed.genes) if g]
            return (
                [[P(subject="?", predicate="ASSOCIATED_GENE", object=g) for g in genes[:2]]] if genes else []
            )
        if parsed.kind == "compare" and len(diseases) >= 2:
            return [
                [P(subject=diseases[0], predicate="HAS_PHENOTYPE", object="?")],
                [P(subject=diseases[1], predicate="HAS_PHENOTYPE", object="?")],
            ]
        seen = observed(parsed)
        if not seen:
            return []
        absent = excluded(parsed)
        hop1 = [
            P(subject="Entity#1", predicate="HAS_PHENOTYPE", object=f.hpo_id)
            for f in self.ev.informative(seen, self.params.plan_findings + 1)
        ]
        hop2 = [P(subject="Entity#1", predicate="NOT_HAS_PHENOTYPE", object=f.hpo_id) for f in absent[:2]]
        hop2 += [P(subject="Entity#1", predicate="HAS_PHENOTYPE", object=f.hpo_id) for f in absent[:2]]
        hop2.append(P(subject="Entity#1", predicate="HAS_ONSET", object="?"))
        hop3 = [
            P(subject="Entity#2", predicate="ASSOCIATED_GENE", object="?"),
            P(subject="Entity#2", predicate="HAS_INHERITANCE", object="?"),
        ]
        return [hop1, hop2, hop3]

    def _gene_id(self, symbol: str) -> str | None:
        return next((i for i in self.res.lookup(symbol) if i.startswith("NCBIGene:")), None)

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
                m = PLACEHOLDER.match(slot.strip())
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

    # ------------------------------------------------------------------ keeping triples

    def _matches(self, pattern: TriplePattern, t: KGTriple, pred: str, subject: str, obj: str) -> bool:
        """Does the triple (its normalised predicate and slot ids given) fit the pattern?"""
        if normalise_predicate(pattern.predicate) != pred:
            return False
        return self.ev.slot_matches(pattern.subject, subject, t.subject) and self.ev.slot_matches(
            pattern.object, obj, t.object
        )

    def filter(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> tuple[list[KGTriple], int]:
        hidden = frozenset(parsed.exclude_sources)
        kept: list[KGTriple] = []
        seen: set[str] = set()
        for t in triples:
            if t.key in seen:
                continue
            if not visible(t.provenance, hidden):
                continue
            pred = normalise_predicate(t.predicate)
            if (
                pred == "HAS_PHENOTYPE"
                and t.frequency is not None
                and t.frequency < self.params.min_frequency
            ):
                continue
            subject = self.ev.entity_id(t.subject, t.subject_id)
            obj = self.ev.entity_id(t.object, t.object_id)
            if not any(self._matches(p, t, pred, subject, obj) for p in patterns):
                continue
            seen.add(t.key)
            kept.append(t)
        return kept, len(triples) - len(kept)

    def summarise(self, triples: list[KGTriple]) -> str:
        if not triples:
            return "No triple matched the patterns."
        groups: dict[tuple[str, str], list[str]] = {}
        for t in triples:
            obj = t.object
            if normalise_predicate(t.predicate) == "HAS_PHENOTYPE" and t.frequency is not None:
                obj = f"{obj} ({t.frequency:.0%})"
            groups.setdefault(
                (t.subject, normalise_predicate(t.predicate).lower().replace("_", " ")), []
            ).append(obj)
        lines = [
            f"{s} {p}: {', '.join(objs[:8])}{' …' if len(objs) > 8 else ''}"
            for (s, p), objs in groups.items()
        ]
        return "; ".join(lines[:12]) + ("; …" if len(lines) > 12 else "") + "."

    # ------------------------------------------------------------------ answering

    def rank(
        self, parsed: ParsedQuestion, candidates: Iterable[str] | None, top_k: int
    ) -> list[RankedEntity]:
        """The ranker's differential as entities: "for" names only well-matched findings.

        The ranker credits a finding through any shared ancestor; a match through a term
        much broader than the finding (ectopia lentis ~ abnormality of the eye) still adds
        a little to the score but is not named as support.
        """
        seen = [f.hpo_id for f in observed(parsed)]
        if not seen:
            return []
        ranked = ranking.rank_diseases(
            self.res.index,
            seen,
            [f.hpo_id for f in excluded(parsed)],
            age_years=parsed.age_years,
            sex=parsed.sex,
            onset=parsed.onset,
            exclude_sources=frozenset(parsed.exclude_sources),
            candidates=None if candidates is None else list(candidates),
            genes=self.res.diseases_of_genes(parsed.variant_genes) if parsed.variant_genes else None,
            top_k=top_k,
        )
        share, rare = self.params.support_ic_share, self.params.min_frequency
        label = self.res.ontology.label
        out: list[RankedEntity] = []
        for r in ranked:
            # A candidate matching no finding is not evidence of anything, unless the ranker
            # scored it through its series because its own facts are hidden or missing, on
            # features the case reports examined and absent (published cases list those of the
            # diagnosis considered: the ranker's step 3), or because the question names a gene
            # of it. Judged on the phenotype fit, before priors.
            considered = any(c.kind == "excluded_but_expected" for c in r.against)
            if not r.genes and (r.score - r.prior <= 0 or not (r.for_ or r.series or considered)):
                continue
            close = [m for m in r.for_ if m.ic >= share * self.res.ic(m.finding)]
            # A feature annotated as (almost) never seen ("absent in the patients studied (0%)")
            # speaks against the disease when the patient has it, and an excluded one is no conflict.
            strong = [m.finding_label for m in close if not m.seen_rarely(rare)]
            denied = [m.finding_label for m in close if m.seen_rarely(rare)]
            conflicts = [
                c.listed
                for c in r.against
                if c.is_finding and (c.kind != "excluded_but_expected" or c.frequency >= rare)
            ]
            caveats = [c.finding_label for c in r.against if not c.is_finding]
            if not r.for_ and not r.series and not r.genes:
                caveats.insert(0, ONLY_EXAMINED_ABSENT)
            out.append(
                RankedEntity(
                    id=r.id,
                    name=r.name,
                    score=float(r.score),  # full precision: the ranker's order, ties included, must survive
                    for_=list(dict.fromkeys(strong)),
                    against=list(dict.fromkeys([*conflicts, *(x for x in denied if x not in strong)])),
                    caveats=caveats,
                    absent=[label(t) for t in self._unreported(r.absent, seen)],
                    series=self._named(r.series),
                    series_role=r.series_role,
                    series_class=self._named(r.series_class),
                    genes=list(r.genes),
                )
            )
        return out

    def _named(self, entity_id: str) -> str:
        """The id as "Name (id)"; the bare id where the knowledge base has no name for it (a
        grouping class of a graph built without them); "" for none."""
        name = self.res.name(entity_id) if entity_id else ""
        return f"{name} ({entity_id})" if name and name != entity_id else entity_id

    def _unreported(self, features: Iterable[str], findings: Sequence[str]) -> list[str]:
        """Frequent disease features the patient lacks, most specific first.

        A feature the patient has in a nearly as specific form (tall stature for disproportionate
        tall stature) is not lacking; a vague finding (a skeletal anomaly) does not hide one.
        """
        onto = self.res.ontology
        share = self.params.support_ic_share

        def reported(t: str) -> bool:
            return any(
                f == t or (f in onto.ancestors(t) and self.res.ic(f) >= share * self.res.ic(t))
                for f in findings
            )

        return sorted((t for t in features if not reported(t)), key=lambda t: -self.res.ic(t))

    def answer(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> SubAnswer:
        predicates = {normalise_predicate(p.predicate) for p in patterns}
        if parsed.kind == "diagnosis" and observed(parsed):
            return self._diagnosis_answer(patterns, triples, parsed)
        # The unknown side: subjects when every pattern fixes its object and leaves the subject open.
        reverse = (
            all(is_open_slot(p.subject) and not is_open_slot(p.object) for p in patterns)
            if patterns
            else False
        )
        if "ASSOCIATED_GENE" in predicates:
            what = "Diseases associated with" if reverse else "Genes"
            return self._objects_answer(triples, "ASSOCIATED_GENE", what, reverse=reverse)
        if "HAS_PHENOTYPE" in predicates:
            what = "Diseases with" if reverse else "Features"
            return self._objects_answer(triples, "HAS_PHENOTYPE", what, reverse=reverse)
        for predicate, what in (("HAS_INHERITANCE", "Mode of inheritance"), ("HAS_ONSET", "Age of onset")):
            if predicate in predicates:
                return self._objects_answer(triples, predicate, what, reverse=reverse)
        return self._objects_answer(triples, None, "Facts", reverse=reverse)

    def _diagnosis_answer(
        self, patterns: list[TriplePattern], triples: list[KGTriple], parsed: ParsedQuestion
    ) -> SubAnswer:
        named = [p.subject for p in patterns if is_disease(p.subject.strip())]
        size = self.params.answer_size
        if named:
            # A later hop about given candidates: re-rank exactly those with all findings.
            ranked = self.rank(parsed, {self.res.canonical_disease(d) for d in named}, len(named))
        else:
            seen = {
                self.res.canonical_disease(self.ev.entity_id(t.subject, t.subject_id))
                for t in triples
                if normalise_predicate(t.predicate) == "HAS_PHENOTYPE"
            }
            own = self.rank(parsed, None, size)
            # Explaining a candidate is the costly part of ranking: do each one once, and only
            # for the few retrieved candidates that can still fill a place left in the top `size`
            # (twice as many, since `rank` drops candidates no finding supports).
            rest = seen - {e.id for e in own}
            from_triples = self.rank(parsed, rest, min(len(rest), 2 * size)) if rest else []
            merged = {e.id: e for e in [*own, *from_triples]}
            ranked = sorted(merged.values(), key=lambda e: (-e.score, e.id))[:size]
        if not ranked:
            return SubAnswer(
                text="No candidate disease matches the findings.", entities=[], channel="relational"
            )
        support = self.triple_support(triples, parsed)
        parts = []
        for e in ranked[: self.params.follow_candidates]:
            matches = join_words([self.res.in_sentence(x) for x in e.for_][:4]) or "no finding"
            found = "" if named else f"; {support.get(e.id, 0)} retrieved triple(s)"
            gene = f"; gene {join_words(e.genes)} named" if e.genes else ""
            parts.append(f"{e.name} (score {e.score:g}{found}{gene}; matches {matches})")
        lead = "Candidates re-ranked with all findings" if named else "Phenotype-similarity ranking"
        text = f"{lead}: " + "; ".join(parts) + "."
        extra = self._facts_sentence(triples, ranked[: self.params.follow_candidates], parsed)
        return SubAnswer(text=f"{text} {extra}".strip(), entities=ranked, channel="relational")

    def triple_support(self, triples: Iterable[KGTriple], parsed: ParsedQuestion) -> dict[str, int]:
        """Per candidate, how many retrieved HAS_PHENOTYPE triples match an observed finding."""
        seen = [f.hpo_id for f in observed(parsed)]
        out: dict[str, int] = {}
        for t in triples:
            if normalise_predicate(t.predicate) != "HAS_PHENOTYPE":
                continue
            obj = self.ev.entity_id(t.object, t.object_id)
            if any(self.ev.slot_matches(f, obj, t.object) for f in seen):
                d = self.res.canonical_disease(self.ev.entity_id(t.subject, t.subject_id))
                out[d] = out.get(d, 0) + 1
        return out

    def _facts_sentence(
        self, triples: Sequence[KGTriple], entities: Sequence[RankedEntity], parsed: ParsedQuestion
    ) -> str:
        """Genes, inheritance, onset and conflicts stated by the retrieved triples for the top candidates."""
        wanted = {e.id for e in entities}
        absent = {f.hpo_id for f in excluded(parsed)}
        facts: dict[str, dict[str, list[str]]] = {}
        for t in triples:
            pred = normalise_predicate(t.predicate)
            if pred == "HAS_PHENOTYPE" and self.ev.entity_id(t.object, t.object_id) in absent:
                pred = "CONFLICT"
            if pred not in _FACT_TEMPLATES:
                continue
            d = self.res.canonical_disease(self.ev.entity_id(t.subject, t.subject_id))
            if d in wanted:
                facts.setdefault(d, {}).setdefault(pred, []).append(t.object)
        out = []
        for e in entities:
            if e.id in facts:
                bits = [
                    _FACT_TEMPLATES[p].format(", ".join(dict.fromkeys(v))) for p, v in facts[e.id].items()
                ]
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
        rows.sort(key=most_frequent_first)
        entities: list[RankedEntity] = []
        for t in rows:
            name, given, other = (
                (t.subject, t.subject_id, t.object) if reverse else (t.object, t.object_id, t.subject)
            )
            oid = self.ev.entity_id(name, given)
            if all(e.id != oid for e in entities):
                entities.append(
                    RankedEntity(
                        id=oid,
                        name=name,
                        score=float(UNSTATED_FREQUENCY if t.frequency is None else t.frequency),
                        **{"for": [other]},
                    )
                )
        shown = [e.name for e in entities[: self.params.answer_size]]
        subjects = list(dict.fromkeys(t.object if reverse else t.subject for t in rows))
        # "Genes for Marfan syndrome: …", or with the unknown subject "Diseases associated with FBN1: …"
        link = " " if reverse else " for "
        more = " …" if len(entities) > len(shown) else ""
        text = f"{what}{link}{join_words(subjects[:3])}: {', '.join(shown)}{more}."
        return SubAnswer(text=text, entities=entities[: self.params.answer_size * 3], channel="relational")

    def draft_logic(self, hop: RelationalHop, parsed: ParsedQuestion) -> list[str]:
        steps = [f"Hop {hop.index} patterns: {'; '.join(str(p) for p in hop.triple_queries)}"]
        if hop.resolved_queries != hop.triple_queries:
            steps.append(f"Resolved: {'; '.join(str(p) for p in hop.resolved_queries[:6])}")
        if hop.unresolved:
            steps.append(f"Unresolved placeholders {', '.join(hop.unresolved)}: no earlier answer to bind.")
        steps.append(
            f"Kept {len(hop.triples)} triple(s) matching a pattern; dropped {hop.dropped} "
            "(no pattern matched, low frequency, or resting only on excluded sources)."
        )
        support = self.triple_support(hop.triples, parsed)
        for d, n in sorted(support.items(), key=lambda kv: -kv[1])[:3]:
            steps.append(f"{self.res.name(d)} is linked to the findings by {n} triple(s).")
        if hop.sub_answer:
            steps.append(f"Therefore: {hop.sub_answer}")
        return steps
