"""Each backend answers a findings question with the matching disease's phenotype triples."""

from __future__ import annotations

from meddiag.backends.base import Backend
from tests.backends.conftest import ask, links

MARFAN_QUESTION = (
    "Arachnodactyly, ectopia lentis, tall stature and aortic root aneurysm. What is the diagnosis?"
)


def test_findings_question_returns_the_diseases_phenotype_triples(backend: Backend) -> None:
    parsed = ask(backend, MARFAN_QUESTION)
    facts = links(parsed)
    for phenotype in ("Arachnodactyly", "Ectopia lentis", "Aortic root aneurysm"):
        assert ("Marfan syndrome", "HAS_PHENOTYPE", phenotype) in facts, (backend.name, phenotype)
    assert parsed.text, "mix mode must return passages too"


def test_raw_context_names_the_backend_and_times_its_stages(backend: Backend) -> None:
    raw = backend.retrieve(MARFAN_QUESTION)
    assert raw.backend == backend.name
    assert raw.timings["total"] > 0
    assert raw.timings["keywords"] <= raw.timings["total"]
    assert any(
        item.kind == "relation" or item.kind == "hyperedge" or item.kind == "path" for item in raw.items
    )


def test_semantic_mode_returns_passages_and_no_graph_rows(backend: Backend) -> None:
    parsed = ask(backend, MARFAN_QUESTION, mode="semantic")
    assert parsed.text
    assert not parsed.kg.triples and not parsed.kg.hyperedges and not parsed.kg.paths


def test_relational_mode_returns_graph_rows_and_no_passages(backend: Backend) -> None:
    parsed = ask(backend, MARFAN_QUESTION, mode="relational")
    assert not parsed.text
    assert parsed.kg.triples


def test_seed_relations_appear_in_the_relational_sections(backend: Backend) -> None:
    parsed = ask(backend, "Which genes are associated?", seeds=["OMIM:154700"], mode="relational")
    if backend.name == "hypergraphrag":
        # an n-ary fact mixing inheritance and gene stays whole: the seed's hyperedge must name FBN1
        assert any({"Marfan syndrome", "FBN1"} <= set(h.members) for h in parsed.kg.hyperedges)
    else:
        assert ("Marfan syndrome", "ASSOCIATED_GENE", "FBN1") in links(parsed)


def test_triples_carry_our_ids_and_provenance(backend: Backend) -> None:
    parsed = ask(backend, MARFAN_QUESTION, mode="relational")
    triple = next(
        t
        for t in parsed.kg.triples
        if (t.subject, t.predicate, t.object) == ("Marfan syndrome", "HAS_PHENOTYPE", "Ectopia lentis")
    )
    assert triple.provenance == ["PMID:1"]
    if not triple.from_hyperedge and backend.name != "pathrag":
        assert (triple.subject_id, triple.object_id) == ("OMIM:154700", "HP:0001083")
