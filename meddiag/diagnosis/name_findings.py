"""Findings a disease's own name states, as weak phenotype facts for the ranker.

Many catalogue names carry the disease's defining finding: "Hyperammonemia due to carbonic
anhydrase VA deficiency", "Deafness, autosomal recessive 102", "Spinocerebellar ataxia 29",
"Developmental and epileptic encephalopathy 4". A clinician reads them so, and the facts
are the catalogue's, not any case report's: they stay visible when a publication is left
out (their source is the disease's own id). They are read with the phrase index only (no
embedding search), only as present (a finding the name negates — "without seizures" — is
not a fact), and only for diseases that already have a curated phenotype: a name alone
does not make a disease a candidate. The ranker counts them in a profile's matches but not
among its visible features, so they change neither how much a profile borrows from its
phenotypic series nor whether it is empty (`PhenotypeIndex`).

Measured (`bench/rank_accuracy.py`, in-KB, leave-publication-out): `bench/HISTORY.md`,
ranking item 17.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from meddiag.diagnosis.linking import PhraseLinker
from meddiag.knowledge.model import Relation

# `Relation.source_file` of a fact read from a disease's name: how the index tells them apart.
NAME_SOURCE_FILE = "disease name"


def name_findings(
    linker: PhraseLinker,
    names: Mapping[str, str],
    annotated: Collection[str],
    prefixes: Sequence[str] = ("OMIM",),
) -> list[Relation]:
    """HAS_PHENOTYPE facts for the findings each name states, for the `annotated` diseases
    whose id has one of `prefixes` (the ranker's candidates)."""
    out: list[Relation] = []
    for disease, name in names.items():
        if disease not in annotated or disease.split(":", 1)[0] not in prefixes:
            continue
        terms = dict.fromkeys(f.hpo_id for f in linker.link(name).findings if not f.excluded)
        out.extend(
            Relation(
                subject=disease,
                predicate="HAS_PHENOTYPE",
                object=term,
                sources=[disease],
                source_file=NAME_SOURCE_FILE,
            )
            for term in terms
        )
    return out


def with_name_findings(
    linker: PhraseLinker, relations: Sequence[Relation], names: Mapping[str, str]
) -> list[Relation]:
    """`relations` plus the findings the names of their annotated diseases state."""
    annotated = {r.subject for r in relations if r.predicate == "HAS_PHENOTYPE"}
    return [*relations, *name_findings(linker, names, annotated)]
