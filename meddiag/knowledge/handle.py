"""Opening a built knowledge base: its manifest, vector store, graph store and embedder together.

One handle per process is the caller's job (the UI caches it). A second process opening the
same Milvus Lite file is refused with `StoreLocked`.
"""

from __future__ import annotations

import gc
from pathlib import Path
from types import TracebackType

from meddiag.config import Settings, get_settings
from meddiag.errors import EmbedderMismatch, KnowledgeBaseMissing, KnowledgeBaseStale, MedDiagError
from meddiag.knowledge.manifest import SCHEMA_VERSION, Manifest, read_manifest
from meddiag.stores.base import GraphStore, VectorStore
from meddiag.stores.embedders import Embedder, load_embedder
from meddiag.stores.factory import open_local_graph, open_neo4j, open_vector_store, vector_store_kind
from meddiag.stores.local_graph import GRAPH_FILE

MISSING = "No knowledge base yet — run `meddiag build` or open the app to build it."
# The local graph is millions of objects that live as long as the process. At CPython's
# default thresholds the cyclic collector runs every 700 allocations, and its full passes walk
# all of them (2-2.5 s on the full KB, landing on whichever question is being answered; ~50 ms
# per MiniRAG retrieval on average). Rarer young collections keep full passes rare too; memory
# is still freed at once by reference counting, only cycles wait longer.
COLLECTOR_THRESHOLDS = (50_000, 20, 100)


class KnowledgeBaseHandle:
    """An open knowledge base. Close it (or use it as a context manager) to release its stores."""

    def __init__(
        self,
        settings: Settings,
        manifest: Manifest,
        vectors: VectorStore,
        graph: GraphStore,
        embedder: Embedder,
    ) -> None:
        self.settings = settings
        self.manifest = manifest
        self.vectors = vectors
        self.graph = graph
        self.embedder = embedder
        self._closed = False

    @property
    def kb_dir(self) -> Path:
        return self.settings.kb_dir

    def collection(self, name: str) -> str:
        """The physical Milvus collection behind a logical name (`chunks`, `entities`, ...)."""
        try:
            return self.manifest.collections[name]
        except KeyError as err:
            known = ", ".join(sorted(self.manifest.collections))
            raise MedDiagError(f"The knowledge base has no {name!r} collection (it has {known}).") from err

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.vectors.close()
        self.graph.close()

    def __enter__(self) -> KnowledgeBaseHandle:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _check_compatible(manifest: Manifest, settings: Settings) -> None:
    if manifest.schema_version != SCHEMA_VERSION:
        raise KnowledgeBaseStale(
            f"The knowledge base was built by another MedDiag version (layout {manifest.schema_version}, "
            f"expected {SCHEMA_VERSION}); build it again on the Knowledge base page or with `meddiag build`."
        )
    if manifest.embedder.name != settings.embedder:
        raise EmbedderMismatch(
            f"The knowledge base was indexed with the '{manifest.embedder.name}' embedder but "
            f"'{settings.embedder}' is configured; set MEDDIAG_EMBEDDER back or rebuild with "
            "`meddiag build --force`."
        )
    if manifest.vector_store != vector_store_kind(settings) or (
        settings.uses_milvus_server and manifest.milvus_uri != settings.milvus_uri
    ):
        where = manifest.milvus_uri or "its Milvus Lite file"
        raise KnowledgeBaseStale(
            f"The knowledge base's vectors live in {where}, but another Milvus is configured now; "
            "rebuild with `meddiag build --force` or restore MEDDIAG_MILVUS_URI."
        )
    if settings.uses_neo4j and (manifest.graph_store != "neo4j" or manifest.neo4j_uri != settings.neo4j_uri):
        raise KnowledgeBaseStale(
            "Neo4j is configured but this knowledge base's graph was not written there; "
            "rebuild with `meddiag build --force` to fill it."
        )


def open_knowledge_base(
    settings: Settings | None = None, *, vectors_uri: str | None = None
) -> KnowledgeBaseHandle:
    """Open the built knowledge base of the configured profile.

    `vectors_uri` attaches to vectors another process of this machine has open (its store's
    `shared_uri()`), instead of opening them from the configuration.

    Raises `KnowledgeBaseMissing` when none was built, `KnowledgeBaseStale` / `EmbedderMismatch`
    when it cannot be read with the current configuration, `StoreLocked` when another process
    holds its Milvus Lite file, and `StoreUnavailable` when a server cannot be reached.
    """
    settings = settings or get_settings()
    kb_dir = settings.kb_dir
    manifest = read_manifest(kb_dir)
    if manifest is None:
        raise KnowledgeBaseMissing(MISSING)
    settings = settings.model_copy(update={"embedder": settings.embedder_for(manifest.embedder.name)})
    _check_compatible(manifest, settings)
    embedder = load_embedder(kb_dir, settings.embedder)
    if embedder.fingerprint != manifest.embedder.fingerprint:
        raise EmbedderMismatch(
            "The embedder saved with the knowledge base does not match its index; rebuild with "
            "`meddiag build --force`."
        )
    if not settings.uses_neo4j and not (kb_dir / GRAPH_FILE).is_file():
        raise KnowledgeBaseStale(
            f"The knowledge graph file is missing from {kb_dir}; rebuild the knowledge base."
        )
    vectors = open_vector_store(settings, kb_dir, attach=vectors_uri)
    try:
        graph: GraphStore = open_neo4j(settings) if settings.uses_neo4j else open_local_graph(kb_dir)
    except BaseException:
        vectors.close()
        raise
    relax_collector()
    return KnowledgeBaseHandle(settings, manifest, vectors, graph, embedder)


def relax_collector() -> None:
    """Raise the cyclic collector's thresholds to `COLLECTOR_THRESHOLDS` (never lower them)."""
    current = gc.get_threshold()
    gc.set_threshold(*(max(c, w) for c, w in zip(current, COLLECTOR_THRESHOLDS, strict=True)))
