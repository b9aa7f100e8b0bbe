"""The filter refuses what it cannot read, naming the backend, the section and the row."""

from __future__ import annotations

import re

import pytest

from meddiag.backends import formats
from meddiag.context_filter import filter_context, parse_context
from meddiag.errors import BackendError, ContextFormatError
from meddiag.schema import BackendName, KGPath, RawContext
from tests.context.context_samples import Retrieval


def _render(backend: BackendName, r: Retrieval) -> str:
    if backend == "lightrag":
        return formats.render_lightrag(r.entities, r.triples, r.passages)
    if backend == "minirag":
        return formats.render_minirag(r.entities, r.triples, r.passages)
    if backend == "hypergraphrag":
        return formats.render_hypergraphrag(r.entities, r.hyperedges, r.passages)
    return formats.render_pathrag(r.entities, r.triples, r.passages, r.entities, r.paths)


def _header_line(backend: BackendName, section: str) -> str:
    if backend == "lightrag":
        return f"^{re.escape(section)}.*:$"
    return f"^-----{re.escape(section)}-----$"


def _drop_section(text: str, backend: BackendName, section: str) -> str:
    """The context without one section: its header line and its fenced block."""
    pattern = _header_line(backend, section) + r"\n\n?```[a-z]*\n(?:.*\n)*?```\n"
    dropped, n = re.subn(pattern, "", text, count=1, flags=re.MULTILINE)
    assert n == 1, f"test setup: {section} not found"
    return dropped


@pytest.mark.parametrize(
    ("backend", "section"),
    [(backend, section) for backend, sections in formats.SECTIONS.items() for section in sections],
)
def test_each_missing_section_is_named(marfan: Retrieval, backend: BackendName, section: str) -> None:
    text = _drop_section(_render(backend, marfan), backend, section)
    with pytest.raises(ContextFormatError) as err:
        parse_context(backend, text)
    assert (err.value.backend, err.value.section) == (backend, section)
    assert "missing" in str(err.value)


@pytest.mark.parametrize("backend", ["lightrag", "minirag", "hypergraphrag", "pathrag"])
def test_empty_context_is_an_error_not_empty_evidence(backend: BackendName) -> None:
    with pytest.raises(ContextFormatError) as err:
        parse_context(backend, "")
    assert err.value.section == formats.SECTIONS[backend][0]


def test_empty_sections_parse_to_no_rows() -> None:
    for backend in formats.SECTIONS:
        parsed = parse_context(backend, _render(backend, Retrieval([], [], [], [], [])))  # type: ignore[arg-type]
        assert parsed.text == [] and parsed.kg.entities == [] and parsed.kg.triples == []


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ContextFormatError) as err:
        parse_context("graphrag", "-----Entities-----\n```csv\n```\n")  # type: ignore[arg-type]
    assert err.value.backend == "graphrag"
    assert "unknown backend" in str(err.value)


def test_csv_row_with_a_missing_field_names_section_and_row(marfan: Retrieval) -> None:
    text = _render("minirag", marfan).replace("1,Homocystinuria due to", "1,Homocystinuria due to,", 1)
    text = text.replace(',disease,"An inborn error', ',"An inborn error', 1)
    text = text.replace('autosomal recessive.",27', 'autosomal recessive."', 1)
    with pytest.raises(ContextFormatError) as err:
        parse_context("minirag", text)
    assert err.value.section == formats.MINIRAG_ENTITIES
    assert "row 2 has 4 fields where the header names 5" in str(err.value)


def test_non_numeric_weight_is_refused(marfan: Retrieval) -> None:
    text = _render("minirag", marfan).replace(",has phenotype,0.9,", ",has phenotype,very often,", 1)
    with pytest.raises(ContextFormatError, match="row 1 has 'very often' in column 'weight'"):
        parse_context("minirag", text)


def test_unclosed_block_is_refused(marfan: Retrieval) -> None:
    text = _render("hypergraphrag", marfan)
    text = text[: text.rindex("```")]
    with pytest.raises(ContextFormatError, match="never closed") as err:
        parse_context("hypergraphrag", text)
    assert err.value.section == formats.HYPERGRAPHRAG_SOURCES


def test_header_without_block_is_refused(marfan: Retrieval) -> None:
    text = _render("pathrag", marfan).replace(
        f"-----{formats.PATHRAG_SOURCES}-----\n```csv\n", f"-----{formats.PATHRAG_SOURCES}-----\n", 1
    )
    with pytest.raises(ContextFormatError) as err:
        parse_context("pathrag", text)
    assert err.value.section == formats.PATHRAG_SOURCES


def test_section_printed_twice_is_refused(marfan: Retrieval) -> None:
    text = _render("minirag", marfan)
    with pytest.raises(ContextFormatError, match="second time"):
        parse_context("minirag", text + text)


def test_lightrag_line_that_is_not_json_is_refused(marfan: Retrieval) -> None:
    text = _render("lightrag", marfan).replace('{"entity1"', "{entity1", 1)
    with pytest.raises(ContextFormatError, match="row 1 is not a JSON object") as err:
        parse_context("lightrag", text)
    assert err.value.section == formats.LIGHTRAG_RELATIONS


def test_lightrag_chunk_citing_an_absent_reference_is_refused(marfan: Retrieval) -> None:
    text = _render("lightrag", marfan).replace("[2] hpo/HP:0001083\n", "", 1)
    with pytest.raises(ContextFormatError, match=r"cites \[2\]"):
        parse_context("lightrag", text)


def test_lightrag_structured_answer_without_chunks_is_refused() -> None:
    text = '{"status": "success", "data": {"entities": [], "relationships": [], "references": []}}'
    with pytest.raises(ContextFormatError) as err:
        parse_context("lightrag", text)
    assert err.value.section == formats.LIGHTRAG_CHUNKS


def test_pathrag_row_that_is_no_path_sentence_is_refused(marfan: Retrieval) -> None:
    text = _render("pathrag", marfan)
    start = text.index('0,"The entity')
    end = text.index('\n1,"The entity')
    text = text[:start] + '0,"Marfan syndrome is linked to FBN1."' + text[end:]
    with pytest.raises(ContextFormatError, match="row 1 is not a path sentence") as err:
        parse_context("pathrag", text)
    assert err.value.section == formats.PATHRAG_LOW_RELATIONS


def test_side_channel_row_that_is_not_printed_is_refused(marfan: Retrieval) -> None:
    raw = RawContext(
        backend="minirag",
        query="q",
        text=_render("minirag", marfan),
        items=[formats.retrieved_item(formats.MINIRAG_ENTITIES, "99", "entity", ["OMIM:154700"])],
    )
    with pytest.raises(ContextFormatError, match="row 99"):
        filter_context(raw)


def test_side_channel_kind_must_match_the_row(marfan: Retrieval) -> None:
    raw = RawContext(
        backend="minirag",
        query="q",
        text=_render("minirag", marfan),
        items=[formats.retrieved_item(formats.MINIRAG_SOURCES, "0", "entity", ["OMIM:154700"])],
    )
    with pytest.raises(ContextFormatError, match="printed as a chunk"):
        filter_context(raw)


def test_rendering_a_path_whose_nodes_and_edges_disagree_is_a_backend_error() -> None:
    path = KGPath(nodes=["Marfan syndrome"], edges=["HAS_PHENOTYPE"], sentence="")
    with pytest.raises(BackendError, match="one entity more than it has edges"):
        formats.render_pathrag([], [], [], [], [path])
