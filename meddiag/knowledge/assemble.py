"""Assemble the knowledge base's content from the source files: entities, relations,
hyperedges, documents and chunks, ready for the stores (nothing here touches a store).

Profiles: ``full`` keeps every annotated disease and every HPO term; ``demo`` keeps the
diseases `demo.select_demo_diseases` picks, the HPO terms they use with all their
ancestors, and what hangs off them (genes, MONDO classes, documents, hyperedges).
"""

from __future__ import annotations

import gc
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

from meddiag.knowledge.annotations import parse_gene_diseases, parse_hpoa, scan_hpoa
from meddiag.knowledge.demo import select_demo_diseases
from meddiag.knowledge.disease_names import readable_name
from meddiag.knowledge.documents import chunk_document, hpo_document, mondo_document, profile_document
from meddiag.knowledge.entities import (
    all_hpo_term_ids,
    disease_class_entities,
    disease_entities,
    gene_entities,
    hpo_entities,
    select_disease_classes,
    with_ancestors,
)
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.hyperedges import disease_hyperedges
from meddiag.knowledge.model import Chunk, Document, Entity, Hyperedge, KnowledgeBase, Relation
from meddiag.knowledge.mondo import LINK_KINDS, MondoTerm, link_mondo, parse_mondo
from meddiag.knowledge.phenotype_relations import phenotype_relations
from meddiag.knowledge.relations import (
    facts_by_disease,
    gene_relations,
    hpo_is_a_relations,
    inheritance_relations,
    mondo_relations,
    onset_relations,
)
from meddiag.knowledge.sources import SourceFiles

Progress = Callable[[str, float], None]


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Assembly allocates millions of small objects that all live on; the cyclic collector
    would rescan them again and again (it roughly doubles parse time) without freeing any."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def assemble_kb(
    sources: SourceFiles,
    profile: Literal["demo", "full"],
    progress: Progress | None = None,
) -> KnowledgeBase:
    """Everything a build writes to the stores, from HPO and MONDO files.

    `progress(message, fraction)` is called between steps (fraction in [0, 1]).
    """
    if profile not in ("demo", "full"):
        raise ValueError(f"unknown knowledge-base profile {profile!r} (expected 'demo' or 'full')")
    with _gc_paused():
        return _assemble(sources, profile, progress or (lambda _msg, _frac: None))


def _assemble(sources: SourceFiles, profile: Literal["demo", "full"], progress: Progress) -> KnowledgeBase:
    started = time.perf_counter()
    progress("Reading the HPO ontology", 0.0)
    ontology = Ontology.from_obo(sources.hp_obo)
    progress("Reading HPO disease annotations", 0.08)
    index = scan_hpoa(sources.phenotype_hpoa)
    progress("Reading MONDO and linking diseases", 0.2)
    mondo = parse_mondo(sources.mondo_json_zst)
    links = link_mondo(mondo, index.names)
    progress("Choosing diseases", 0.3)
    if profile == "demo":
        disease_ids = set(select_demo_diseases(index.phenotypes, links.by_disease))
        annotations = parse_hpoa(sources.phenotype_hpoa, disease_ids)
    else:
        disease_ids = set(index.names)
        annotations = parse_hpoa(sources.phenotype_hpoa)
    progress("Reading gene–disease pairs", 0.45)
    gene_pairs = parse_gene_diseases(sources.genes_to_phenotype)
    names = {
        d: readable_name(index.names[d], mondo[links.by_disease[d]].label if d in links.by_disease else None)
        for d in disease_ids
    }
    rows = annotations.rows
    pairs = [p for p in gene_pairs if p.disease_id in disease_ids]

    progress("Deriving relations", 0.55)
    disease_relations = [
        *phenotype_relations(rows, ontology),
        *inheritance_relations(rows, ontology),
        *onset_relations(rows, ontology),
        *gene_relations(pairs),
    ]
    annotation_rows, skipped_rows, hpoa_version = len(rows), annotations.skipped, annotations.version
    del annotations, rows, index  # ~270k rows in full: free them before building the rest
    if profile == "full":
        term_ids = all_hpo_term_ids(ontology)
    else:
        used = {r.object for r in disease_relations if r.predicate != "ASSOCIATED_GENE"}
        term_ids = with_ancestors(ontology, used)
    hpo_ents = hpo_entities(ontology, term_ids)
    term_ids = {e.id for e in hpo_ents}

    linked = {d: m for d, m in links.by_disease.items() if d in disease_ids}
    class_ids = select_disease_classes(linked.values(), mondo)
    relations = [
        *disease_relations,
        *hpo_is_a_relations(ontology, term_ids),
        *mondo_relations(links, mondo, disease_ids, class_ids, sources.mondo_json_zst.name),
    ]

    progress("Building entities", 0.65)
    equivalents: dict[str, list[str]] = defaultdict(list)
    for rel in relations:
        if rel.predicate == "EQUIVALENT_TO" and rel.subject in disease_ids and rel.object in disease_ids:
            equivalents[rel.subject].append(rel.object)
            equivalents[rel.object].append(rel.subject)
    members: dict[str, list[str]] = defaultdict(list)
    for d, m in linked.items():
        members[m].append(d)
    entities: list[Entity] = [
        *disease_entities(names, links, mondo, equivalents),
        *hpo_ents,
        *gene_entities(pairs),
        *disease_class_entities(class_ids, mondo, members),
    ]
    entity_ids = {e.id for e in entities}
    kept = [r for r in relations if r.subject in entity_ids and r.object in entity_ids]
    dropped = len(relations) - len(kept)
    relations = kept

    progress("Writing disease profiles and hyperedges", 0.72)
    labels = {e.id: e.name for e in entities}
    hyperedges, documents, chunks = _disease_texts(relations, names, labels)
    progress("Writing HPO and MONDO documents", 0.88)
    mondo_ids = sorted(mondo) if profile == "full" else sorted(class_ids)
    for doc in _reference_documents(ontology, sorted(term_ids), mondo, mondo_ids, members, entity_ids):
        documents.append(doc)
        chunks.extend(chunk_document(doc))

    progress("Counting", 0.98)
    kb = KnowledgeBase.model_construct(
        profile=profile,
        versions={
            "hpo": ontology.version,
            "hpo_annotations": hpoa_version,
            "mondo": sources.mondo_version,
        },
        entities=entities,
        relations=relations,
        hyperedges=hyperedges,
        documents=documents,
        chunks=chunks,
        stats={},
    )
    kb.stats = _stats(kb, links_in_kb=linked, how=links.how)
    kb.stats["annotation_rows"] = annotation_rows
    kb.stats["annotation_rows_skipped"] = skipped_rows
    kb.stats["relations_dropped_dangling"] = dropped
    kb.stats["assembly_ms"] = round((time.perf_counter() - started) * 1000)
    progress("Knowledge base assembled", 1.0)
    return kb


