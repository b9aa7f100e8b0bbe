"""Our own renderers, checked byte for byte against golden files, and read back by the filter."""

from __future__ import annotations

import os

import pytest

from meddiag.backends import formats
from meddiag.context_filter import filter_context
from meddiag.schema import BackendName, RawContext, RetrievedItem
from tests.context.context_samples import FIXTURES, Retrieval

# Set to rewrite the golden files after an intended format change; review the diff before committing.
UPDATE = os.environ.get("MEDDIAG_UPDATE_GOLDEN") == "1"


def rendered(r: Retrieval) -> dict[BackendName, tuple[str, list[RetrievedItem]]]:
    """Each backend's context and side channel for the same retrieval."""
    high_entities = [r.entities[0], r.entities[1], r.entities[4], r.entities[5]]
    high_triples = r.triples[2:4]
    low_entities = [r.entities[2], r.entities[3], r.entities[0]]
    pathrag_args = (high_entities, high_triples, r.passages, low_entities, r.paths)
    return {
        "lightrag": (
            formats.render_lightrag(r.entities, r.triples, r.passages),
            formats.lightrag_items(r.entities, r.triples, r.passages),
        ),
        "minirag": (
            formats.render_minirag(r.entities, r.triples, r.passages),
            formats.minirag_items(r.entities, r.triples, r.passages),
        ),
        "hypergraphrag": (
            formats.render_hypergraphrag(r.entities, r.hyperedges, r.passages),
            formats.hypergraphrag_items(r.entities, r.hyperedges, r.passages),
        ),
        "pathrag": (formats.render_pathrag(*pathrag_args), formats.pathrag_items(*pathrag_args)),
    }


@pytest.mark.parametrize("backend", ["lightrag", "minirag", "hypergraphrag", "pathrag"])
def test_renderer_output_matches_golden_file_byte_for_byte(marfan: Retrieval, backend: BackendName) -> None:
    text, _ = rendered(marfan)[backend]
    golden = FIXTURES / f"ours_{backend}.txt"
    if UPDATE:
        golden.write_bytes(text.encode("utf-8"))
    assert text.encode("utf-8") == golden.read_bytes()


def _raw(backend: BackendName, r: Retrieval) -> RawContext:
    text, items = rendered(r)[backend]
    return RawContext(backend=backend, query="tall, arachnodactyly, ectopia lentis", text=text, items=items)


def test_lightrag_golden_reads_back_with_references_ids_and_provenance(marfan: Retrieval) -> None:
    parsed = filter_context(_raw("lightrag", marfan))
    # The profile occurs twice among the chunks, so it is reference [1]; the note has none.
    assert [(p.ref_id, p.doc_id) for p in parsed.text] == [
        ("1", "profile/OMIM:154700"),
        ("2", "hpo/HP:0001083"),
        ("1", "profile/OMIM:154700"),
        ("", ""),
    ]
    assert [p.text for p in parsed.text] == [p.text for p in marfan.passages]
    assert parsed.text[2].provenance == ["OMIM:154700", "PMID:1852208"]
    assert [(e.name, e.type, e.id) for e in parsed.kg.entities] == [
        (e.name, e.type.lower(), e.id) for e in marfan.entities
    ]
    # LightRAG prints no predicate: it comes back through the side channel.
    assert [
        (t.subject, t.predicate, t.object, t.subject_id, t.object_id, t.provenance) for t in parsed.kg.triples
    ] == [(t.subject, t.predicate, t.object, t.subject_id, t.object_id, t.provenance) for t in marfan.triples]


def test_minirag_golden_reads_back_predicates_from_keywords(marfan: Retrieval) -> None:
    parsed = filter_context(_raw("minirag", marfan))
    assert [(t.predicate, t.keywords, t.weight, t.rank) for t in parsed.kg.triples] == [
        (t.predicate, formats.PREDICATE_WORDS[t.predicate], t.weight, t.rank) for t in marfan.triples
    ]
    assert [p.ref_id for p in parsed.text] == ["0", "1", "2", "3"]
    assert [p.doc_id for p in parsed.text] == [p.doc_id for p in marfan.passages]
    assert [e.rank for e in parsed.kg.entities] == [e.rank for e in marfan.entities]


