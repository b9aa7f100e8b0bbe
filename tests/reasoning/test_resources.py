"""Reasoning resources built from a graph store hold exactly the store's facts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Entity, Relation
from meddiag.reasoning.offline_evidence import EvidenceReader
from meddiag.reasoning.offline_params import OfflineParams
from meddiag.reasoning.resources import ReasoningResources
from meddiag.stores.local_graph import LocalGraphStore
from tests.reasoning import world

CLEFT_PALATE = "HP:0000175"


def _phenotypes(onto: Ontology) -> list[Entity]:
    return [Entity(id=t.id, type="Phenotype", name=t.name, synonyms=t.synonyms) for t in onto.terms.values()]


@dataclass
class _Handle:
    """The part of a knowledge-base handle the resources read (no vectors: no embedding fallback)."""

    graph: Any


def test_a_disease_class_is_named_but_never_found_by_name(tiny_ontology: Ontology) -> None:
    """A row placed by its series names the MONDO class it shares; a question's words must not
    resolve to such a grouping."""
    graph = LocalGraphStore()
    grouping = Entity(id="MONDO:0003847", type="DiseaseClass", name="hereditary disease")
    graph.upsert_entities([*world.entities(), *_phenotypes(tiny_ontology), grouping])
    graph.upsert_relations(world.relations())
    res = ReasoningResources.from_handle(_Handle(graph), tiny_ontology)
    assert res.name("MONDO:0003847") == "hereditary disease"
    assert res.lookup("hereditary disease") == []
    assert "MONDO:0003847" not in res.disease_ids


def test_from_handle_reads_the_graph_store(tiny_ontology: Ontology) -> None:
    graph = LocalGraphStore()
    graph.upsert_entities([*world.entities(), *_phenotypes(tiny_ontology)])
    graph.upsert_relations(world.relations())
    res = ReasoningResources.from_handle(_Handle(graph), tiny_ontology)
    assert set(res.index.profiles) == {world.MARFAN, world.LDS, world.EPI, world.DEAF}
    assert res.canonical_disease(world.ORPHA_MARFAN) == world.MARFAN
    assert res.canonical_disease(world.MONDO_MARFAN) == world.MARFAN
    assert res.genes_of(world.MARFAN) == ["NCBIGene:2200"]
    # Modes of inheritance reach the ranker (it weighs X-linked recessive ones by sex).
    assert res.index.inheritance[world.MARFAN] == [("HP:0000006", ("HPO",))]
    # Gene links reach it too: the one disease with no known gene is the one it lowers.
    assert [res.index.profiles[p] for p in res.index.without_gene().nonzero()[0]] == [world.DEAF]
    # A gene named in a question (any case) leads to its diseases' differential rows.
    assert res.diseases_of_genes(["fbn1", "TGFBR1", "NOTAGENE"]) == {
        world.MARFAN: ["fbn1"],
        world.LDS: ["TGFBR1"],
    }
    assert res.lookup("marfan SYNDROME") == [world.MARFAN, world.ORPHA_MARFAN, world.MONDO_MARFAN]
    assert res.linker.parse_question("Which genes are associated with Loeys-Dietz syndrome?").diseases == [
        world.LDS
    ]
    assert res.linker.embed_search is None
    assert {"ontology", "graph", "linker", "index"} <= set(res.timings)


def test_a_disease_missing_from_the_store_is_unknown(tiny_ontology: Ontology) -> None:
    graph = LocalGraphStore()
    graph.upsert_entities([e for e in world.entities() if e.id != world.DEAF] + _phenotypes(tiny_ontology))
    graph.upsert_relations([r for r in world.relations() if r.subject != world.DEAF])
    res = ReasoningResources.from_handle(_Handle(graph), tiny_ontology)
    assert world.DEAF not in res.index.profiles
    assert res.lookup("Deafness-anemia syndrome") == []


def test_what_a_disease_name_states_reaches_the_ranking_index_only(tiny_ontology: Ontology) -> None:
    renamed = Entity(id=world.EPI, type="Disease", name="Epilepsy-hypotonia syndrome with cleft palate")
    entities = [renamed if e.id == world.EPI else e for e in world.entities()]
    res = ReasoningResources.from_parts(tiny_ontology, entities, world.relations())
    idx = res.index
    from_name = {
        (idx.diseases[idx.rel_disease[r]], idx.terms[idx.rel_term[r]]) for r in idx.rel_from_name.nonzero()[0]
    }
    # Read by the question's linker: hypotonia and cleft palate, then anemia ("Deafness-anemia syndrome").
    assert from_name == {(world.EPI, "HP:0001252"), (world.EPI, CLEFT_PALATE), (world.DEAF, "HP:0001903")}
    # Weak facts for the ranker, never listed as what the disease is annotated with.
    assert CLEFT_PALATE not in EvidenceReader(res, OfflineParams()).features_of(world.EPI)
    assert "name findings" in res.timings


def test_a_second_omim_number_of_one_mondo_class_is_an_alias_of_its_row(tiny_ontology: Ontology) -> None:
    # OMIM:999999 reads as Marfan's MONDO class too but is curated with one fact: it joins
    # Marfan's row rather than standing beside it with the very same score.
    second = "OMIM:999999"
    graph = LocalGraphStore()
    graph.upsert_entities(
        [*world.entities(), Entity(id=second, type="Disease", name="Marfan"), *_phenotypes(tiny_ontology)]
    )
    graph.upsert_relations(
        [
            *world.relations(),
            world._ph(second, "HP:0001166", 0.5, second),
            Relation(subject=second, predicate="EQUIVALENT_TO", object=world.MONDO_MARFAN, sources=["MONDO"]),
        ]
    )
    res = ReasoningResources.from_handle(_Handle(graph), tiny_ontology)
    assert set(res.index.profiles) == {world.MARFAN, world.LDS, world.EPI, world.DEAF}
    assert res.canonical_disease(second) == world.MARFAN
    assert second in res.aliases(world.MARFAN)


def test_most_specific_orders_equal_information_content_by_id(tiny_ontology: Ontology) -> None:
    # Sentences list a disease's distinguishing features from set differences, whose order
    # varies between processes; only a total order keeps the wording reproducible.
    graph = LocalGraphStore()
    graph.upsert_entities([*world.entities(), *_phenotypes(tiny_ontology)])
    graph.upsert_relations(world.relations())
    res = ReasoningResources.from_handle(_Handle(graph), tiny_ontology)
    by_ic: dict[float, list[str]] = {}
    for term in tiny_ontology.terms:
        if res.ic(term) > 0:
            by_ic.setdefault(res.ic(term), []).append(term)
    tied = max(by_ic.values(), key=len)
    assert len(tied) >= 2
    descending = sorted(tied, reverse=True)
    assert res.most_specific(descending) == sorted(tied)
    commoner = next(t for ic, terms in by_ic.items() if ic < res.ic(tied[0]) for t in terms)
    assert res.most_specific([commoner, *descending]) == [*sorted(tied), commoner]
    assert res.most_specific([commoner, *descending], 1) == [min(tied)]
