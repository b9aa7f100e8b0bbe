"""Contexts as the real upstream libraries print them, with every quirk the spec lists."""

from __future__ import annotations

from meddiag.backends import formats
from meddiag.context_filter import filter_context, parse_context
from meddiag.schema import RawContext
from tests.context.context_samples import FIXTURES


def _read(name: str) -> str:
    # Bytes as stored: CRLF rows must reach the parser untouched.
    return (FIXTURES / name).read_bytes().decode("utf-8")


def test_lightrag_accepts_long_chunk_header_headings_and_unreferenced_chunk() -> None:
    parsed = parse_context("lightrag", _read("upstream_lightrag.txt"))
    assert [(e.name, e.type) for e in parsed.kg.entities] == [
        ("Marfan syndrome", "disease"),
        ("Arachnodactyly", "phenotype"),
        ("FBN1", "gene"),
    ]
    assert [(p.ref_id, p.doc_id) for p in parsed.text] == [
        ("1", "marfan_review.pdf"),
        ("2", "hpo_definitions.txt"),
        ("1", "marfan_review.pdf"),
        ("", ""),
    ]
    assert parsed.text[0].title == "Marfan syndrome review → 1 Introduction"
    assert parsed.text[3].text == "Note pasted without a source: the patient also has myopia."
    # Upstream prints no relation type: without a side channel the predicate is the fallback.
    assert [(t.subject, t.predicate, t.object) for t in parsed.kg.triples] == [
        ("Marfan syndrome", formats.FALLBACK_PREDICATE, "Arachnodactyly"),
        ("Marfan syndrome", formats.FALLBACK_PREDICATE, "FBN1"),
    ]


def test_lightrag_structured_answer_splits_sep_fields_and_maps_keywords() -> None:
    parsed = parse_context("lightrag", _read("upstream_lightrag_data.json"))
    marfan, ectopia = parsed.kg.entities
    assert (marfan.name, marfan.type) == ("Marfan syndrome", "disease")
    assert marfan.description == "A connective tissue disorder.\nAutosomal dominant, caused by FBN1 variants."
    assert ectopia.type == "phenotype"
    criterion, gene = parsed.kg.triples
    assert (criterion.predicate, criterion.keywords, criterion.weight) == (
        formats.FALLBACK_PREDICATE,
        "major criterion, ocular feature",
        9.0,
    )
    assert criterion.provenance == ["ghent_nosology.pdf"]
    assert (gene.subject, gene.predicate, gene.object, gene.provenance) == (
        "Marfan syndrome",
        "ASSOCIATED_GENE",
        "FBN1",
        [],  # "unknown_source" is no provenance
    )
    assert [(p.ref_id, p.doc_id) for p in parsed.text] == [
        ("1", "ghent_nosology.pdf"),
        ("2", "marfan_review.pdf"),
    ]


def test_minirag_fixture_really_has_crlf_rows() -> None:
    assert "\r\n" in _read("upstream_minirag.txt")


