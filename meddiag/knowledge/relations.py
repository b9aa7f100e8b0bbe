"""Subject–Predicate–Object relations beyond disease→phenotype, and the per-disease view of them.

Provenance conventions (``Relation.sources``):

- annotation facts (inheritance, onset) carry the row's references (``PMID:…``,
  ``OMIM:…``, ``ORPHA:…``), merged over rows stating the same fact;
- ontology structure carries its curator: ``HPO`` (``hp.obo``) or ``MONDO``;
- gene–disease pairs carry ``HPO:genes_to_phenotype``.

`DiseaseFacts` gathers what is known about one disease (its outgoing relations, its
equivalences, and names for every entity they mention); profiles and hyperedges are
rendered from it, so they can be rendered again from whatever relations remain visible.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from meddiag.knowledge.annotations import Annotation, GeneDisease, frequency_band
from meddiag.knowledge.hpo import INHERITANCE_ROOT, ONSET_ROOT, Ontology
from meddiag.knowledge.model import Relation, visible
from meddiag.knowledge.mondo import LINK_EVIDENCE, MondoLinks, MondoTerm

HPO_SOURCE = "HPO"
MONDO_SOURCE = "MONDO"
GENES_SOURCE = "HPO:genes_to_phenotype"


def relation(
    subject: str,
    predicate: str,
    obj: str,
    *,
    sources: list[str],
    source_file: str,
    evidence: str = "",
    frequency: float | None = None,
    frequency_label: str = "",
) -> Relation:
    """A validated Relation (in pydantic 2.13 validation is about twice as fast as
    `model_construct`, which loops over fields in Python)."""
    return Relation(
        subject=subject,
        predicate=predicate,
        object=obj,
        frequency=frequency,
        frequency_label=frequency_label,
        evidence=evidence,
        sources=sources,
        source_file=source_file,
    )


def merge_relations(relations: Iterable[Relation]) -> list[Relation]:
    """One relation per (subject, predicate, object): sources united in first-seen order,
    evidence codes united, frequencies averaged. Order of first occurrence is kept."""
    merged: dict[tuple[str, str, str], list[Relation]] = {}
    for rel in relations:
        merged.setdefault((rel.subject, rel.predicate, rel.object), []).append(rel)
    out: list[Relation] = []
    for (subject, predicate, obj), group in merged.items():
        if len(group) == 1:
            out.append(group[0])
            continue
        sources = list(dict.fromkeys(s for r in group for s in r.sources))
        evidence = sorted({e for r in group for e in r.evidence.split(",") if e})
        freqs = [r.frequency for r in group if r.frequency is not None]
        freq = sum(freqs) / len(freqs) if freqs else None
        labels = [r.frequency_label for r in group if r.frequency is not None]
        label = labels[0] if len(labels) == 1 else (frequency_band(freq) if freq is not None else "")
        out.append(
            relation(
                subject,
                predicate,
                obj,
                sources=sources,
                source_file=group[0].source_file,
                evidence=",".join(evidence),
                frequency=freq,
                frequency_label=label,
            )
        )
    return out


def _annotation_relations(
    rows: Iterable[Annotation], ontology: Ontology, aspect: str, root: str, predicate: str
) -> list[Relation]:
    out: list[Relation] = []
    for row in rows:
        if row.aspect != aspect:
            continue
        term = ontology.resolve(row.hpo_id)
        if term is None or not ontology.is_under(term, root) or row.negated:
            continue
        out.append(
            relation(
                row.disease_id,
                predicate,
                term,
                sources=list(row.references or [row.disease_id]),
                source_file="phenotype.hpoa",
                evidence=row.evidence,
            )
        )
    return merge_relations(out)


def inheritance_relations(rows: Iterable[Annotation], ontology: Ontology) -> list[Relation]:
    """HAS_INHERITANCE from aspect-I rows."""
    return _annotation_relations(rows, ontology, "I", INHERITANCE_ROOT, "HAS_INHERITANCE")


def onset_relations(rows: Iterable[Annotation], ontology: Ontology) -> list[Relation]:
    """HAS_ONSET from aspect-C rows whose term is an onset term (clinical-course terms are skipped)."""
    return _annotation_relations(rows, ontology, "C", ONSET_ROOT, "HAS_ONSET")


def hpo_is_a_relations(ontology: Ontology, term_ids: Iterable[str]) -> list[Relation]:
    """IS_A between HPO terms, kept only where both ends are among `term_ids`."""
    included = set(term_ids)
    return [
        relation(term, "IS_A", parent, sources=[HPO_SOURCE], source_file="hp.obo")
        for term in sorted(included)
        for parent in ontology.terms[term].parents
        if parent in included
    ]


def gene_relations(pairs: Iterable[GeneDisease]) -> list[Relation]:
    """ASSOCIATED_GENE disease → gene."""
    return [
        relation(
            p.disease_id,
            "ASSOCIATED_GENE",
            p.gene_id,
            sources=[GENES_SOURCE],
            source_file="genes_to_phenotype.txt",
        )
        for p in pairs
    ]


def mondo_relations(
    links: MondoLinks,
    mondo: Mapping[str, MondoTerm],
    disease_ids: Iterable[str],
    class_ids: Iterable[str],
    mondo_file: str,
) -> list[Relation]:
    """EQUIVALENT_TO (disease ↔ its MONDO class; OMIM ↔ ORPHA sharing one) and IS_A
    (disease → its MONDO class's parents; MONDO class → parent class), within the included ids."""
    diseases = set(disease_ids)
    classes = set(class_ids)
    out: list[Relation] = []
    by_class: dict[str, list[str]] = defaultdict(list)
    for disease in sorted(diseases):
        mid = links.by_disease.get(disease)
        if mid is None or mid not in classes:
            continue
        by_class[mid].append(disease)
        how = LINK_EVIDENCE[links.how[disease]]
        out.append(
            relation(
                disease, "EQUIVALENT_TO", mid, sources=[MONDO_SOURCE], source_file=mondo_file, evidence=how
            )
        )
        for parent in mondo[mid].parents:
            if parent in classes:
                out.append(relation(disease, "IS_A", parent, sources=[MONDO_SOURCE], source_file=mondo_file))
    for mid, members in by_class.items():
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if a.split(":")[0] != b.split(":")[0]:
                    out.append(
                        relation(
                            a,
                            "EQUIVALENT_TO",
                            b,
                            sources=[MONDO_SOURCE],
                            source_file=mondo_file,
                            evidence=f"both linked to {mid}",
                        )
                    )
    for mid in sorted(classes):
        for parent in mondo[mid].parents:
            if parent in classes:
                out.append(relation(mid, "IS_A", parent, sources=[MONDO_SOURCE], source_file=mondo_file))
    return out


# --------------------------------------------------------------------------- per-disease view


@dataclass(frozen=True)
class DiseaseFacts:
    """What the knowledge base states about one disease, as relations plus the names they need.

    `relations` holds the disease's outgoing relations and the EQUIVALENT_TO relations that
    point at it; anything else is ignored by the renderers, so a retriever may pass
    `GraphStore.relations(disease_id)` as it comes.
    """

    disease_id: str
    name: str
    relations: tuple[Relation, ...]
    labels: Mapping[str, str]  # entity id -> display name, for every id the relations mention

    def label(self, entity_id: str) -> str:
        return self.labels.get(entity_id, entity_id)

    def visible_relations(self, exclude_sources: frozenset[str] = frozenset()) -> list[Relation]:
        """The relations that still rest on some source once `exclude_sources` are left out."""
        return [r for r in self.relations if visible(r.sources, exclude_sources)]


def facts_by_disease(
    relations: Iterable[Relation], disease_names: Mapping[str, str], labels: Mapping[str, str]
) -> dict[str, DiseaseFacts]:
    """Group relations into one `DiseaseFacts` per disease in `disease_names`."""
    grouped: dict[str, list[Relation]] = defaultdict(list)
    for rel in relations:
        if rel.subject in disease_names:
            grouped[rel.subject].append(rel)
        if rel.predicate == "EQUIVALENT_TO" and rel.object in disease_names:
            grouped[rel.object].append(rel)
    return {
        disease: DiseaseFacts(disease, disease_names[disease], tuple(grouped.get(disease, ())), labels)
        for disease in disease_names
    }
