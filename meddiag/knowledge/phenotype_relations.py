"""Disease–phenotype relations from HPO annotations, one per (disease, predicate, term).

Several annotation rows may state the same fact from different references; they merge
into one relation whose `sources` is the union (so leaving one publication out keeps the
fact when another source supports it) and whose frequency is their mean.
"""

from __future__ import annotations

from collections.abc import Iterable

from meddiag.knowledge.annotations import Annotation, frequency_band
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Relation


def phenotype_relations(rows: Iterable[Annotation], ontology: Ontology) -> list[Relation]:
    """HAS_PHENOTYPE / NOT_HAS_PHENOTYPE relations for phenotypic-abnormality annotations (aspect P)."""
    merged: dict[tuple[str, str, str], tuple[list[str], list[float], set[str], list[str]]] = {}
    for row in rows:
        if row.aspect != "P":
            continue
        term = ontology.resolve(row.hpo_id)
        if term is None:
            continue
        predicate = "NOT_HAS_PHENOTYPE" if row.negated else "HAS_PHENOTYPE"
        key = (row.disease_id, predicate, term)
        sources, freqs, evidence, labels = merged.setdefault(key, ([], [], set(), []))
        for ref in row.references or [row.disease_id]:
            if ref not in sources:
                sources.append(ref)
        if row.frequency is not None:
            freqs.append(row.frequency)
            labels.append(row.frequency_label)
        if row.evidence:
            evidence.add(row.evidence)
    relations = []
    for (disease, predicate, term), (sources, freqs, evidence, labels) in merged.items():
        freq = sum(freqs) / len(freqs) if freqs else None
        label = labels[0] if len(labels) == 1 else (frequency_band(freq) if freq is not None else "")
        relations.append(
            Relation(
                subject=disease,
                predicate=predicate,
                object=term,
                frequency=freq,
                frequency_label=label,
                evidence=",".join(sorted(evidence)),
                sources=sources,
                source_file="phenotype.hpoa",
            )
        )
    return relations
