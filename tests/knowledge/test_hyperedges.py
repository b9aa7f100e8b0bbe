from __future__ import annotations

from meddiag.knowledge.hyperedges import MAX_MEMBERS, disease_hyperedges
from meddiag.knowledge.model import KnowledgeBase, Relation
from meddiag.knowledge.relations import DiseaseFacts, facts_by_disease
from tests.fixtures import sources as fx


def _marfan(kb: KnowledgeBase) -> DiseaseFacts:
    names = {e.id: e.name for e in kb.entities}
    return facts_by_disease(kb.relations, {fx.MARFAN: "Marfan syndrome"}, names)[fx.MARFAN]


def test_one_hyperedge_per_frequency_band_with_the_union_of_sources(full_kb: KnowledgeBase) -> None:
    edges = {h.id: h for h in full_kb.hyperedges if h.id.startswith(f"he/{fx.MARFAN}/")}
    assert set(edges) == {
        f"he/{fx.MARFAN}/very-frequent/0",
        f"he/{fx.MARFAN}/frequent/0",
        f"he/{fx.MARFAN}/occasional/0",
        f"he/{fx.MARFAN}/absent/0",
        f"he/{fx.MARFAN}/course/0",
    }
    very = edges[f"he/{fx.MARFAN}/very-frequent/0"]
    assert very.text == "Marfan syndrome very frequently presents with Tall stature and Arachnodactyly."
    assert very.members == [fx.MARFAN, fx.TALL, fx.ARACHNODACTYLY]
    assert set(very.sources) == {"PMID:1", "OMIM:154700", "PMID:2", "PMID:3"}
    course = edges[f"he/{fx.MARFAN}/course/0"]
    assert set(course.members) == {fx.MARFAN, fx.AD, fx.CHILDHOOD_ONSET, "NCBIGene:2200"}
    assert "FBN1" in course.text and "autosomal dominant inheritance" in course.text


def test_excluded_sources_remove_facts_but_keep_ids(full_kb: KnowledgeBase) -> None:
    hidden = {h.id: h for h in disease_hyperedges(_marfan(full_kb), frozenset({"PMID:1"}))}
    assert f"he/{fx.MARFAN}/frequent/0" not in hidden  # ectopia lentis rests on PMID:1 alone
    very = hidden[f"he/{fx.MARFAN}/very-frequent/0"]
    assert fx.TALL in very.members and "PMID:1" not in very.sources


def test_a_fact_whose_frequency_drew_on_an_excluded_source_leaves_its_band(full_kb: KnowledgeBase) -> None:
    # Arachnodactyly rests on PMID:1 (3/4) and OMIM (very frequent): still a fact without PMID:1,
    # but its band is the mean of both frequencies, so no band sentence may state it.
    without = {h.id: h for h in disease_hyperedges(_marfan(full_kb), frozenset({"PMID:1"}))}
    very = without[f"he/{fx.MARFAN}/very-frequent/0"]
    assert very.text == "Marfan syndrome very frequently presents with Tall stature."
    assert fx.ARACHNODACTYLY not in very.members
    assert not any(fx.ARACHNODACTYLY in h.members for h in without.values())


def test_a_large_band_is_split_into_readable_hyperedges() -> None:
    n = MAX_MEMBERS * 2 + 3
    rels = tuple(
        Relation(subject="OMIM:1", predicate="HAS_PHENOTYPE", object=f"HP:{i:07d}", frequency=0.9)
        for i in range(n)
    )
    facts = DiseaseFacts("OMIM:1", "Big syndrome", rels, {f"HP:{i:07d}": f"F{i:03d}" for i in range(n)})
    edges = disease_hyperedges(facts)
    assert [h.id for h in edges] == [f"he/OMIM:1/very-frequent/{k}" for k in range(3)]
    assert [len(h.members) - 1 for h in edges] == [MAX_MEMBERS, MAX_MEMBERS, 3]
