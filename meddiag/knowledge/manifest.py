"""The knowledge base's manifest (`manifest.json`): what was built, from what, with what, where."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from meddiag.errors import KnowledgeBaseStale

MANIFEST_FILE = "manifest.json"
# Bump whenever the records, collections or graph layout a build writes change, or what they
# say (3: OMIM's "intellectual developmental disorder" names linked to MONDO; 4: every
# direct MONDO parent of a linked class kept): an older knowledge base is then rebuilt
# instead of being read with the wrong assumptions or facts.
SCHEMA_VERSION = 4
COLLECTIONS = ("chunks", "entities", "entity_names", "relationships", "hyperedges")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SourceInfo(_Model):
    name: str
    version: str


class EmbedderInfo(_Model):
    name: str
    dim: int
    fingerprint: str


class Counts(_Model):
    documents: int = 0
    chunks: int = 0
    entities: dict[str, int] = Field(default_factory=dict)  # by type
    relations: dict[str, int] = Field(default_factory=dict)  # by predicate
    hyperedges: int = 0
    vectors: dict[str, int] = Field(default_factory=dict)  # by collection


class Manifest(_Model):
    schema_version: int = SCHEMA_VERSION
    profile: str
    build_id: str
    created: datetime
    sources: list[SourceInfo]
    source_key: str  # fingerprint of the inputs; an unchanged key lets a rebuild be skipped
    counts: Counts
    embedder: EmbedderInfo
    collections: dict[str, str]  # logical name -> physical Milvus collection
    vector_store: Literal["milvus-lite", "milvus-server"]
    milvus_uri: str = ""  # the server URI; empty for the Lite file inside the KB directory
    graph_store: Literal["local", "neo4j"]
    neo4j_uri: str = ""
    build_seconds: float
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    stage_cpu_seconds: dict[str, float] = Field(default_factory=dict)
    stats: dict[str, int] = Field(default_factory=dict)  # assembly statistics


def read_manifest(kb_dir: Path) -> Manifest | None:
    """The manifest of the knowledge base in `kb_dir`, or None when nothing was built there."""
    path = kb_dir / MANIFEST_FILE
    if not path.is_file():
        return None
    try:
        return Manifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as err:
        raise KnowledgeBaseStale(
            f"The knowledge base in {kb_dir} was written by another MedDiag version; "
            "rebuild it with `meddiag build --force`."
        ) from err


def write_manifest(kb_dir: Path, manifest: Manifest) -> Path:
    path = kb_dir / MANIFEST_FILE
    path.write_text(manifest.model_dump_json(indent=2), encoding="utf-8")
    return path