def test_hypergraphrag_golden_keeps_hyperedges_whole_and_expands_them(marfan: Retrieval) -> None:
    parsed = filter_context(_raw("hypergraphrag", marfan))
    assert [(h.text, h.members, h.id, h.provenance) for h in parsed.kg.hyperedges] == [
        (h.text, h.members, h.id, h.provenance) for h in marfan.hyperedges
    ]
    expanded = [(t.subject, t.object, t.from_hyperedge) for t in parsed.kg.triples]
    assert expanded == [
        ("Marfan syndrome", "Arachnodactyly", True),
        ("Marfan syndrome", "Ectopia lentis", True),
        ("Homocystinuria due to cystathionine beta-synthase deficiency", "Ectopia lentis", True),
    ]
    assert parsed.kg.triples[0].provenance == ["PMID:1852208", "OMIM:154700"]
    assert [p.ref_id for p in parsed.text] == ["1", "2", "3", "4"]


def test_pathrag_golden_keeps_levels_and_path_sequences(marfan: Retrieval) -> None:
    parsed = filter_context(_raw("pathrag", marfan))
    assert [(e.name, e.level) for e in parsed.kg.entities] == [
        ("Marfan syndrome", "high"),
        ("Homocystinuria due to cystathionine beta-synthase deficiency", "high"),
        ("FBN1", "high"),
        ("Autosomal dominant inheritance", "high"),
        ("Arachnodactyly", "low"),
        ("Ectopia lentis", "low"),
        ("Marfan syndrome", "low"),
    ]
    assert [(p.nodes, p.edges, p.level) for p in parsed.kg.paths] == [
        (p.nodes, p.edges, "low") for p in marfan.paths
    ]
    # Printed least reliable first: the last path is the most reliable one.
    assert [p.reliability_rank for p in parsed.kg.paths] == [3, 2, 1]
    high = [t for t in parsed.kg.triples if t.level == "high"]
    assert [(t.predicate, t.subject_id, t.provenance) for t in high] == [
        (t.predicate, t.subject_id, t.provenance) for t in marfan.triples[2:4]
    ]


def test_pathrag_path_hops_become_triples_pointing_the_predicates_way(marfan: Retrieval) -> None:
    parsed = filter_context(_raw("pathrag", marfan))
    low = [(t.subject, t.predicate, t.object) for t in parsed.kg.triples if t.level == "low"]
    # The first path walks from a phenotype to its disease; the triple still reads disease -> phenotype.
    assert low[:2] == [
        ("Marfan syndrome", "HAS_PHENOTYPE", "Arachnodactyly"),
        ("Marfan syndrome", "ASSOCIATED_GENE", "FBN1"),
    ]
    assert (
        "Homocystinuria due to cystathionine beta-synthase deficiency",
        "HAS_PHENOTYPE",
        "Ectopia lentis",
    ) in low


def test_timings_are_copied_from_the_raw_context(marfan: Retrieval) -> None:
    raw = _raw("minirag", marfan).model_copy(update={"timings": {"vector_search": 0.012, "graph": 0.003}})
    assert filter_context(raw).timings == {"vector_search": 0.012, "graph": 0.003}


def test_pathrag_path_items_give_hop_triples_their_ids_and_provenance(marfan: Retrieval) -> None:
    raw = _raw("pathrag", marfan)
    ids = {e.name: e.id for e in marfan.entities}
    path_items = [
        formats.retrieved_item(
            formats.PATHRAG_LOW_RELATIONS, i, "path", [ids[n] or "" for n in p.nodes], None, ["HPO"]
        )
        for i, p in enumerate(marfan.paths)
    ]
    parsed = filter_context(raw.model_copy(update={"items": [*raw.items, *path_items]}))
    first_hop = next(t for t in parsed.kg.triples if t.level == "low")
    # Walked Arachnodactyly -> Marfan syndrome, read (and identified) Marfan syndrome -> Arachnodactyly.
    assert (first_hop.subject_id, first_hop.object_id, first_hop.provenance) == (
        "OMIM:154700",
        "HP:0001166",
        ["HPO"],
    )