def test_minirag_unquotes_upper_case_names_and_keeps_printed_ids_with_gaps() -> None:
    text = _read("upstream_minirag.txt")
    parsed = parse_context("minirag", text)
    assert [(e.name, e.type, e.rank) for e in parsed.kg.entities] == [
        ("MARFAN SYNDROME", "disease", 12.0),
        ("ARACHNODACTYLY", "phenotype", 40.0),
        ("FBN1", "gene", 3.0),
    ]
    assert [(t.subject, t.predicate, t.object, t.weight, t.rank) for t in parsed.kg.triples] == [
        ("MARFAN SYNDROME", "HAS_PHENOTYPE", "ARACHNODACTYLY", 1.0, 52.0),
        ("MARFAN SYNDROME", formats.FALLBACK_PREDICATE, "FBN1", 2.0, 15.0),
    ]
    assert parsed.kg.triples[1].keywords == "genetic cause, causal gene"
    assert [p.ref_id for p in parsed.text] == ["0", "3"]
    assert (
        parsed.text[0].text
        == "Marfan syndrome: tall stature, arachnodactyly, ectopia lentis,\r\naortic root dilatation."
    )
    assert parsed.text[1].text == 'Fibrillin-1 ("FBN1") is a large extracellular matrix glycoprotein.'
    # The side channel addresses rows by the ids printed, gaps included.
    raw = RawContext(
        backend="minirag",
        query="q",
        text=text,
        items=[
            formats.retrieved_item(formats.MINIRAG_ENTITIES, "5", "entity", ["HGNC:3603"]),
            formats.retrieved_item(formats.MINIRAG_SOURCES, "3", "chunk", ["hpo/HP:0001166"], None, ["HPO"]),
        ],
    )
    filtered = filter_context(raw)
    assert filtered.kg.entities[2].id == "HGNC:3603"
    assert (filtered.text[1].doc_id, filtered.text[1].provenance) == ("hpo/HP:0001166", ["HPO"])


def test_minirag_mini_mode_has_scored_entities_and_no_relationships_block() -> None:
    parsed = parse_context("minirag", _read("upstream_minirag_mini.txt"))
    assert [(e.name, e.rank, e.description) for e in parsed.kg.entities] == [
        ("MARFAN SYNDROME", 3.5, "Connective tissue disorder."),
        ("ECTOPIA LENTIS", 1.25, "Dislocation of the lens."),
    ]
    assert parsed.kg.triples == []
    assert [p.ref_id for p in parsed.text] == ["0", "2"]


def test_hypergraphrag_combined_rows_split_on_bare_commas_only() -> None:
    parsed = parse_context("hypergraphrag", _read("upstream_hypergraphrag.txt"))
    assert [(e.name, e.type, e.description) for e in parsed.kg.entities] == [
        (
            "MARFAN SYNDROME",
            "disease",
            "A heritable disorder of connective tissue, with skeletal, ocular and cardiovascular features.",
        ),
        (
            "EHLERS-DANLOS SYNDROME, CLASSIC TYPE",
            "disease",
            "Joint hypermobility, skin hyperextensibility,atrophic scars.",
        ),
        ("ARACHNODACTYLY", "phenotype", "Long, slender fingers."),
    ]
    first, second = parsed.kg.hyperedges
    assert first.text == (
        "Marfan syndrome presents with arachnodactyly (frequent), ectopia lentis and aortic root dilatation."
    )
    assert first.members == ["MARFAN SYNDROME", "ARACHNODACTYLY", "ECTOPIA LENTIS", "AORTIC ROOT DILATATION"]
    assert (
        second.text
        == "Classic Ehlers-Danlos syndrome, unlike Marfan syndrome, shows skin hyperextensibility."
    )
    assert second.members == [
        "EHLERS-DANLOS SYNDROME, CLASSIC TYPE",
        "MARFAN SYNDROME",
        "SKIN HYPEREXTENSIBILITY",
    ]
    assert len([t for t in parsed.kg.triples if t.from_hyperedge]) == 3 + 2
    assert [p.ref_id for p in parsed.text] == ["1", "2"]
    assert parsed.text[0].text == (
        "Marfan syndrome, an autosomal dominant disorder, is caused by FBN1 variants.\n"
        "Its cardinal features are ectopia lentis and aortic root dilatation."
    )


