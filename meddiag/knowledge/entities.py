"""Entities of the knowledge graph: diseases, HPO terms, genes and MONDO classes.

- Disease: an HPO-annotated disease (OMIM, ORPHA, DECIPHER id); its description comes from
  the MONDO class it is linked to, whose id is among its xrefs.
- Phenotype / Inheritance / Onset: HPO terms under Phenotypic abnormality, Mode of
  inheritance and Onset.
- Gene: ``NCBIGene:<id>`` named by its symbol.
- DiseaseClass: MONDO classes, i.e. the class a disease is linked to and its near ancestors
  (see `select_disease_classes`); only annotated diseases are of type Disease, so the
  differential never ranks a grouping class.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from meddiag.knowledge.annotations import GeneDisease
from meddiag.knowledge.hpo import INHERITANCE_ROOT, ONSET_ROOT, PHENOTYPIC_ABNORMALITY, Ontology, Term
from meddiag.knowledge.model import Entity, EntityType
from meddiag.knowledge.mondo import MondoLinks, MondoTerm
from meddiag.knowledge.relations import GENES_SOURCE, HPO_SOURCE, MONDO_SOURCE

# MONDO classes this close to the root ("disease", "human disease", "disease by body
# system") say nothing about a disease; an ancestor farther than a direct parent needs at
# least this many ancestors of its own.
MIN_CLASS_DEPTH = 3
# How far above a linked class its ancestors are still included.
MAX_CLASS_DISTANCE = 2


def hpo_entity_type(ontology: Ontology, term_id: str) -> EntityType | None:
    """Which entity type an HPO term becomes; None for branches the graph does not use
    (frequency, clinical modifier, blood group, …)."""
    ancestors = ontology.ancestors(term_id)
    if PHENOTYPIC_ABNORMALITY in ancestors:
        return "Phenotype"
    if INHERITANCE_ROOT in ancestors:
        return "Inheritance"
    if ONSET_ROOT in ancestors:
        return "Onset"
    return None


def _hpo_entity(term: Term, entity_type: EntityType) -> Entity:
    return Entity(
        id=term.id,
        type=entity_type,
        name=term.name,
        description=term.definition,
        synonyms=list(term.synonyms),
        xrefs=list(term.xrefs),
        sources=[HPO_SOURCE],
    )


def hpo_entities(ontology: Ontology, term_ids: Iterable[str]) -> list[Entity]:
    """Entities for the given current HPO terms, skipping unused branches; sorted by id."""
    out = []
    for tid in sorted(set(term_ids)):
        entity_type = hpo_entity_type(ontology, tid)
        if entity_type is not None:
            out.append(_hpo_entity(ontology.terms[tid], entity_type))
    return out


def all_hpo_term_ids(ontology: Ontology) -> set[str]:
    """Every current term the graph uses (phenotypes, inheritance and onset terms)."""
    return {tid for tid in ontology.terms if hpo_entity_type(ontology, tid) is not None}


def with_ancestors(ontology: Ontology, term_ids: Iterable[str]) -> set[str]:
    """The terms and all their ancestors, so the IS_A hierarchy above them is complete."""
    out: set[str] = set()
    for tid in term_ids:
        out |= ontology.ancestors(tid)
    return out


def disease_entities(
    diseases: Mapping[str, str],
    links: MondoLinks,
    mondo: Mapping[str, MondoTerm],
    equivalents: Mapping[str, list[str]],
) -> list[Entity]:
    """One Disease per id in `diseases` (id -> name), described by its linked MONDO class."""
    out = []
    for did in sorted(diseases):
        mid = links.by_disease.get(did)
        term = mondo.get(mid) if mid else None
        xrefs = ([mid] if mid else []) + sorted(equivalents.get(did, []))
        out.append(
            Entity(
                id=did,
                type="Disease",
                name=diseases[did],
                description=term.description if term else "",
                synonyms=[s for s in term.synonyms if s != diseases[did]] if term else [],
                xrefs=xrefs,
                sources=[HPO_SOURCE, MONDO_SOURCE] if term else [HPO_SOURCE],
            )
        )
    return out


def gene_entities(pairs: Iterable[GeneDisease]) -> list[Entity]:
    genes: dict[str, str] = {}
    for p in pairs:
        genes.setdefault(p.gene_id, p.symbol)
    return [
        Entity(
            id=gid,
            type="Gene",
            name=symbol,
            description="",
            synonyms=[],
            xrefs=[],
            sources=[GENES_SOURCE],
        )
        for gid, symbol in sorted(genes.items())
    ]


def select_disease_classes(
    linked: Iterable[str],
    mondo: Mapping[str, MondoTerm],
    *,
    max_distance: int = MAX_CLASS_DISTANCE,
    min_depth: int = MIN_CLASS_DEPTH,
) -> set[str]:
    """The linked MONDO classes, their direct parents, and their farther ancestors up to
    `max_distance` that have at least `min_depth` ancestors themselves.

    A direct parent is kept however general it is: it is where MONDO files the disease,
    and the ranker's phenotypic series (diseases sharing a direct parent are siblings). The
    susceptibility branch is only two levels deep ("migraine with or without aura,
    susceptibility to" has two ancestors), so a depth rule dropped whole series there, and
    the ranker's defaults were tuned with every direct parent (`bench/rank_accuracy.py`).
    """
    out: set[str] = set()
    for mid in linked:
        term = mondo.get(mid)
        if term is None:
            continue
        out.add(mid)
        for anc, dist in term.ancestors.items():
            anc_term = mondo.get(anc)
            if anc_term is None or dist > max_distance:
                continue
            if dist == 1 or len(anc_term.ancestors) >= min_depth:
                out.add(anc)
    return out


def disease_class_entities(
    class_ids: Iterable[str], mondo: Mapping[str, MondoTerm], members: Mapping[str, list[str]]
) -> list[Entity]:
    """DiseaseClass entities; `members` (class -> linked disease ids) become their xrefs."""
    return [
        Entity(
            id=mid,
            type="DiseaseClass",
            name=mondo[mid].label,
            description=mondo[mid].description,
            synonyms=[s for s in mondo[mid].synonyms if s != mondo[mid].label],
            xrefs=sorted(members.get(mid, [])),
            sources=[MONDO_SOURCE],
        )
        for mid in sorted(class_ids)
    ]
