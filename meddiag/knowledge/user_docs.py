"""The user's own files (txt, md, pdf) as Documents, linked offline to HPO terms and diseases.

Entity linking is exact: a span of the text whose normalised words equal an HPO term's
name or synonym, or a disease's name, links to it. At each position the longest matching
name wins, and names that are too short or shared by many entities are not used, so the
links stay precise without any model.
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path, PurePath

from pypdf import PdfReader
from pypdf.errors import PyPdfError

from meddiag.errors import InputError
from meddiag.knowledge.annotations import scan_hpoa
from meddiag.knowledge.documents import chunk_text
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Chunk, Document, Entity
from meddiag.knowledge.mondo import normalise_label
from meddiag.knowledge.sources import SourceFiles, packaged_sources

SUFFIXES = (".txt", ".md", ".pdf")
MAX_BYTES = 20_000_000
MIN_NAME_CHARS = 4  # "ID", "MR", "Pes" … are too ambiguous in free text
MAX_IDS_PER_NAME = 3  # a name shared by more entities than this says nothing specific
MAX_NAME_WORDS = 12


class NameLinker:
    """Finds mentions of known entity names in free text (exact match after normalisation)."""

    def __init__(self, names: Mapping[str, Iterable[str]]) -> None:
        """`names`: entity id -> its name and synonyms."""
        index: dict[str, set[str]] = defaultdict(set)
        for entity_id, entity_names in names.items():
            for name in entity_names:
                key = normalise_label(name)
                if len(key) >= MIN_NAME_CHARS and not key.replace(" ", "").isdigit():
                    index[key].add(entity_id)
        self._index = {k: sorted(v) for k, v in index.items() if len(v) <= MAX_IDS_PER_NAME}
        self._max_words = min(MAX_NAME_WORDS, max((k.count(" ") + 1 for k in self._index), default=1))

    @classmethod
    def from_entities(cls, entities: Iterable[Entity]) -> NameLinker:
        """A linker over a knowledge base's phenotypes and diseases."""
        return cls({e.id: [e.name, *e.synonyms] for e in entities if e.type in ("Phenotype", "Disease")})

    @classmethod
    def from_sources(cls, sources: SourceFiles) -> NameLinker:
        """A linker over every HPO phenotype term and every annotated disease name."""
        ontology = Ontology.from_obo(sources.hp_obo)
        phenotypes = ontology.phenotype_ids
        names: dict[str, list[str]] = {
            t.id: [t.name, *t.synonyms] for t in ontology.terms.values() if t.id in phenotypes
        }
        for disease_id, name in scan_hpoa(sources.phenotype_hpoa).names.items():
            names[disease_id] = [name]
        return cls(names)

    def link(self, text: str) -> list[str]:
        """Ids of the entities the text mentions, in order of first mention."""
        words = normalise_label(text).split()
        found: dict[str, None] = {}
        i = 0
        while i < len(words):
            for n in range(min(self._max_words, len(words) - i), 0, -1):
                ids = self._index.get(" ".join(words[i : i + n]))
                if ids:
                    found.update(dict.fromkeys(ids))
                    i += n
                    break
            else:
                i += 1
        return list(found)


@lru_cache(maxsize=1)
def default_linker() -> NameLinker:
    """A linker over the packaged HPO release (built once per process, about two seconds)."""
    return NameLinker.from_sources(packaged_sources())


def _read_bytes(source: str | Path | bytes, filename: str) -> bytes:
    if isinstance(source, bytes):
        return source
    try:
        return Path(source).read_bytes()
    except OSError as err:
        raise InputError(f"The file {filename!r} could not be read: {err.strerror or err}.") from err


def _pdf_text(data: bytes, filename: str) -> str:
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise InputError(f"The PDF {filename!r} is password-protected; please upload an unlocked copy.")
        return "\n\n".join(page.extract_text() or "" for page in reader.pages)
    except (PyPdfError, ValueError, KeyError, TypeError) as err:
        raise InputError(
            f"The PDF {filename!r} is damaged or not a PDF, so its text cannot be read."
        ) from err


def extract_text(source: str | Path | bytes, filename: str) -> str:
    """The text of a txt, md or pdf file; raises InputError when it cannot be used."""
    suffix = PurePath(filename).suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(
            f"The file {filename!r} is not supported: upload plain text (.txt), Markdown (.md) or PDF (.pdf)."
        )
    data = _read_bytes(source, filename)
    if len(data) > MAX_BYTES:
        raise InputError(f"The file {filename!r} is larger than {MAX_BYTES // 1_000_000} MB.")
    if suffix == ".pdf":
        text = _pdf_text(data, filename)
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise InputError(f"The file {filename!r} is not UTF-8 text, so it cannot be read.") from err
        if "\x00" in text:
            raise InputError(f"The file {filename!r} looks binary, not like text.")
    if not text.strip():
        what = "no extractable text (is it a scan?)" if suffix == ".pdf" else "no text"
        raise InputError(f"The file {filename!r} contains {what}.")
    return text


def load_user_document(
    path_or_bytes: str | Path | bytes, filename: str, linker: NameLinker | None = None
) -> Document:
    """A user's file as a Document (``user/<filename>``) with the entities it mentions.

    `linker` defaults to one over the packaged HPO release; pass
    `NameLinker.from_entities(kb.entities)` to link to a built knowledge base instead.
    """
    name = PurePath(filename).name
    text = extract_text(path_or_bytes, name)
    doc_id = f"user/{name}"
    return Document(
        id=doc_id,
        title=name,
        source="user",
        text=text,
        generated=False,
        entity_ids=(linker or default_linker()).link(text),
        sources=[doc_id],
    )


def chunk_user_document(doc: Document, linker: NameLinker | None = None) -> list[Chunk]:
    """Chunks of a user document, each listing the entities it mentions itself."""
    linker = linker or default_linker()
    return [
        Chunk(
            id=f"{doc.id}#{i}",
            doc_id=doc.id,
            title=doc.title,
            source=doc.source,
            position=i,
            text=text,
            entity_ids=linker.link(text),
            sources=list(doc.sources),
            generated=False,
        )
        for i, text in enumerate(chunk_text(doc.text))
    ]
