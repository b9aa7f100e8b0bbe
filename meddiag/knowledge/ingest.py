"""Add a user's own documents (txt, md, pdf) to the live knowledge base.

Each file is read, linked to the ontology offline, chunked, embedded with the knowledge
base's own embedder and inserted into the `chunks` collection, where every backend's
semantic retrieval finds it. The original file is kept under `MEDDIAG_HOME/user_docs/`
so that nothing a user uploaded is lost. One bad file never stops the others: each gets
its own result line.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import TYPE_CHECKING, TypedDict

from meddiag.errors import InputError, MedDiagError
from meddiag.knowledge.model import Chunk, Document
from meddiag.knowledge.user_docs import NameLinker, chunk_user_document, load_user_document
from meddiag.stores.base import VectorRecord

if TYPE_CHECKING:
    from meddiag.knowledge.handle import KnowledgeBaseHandle

MAX_BYTES = 20 * 1024 * 1024


class IngestResult(TypedDict):
    name: str
    ok: bool
    message: str
    chunks: int


def user_docs_dir(kb: KnowledgeBaseHandle) -> Path:
    return kb.settings.home / "user_docs"


def _linker(kb: KnowledgeBaseHandle) -> NameLinker:
    return NameLinker.from_entities(kb.graph.iter_entities(["Phenotype", "Disease", "Gene"]))


def _ingest_one(kb: KnowledgeBaseHandle, linker: NameLinker, filename: str, data: bytes) -> IngestResult:
    name = PurePath(filename).name
    if len(data) > MAX_BYTES:
        raise InputError(f"The file {name!r} is larger than {MAX_BYTES // (1024 * 1024)} MB.")
    doc = load_user_document(data, name, linker)
    chunks = chunk_user_document(doc, linker)
    if not chunks:
        raise InputError(f"The file {name!r} has no text to index.")
    vectors = kb.embedder.embed([c.text for c in chunks])
    records = [
        VectorRecord(
            id=c.id,
            vector=vec,
            text=c.text,
            kind="user",
            sources=tuple(c.sources),
            extra={
                "doc_id": c.doc_id,
                "title": c.title,
                "source": "user",
                "position": c.position,
                "entity_ids": c.entity_ids,
                "generated": False,
            },
        )
        for c, vec in zip(chunks, vectors, strict=True)
    ]
    collection = kb.collection("chunks")
    kb.vectors.insert(collection, records)
    kb.vectors.finish(collection)
    target = user_docs_dir(kb)
    target.mkdir(parents=True, exist_ok=True)
    (target / name).write_bytes(data)
    linked = len(doc.entity_ids)
    return {
        "name": name,
        "ok": True,
        "message": (
            f"Indexed {len(chunks)} passage{'s' * (len(chunks) != 1)}; {linked} ontology "
            f"term{'s' * (linked != 1)} or disease{'s' * (linked != 1)} recognised."
        ),
        "chunks": len(chunks),
    }


def add_user_documents(kb: KnowledgeBaseHandle, files: list[tuple[str, bytes]]) -> list[IngestResult]:
    """Index each (filename, bytes) pair; a file that fails is reported, the rest go on."""
    if not files:
        raise InputError("No file was given.")
    linker = _linker(kb)
    results: list[IngestResult] = []
    for filename, data in files:
        try:
            results.append(_ingest_one(kb, linker, filename, data))
        except MedDiagError as err:
            results.append({"name": PurePath(filename).name, "ok": False, "message": str(err), "chunks": 0})
    return results


def stored_user_documents(home: Path, linker: NameLinker) -> tuple[list[Document], list[Chunk]]:
    """The documents users uploaded earlier, re-read so that a rebuild keeps them indexed.

    A file that can no longer be read is skipped here (it was accepted once, and the build
    must not fail for it); the upload page reported it at the time.
    """
    folder = home / "user_docs"
    documents: list[Document] = []
    chunks: list[Chunk] = []
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        try:
            doc = load_user_document(path.read_bytes(), path.name, linker)
        except (MedDiagError, OSError):
            continue
        documents.append(doc)
        chunks.extend(chunk_user_document(doc, linker))
    return documents, chunks