def test_pathrag_reads_printed_lists_of_path_sentences_in_both_edge_spellings() -> None:
    parsed = parse_context("pathrag", _read("upstream_pathrag.txt"))
    assert [(p.nodes, p.edges, p.reliability_rank) for p in parsed.kg.paths] == [
        (
            ["ARACHNODACTYLY", "MARFAN SYNDROME", "ECTOPIA LENTIS", "HOMOCYSTINURIA"],
            ["HAS_PHENOTYPE", "HAS_PHENOTYPE", "HAS_PHENOTYPE"],
            3,
        ),
        (
            ["MARFAN SYNDROME", "ECTOPIA LENTIS", "HOMOCYSTINURIA"],
            ["HAS_PHENOTYPE", formats.FALLBACK_PREDICATE],
            2,
        ),
        (["MARFAN SYNDROME", "ARACHNODACTYLY"], ["HAS_PHENOTYPE"], 1),
    ]
    assert all(p.sentence.startswith("The entity ") for p in parsed.kg.paths)
    assert [(e.name, e.type, e.rank, e.level) for e in parsed.kg.entities] == [
        ("MARFAN SYNDROME", "disease", 14.0, "high"),
        ("HOMOCYSTINURIA", "disease", 6.0, "high"),
        ("ARACHNODACTYLY", "phenotype", 7.0, "low"),
        ("ECTOPIA LENTIS", "phenotype", 5.0, "low"),
    ]
    high = [
        (t.subject, t.predicate, t.object, t.weight, t.rank) for t in parsed.kg.triples if t.level == "high"
    ]
    assert high == [
        ("HOMOCYSTINURIA", formats.FALLBACK_PREDICATE, "CBS", 8.0, 9.0),
        ("MARFAN SYNDROME", "HAS_PHENOTYPE", "ECTOPIA LENTIS", 9.0, 19.0),
    ]
    first_path_hops = [(t.subject, t.object) for t in parsed.kg.triples if t.level == "low"][:3]
    assert first_path_hops == [
        ("MARFAN SYNDROME", "ARACHNODACTYLY"),  # walked phenotype -> disease, read disease -> phenotype
        ("MARFAN SYNDROME", "ECTOPIA LENTIS"),
        ("HOMOCYSTINURIA", "ECTOPIA LENTIS"),
    ]
    assert [p.text for p in parsed.text] == [
        "In homocystinuria the lens dislocates downward; in Marfan syndrome, upward."
    ]


def test_pathrag_path_with_unquoted_names_still_yields_its_nodes() -> None:
    sentence = (
        "The entity MARFAN SYNDROME is a DISEASE with the description(Connective tissue disorder.)"
        "through edge(is associated with gene) to connect to MARFAN SYNDROME and FBN1."
        "The entity FBN1 is a GENE with the description(Fibrillin 1.)"
    )
    empty = "```csv\nid,entity,type,description,rank\n```\n"
    text = (
        f"-----high-level entity information-----\n{empty}"
        "-----high-level relationship information-----\n```csv\n```\n"
        "-----Sources-----\n```csv\nid,content\n```\n"
        f"-----low-level entity information-----\n{empty}"
        f'-----low-level relationship information-----\n```csv\nid,context\n0,"{sentence}"\n```\n'
    )
    (path,) = parse_context("pathrag", text).kg.paths
    assert (path.nodes, path.edges) == (["MARFAN SYNDROME", "FBN1"], ["ASSOCIATED_GENE"])


def test_lightrag_structured_answer_for_an_empty_result_parses_to_no_evidence() -> None:
    text = (
        '{"status": "failure", "message": "Query returned empty dataset.", '
        '"data": {"entities": [], "relationships": [], "chunks": [], "references": []}, "metadata": {}}'
    )
    parsed = parse_context("lightrag", text)
    assert (parsed.text, parsed.kg.entities, parsed.kg.triples) == ([], [], [])


def test_lightrag_reference_list_without_a_fence_is_read_too() -> None:
    text = _read("upstream_lightrag.txt")
    fenced = "```\n[1] marfan_review.pdf\n[2] hpo_definitions.txt\n```\n"
    assert fenced in text
    parsed = parse_context(
        "lightrag", text.replace(fenced, "[1] marfan_review.pdf\n[2] hpo_definitions.txt\n")
    )
    assert [p.doc_id for p in parsed.text] == [
        "marfan_review.pdf",
        "hpo_definitions.txt",
        "marfan_review.pdf",
        "",
    ]
