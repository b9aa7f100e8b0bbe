from __future__ import annotations

from pathlib import Path

import pytest

from meddiag.errors import InputError
from meddiag.knowledge.model import KnowledgeBase
from meddiag.knowledge.user_docs import NameLinker, chunk_user_document, load_user_document
from tests.fixtures import sources as fx


def _pdf(text: str) -> bytes:
    """A one-page PDF showing `text`, written by hand so the test needs no PDF writer."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


@pytest.fixture(scope="module")
def linker(full_kb: KnowledgeBase) -> NameLinker:
    return NameLinker.from_entities(full_kb.entities)


def test_text_file_becomes_a_user_document_linked_to_phenotypes_and_diseases(linker: NameLinker) -> None:
    text = "Referral: a tall teenager with spider fingers and lens dislocation. Marfan syndrome?"
    doc = load_user_document(text.encode(), "referral.txt", linker)
    assert (doc.id, doc.title, doc.source, doc.sources) == (
        "user/referral.txt",
        "referral.txt",
        "user",
        ["user/referral.txt"],
    )
    assert doc.text == text
    assert doc.entity_ids == [fx.ARACHNODACTYLY, fx.ECTOPIA_LENTIS, fx.MARFAN, fx.MARFAN_ORPHA]


def test_markdown_is_read_from_a_path(tmp_path: Path, linker: NameLinker) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nAortic root aneurysm on echo.\n", encoding="utf-8")
    doc = load_user_document(path, "notes.md", linker)
    assert doc.entity_ids == [fx.AORTIC_ROOT]


def test_pdf_text_is_extracted(linker: NameLinker) -> None:
    doc = load_user_document(_pdf("Patient with arachnodactyly and myopia"), "letter.pdf", linker)
    assert "arachnodactyly" in doc.text
    assert doc.entity_ids == [fx.ARACHNODACTYLY, fx.MYOPIA]


def test_longest_name_wins_and_short_names_are_ignored() -> None:
    linker = NameLinker({"HP:1": ["Aortic root aneurysm"], "HP:2": ["Aneurysm"], "HP:3": ["ID"]})
    assert linker.link("Aortic root aneurysm; ID unknown; another aneurysm.") == ["HP:1", "HP:2"]


def test_user_chunks_list_their_own_mentions(linker: NameLinker) -> None:
    text = "Myopia since childhood. " * 40 + "Later an aortic root aneurysm was found."
    doc = load_user_document(text.encode(), "long.txt", linker)
    chunks = chunk_user_document(doc, linker)
    assert len(chunks) == 2
    assert chunks[0].entity_ids == [fx.MYOPIA]
    assert fx.AORTIC_ROOT in chunks[1].entity_ids
    assert all(c.sources == ["user/long.txt"] for c in chunks)


@pytest.mark.parametrize(
    ("data", "filename", "message"),
    [
        (b"text", "report.docx", "not supported"),
        (b"   \n", "empty.txt", "contains no text"),
        (b"\xff\xfe\x00garbage\x00", "binary.txt", "not UTF-8"),
        (b"not a pdf at all", "broken.pdf", "damaged"),
        (_pdf(""), "scan.pdf", "no extractable text"),
    ],
    ids=["unsupported", "empty", "binary", "broken-pdf", "textless-pdf"],
)
def test_unusable_files_raise_input_errors(
    data: bytes, filename: str, message: str, linker: NameLinker
) -> None:
    with pytest.raises(InputError, match=message):
        load_user_document(data, filename, linker)


def test_a_missing_file_raises_an_input_error(tmp_path: Path, linker: NameLinker) -> None:
    with pytest.raises(InputError, match="could not be read"):
        load_user_document(tmp_path / "absent.txt", "absent.txt", linker)