def _disease_texts(
    relations: list[Relation], names: dict[str, str], labels: dict[str, str]
) -> tuple[list[Hyperedge], list[Document], list[Chunk]]:
    """Each disease's hyperedges and generated profile (document and chunks)."""
    hyperedges: list[Hyperedge] = []
    documents: list[Document] = []
    chunks: list[Chunk] = []
    for disease, facts in sorted(facts_by_disease(relations, names, labels).items()):
        hyperedges.extend(disease_hyperedges(facts))
        profile_doc = profile_document(disease, facts)
        if profile_doc is not None:
            documents.append(profile_doc[0])
            chunks.extend(profile_doc[1])
    return hyperedges, documents, chunks


def _reference_documents(
    ontology: Ontology,
    term_ids: list[str],
    mondo: dict[str, MondoTerm],
    mondo_ids: list[str],
    members: dict[str, list[str]],
    entity_ids: set[str],
) -> Iterator[Document]:
    """HPO term pages (terms with a definition or comment) and MONDO descriptions."""
    for tid in term_ids:
        term = ontology.terms[tid]
        if term.definition or term.comment:
            yield hpo_document(term)
    for mid in mondo_ids:
        mondo_term = mondo[mid]
        if mondo_term.description:
            doc = mondo_document(mondo_term, members.get(mid, []))
            if mid not in entity_ids:  # described but outside the graph: no entity to point at
                doc.entity_ids = doc.entity_ids[1:]
            yield doc


def _stats(kb: KnowledgeBase, links_in_kb: dict[str, str], how: dict[str, str]) -> dict[str, int]:
    stats: dict[str, int] = {}
    for prefix, counter in (
        ("entities", Counter(e.type for e in kb.entities)),
        ("relations", Counter(r.predicate for r in kb.relations)),
        ("documents", Counter(d.source for d in kb.documents)),
        ("chunks", Counter(c.source for c in kb.chunks)),
    ):
        for key, n in sorted(counter.items()):
            stats[f"{prefix}_{key}"] = n
    stats["entities"] = len(kb.entities)
    stats["relations"] = len(kb.relations)
    stats["hyperedges"] = len(kb.hyperedges)
    stats["documents"] = len(kb.documents)
    stats["chunks"] = len(kb.chunks)
    for kind in LINK_KINDS:
        stats[f"mondo_links_by_{kind}"] = sum(1 for d in links_in_kb if how.get(d) == kind)
    return stats
