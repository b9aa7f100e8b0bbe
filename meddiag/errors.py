"""Typed errors. The engine raises these loudly; the CLI and UI turn them into messages."""

from __future__ import annotations


class MedDiagError(Exception):
    """Base class: every error a user may see. `str(err)` is a sentence a clinician understands."""


class InputError(MedDiagError):
    """The question or uploaded file cannot be used as given."""


class SettingsError(MedDiagError):
    """A `MEDDIAG_*` variable (environment or `.env`) holds a value MedDiag cannot use."""


class KnowledgeBaseMissing(MedDiagError):
    """No knowledge base has been built yet at the configured location."""


class KnowledgeBaseStale(MedDiagError):
    """The knowledge base on disk was built by an incompatible version or embedder."""


class EmbedderMismatch(KnowledgeBaseStale):
    """The index was built with another embedding model or dimension than the one configured."""


class StoreUnavailable(MedDiagError):
    """A store (Milvus, Neo4j) cannot be reached or opened."""

    def __init__(self, store: str, detail: str) -> None:
        self.store = store
        self.detail = detail
        super().__init__(f"{store} is unavailable: {detail}")


class StoreLocked(StoreUnavailable):
    """Another process holds the Milvus Lite file."""


class ContextFormatError(MedDiagError):
    """A backend's raw context does not have the format its parser expects."""

    def __init__(self, backend: str, section: str, detail: str = "") -> None:
        self.backend = backend
        self.section = section
        msg = f"{backend} context: section {section!r} is missing or malformed"
        super().__init__(f"{msg}: {detail}" if detail else msg)


class ReasonerError(MedDiagError):
    """The LLM endpoint failed or answered with something that does not validate."""


class BackendError(MedDiagError):
    """A retrieval backend failed."""


class CitationError(ReasonerError):
    """A synthesis cites evidence that no hop retrieved (a bug to fix, never to hide)."""
