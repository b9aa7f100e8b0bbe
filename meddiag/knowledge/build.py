"""Build the knowledge base: assemble → fit embedder → embed and write vectors → write graph → manifest.

The build is atomic: everything is written into a temporary sibling of the live directory,
which is swapped in by renames only once every stage succeeded, so an interrupted or failed
build leaves the previous knowledge base as it was. A build whose inputs, schema and
embedder are unchanged is skipped unless forced.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import secrets
import shutil
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from meddiag.config import Settings, get_settings
from meddiag.errors import KnowledgeBaseMissing, KnowledgeBaseStale, MedDiagError, StoreLocked
from meddiag.knowledge.manifest import (
    COLLECTIONS,
    SCHEMA_VERSION,
    Counts,
    EmbedderInfo,
    Manifest,
    SourceInfo,
    read_manifest,
    write_manifest,
)
from meddiag.knowledge.model import NAME_ONLY_TYPES, Entity, KnowledgeBase, Relation
from meddiag.stores.base import VectorRecord, VectorStore
from meddiag.stores.embedders import Embedder, create_embedder
from meddiag.stores.factory import (
    graph_store_kind,
    open_local_graph,
    open_neo4j,
    open_vector_store,
    vector_store_kind,
)

log = logging.getLogger(__name__)

Progress = Callable[[str, float], None]
EMBED_BATCH = 2048
GROUP_SIZE = (
    25  # objects per relationship-group record: long enough to aggregate, short enough to stay on topic
)
PHRASES = {
    "HAS_PHENOTYPE": "has the phenotype",
    "NOT_HAS_PHENOTYPE": "does not have the phenotype",
    "IS_A": "is a kind of",
    "ASSOCIATED_GENE": "is associated with the gene",
    "HAS_INHERITANCE": "is inherited as",
    "HAS_ONSET": "has onset",
    "EQUIVALENT_TO": "is equivalent to",
}
# Share of the progress bar each stage takes (the UI shows one bar for the whole build).
SPAN = {"assemble": (0.0, 0.3), "fit": (0.3, 0.38), "vectors": (0.38, 0.86), "graph": (0.86, 0.97)}


# --------------------------------------------------------------------------- vector records


@dataclass(frozen=True)
class Pending:
    """A vector record before its text is embedded."""

    id: str
    text: str
    kind: str
    sources: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


def chunk_records(kb: KnowledgeBase) -> list[Pending]:
    return [
        Pending(
            id=c.id,
            text=c.text,
            kind=c.source,
            sources=tuple(c.sources),
            extra={
                "doc_id": c.doc_id,
                "title": c.title,
                "source": c.source,
                "position": c.position,
                "entity_ids": c.entity_ids,
                "generated": c.generated,
            },
        )
        for c in kb.chunks
    ]


def entity_text(entity: Entity) -> str:
    """What an entity's vector stands for: its name, a few synonyms, its description."""
    text = entity.name
    if entity.synonyms:
        text += f" (also: {'; '.join(entity.synonyms[:5])})"
    return f"{text}. {entity.description}" if entity.description else text


def entity_records(kb: KnowledgeBase) -> list[Pending]:
    """One record per entity: its name, description and a few synonyms (`id` = entity id)."""
    return [
        Pending(id=e.id, text=entity_text(e), kind=e.type, sources=tuple(e.sources), extra={"name": e.name})
        for e in kb.entities
    ]


def entity_name_records(kb: KnowledgeBase) -> list[Pending]:
    """One record per distinct name or synonym, for linking a phrase to an entity."""
    records = []
    for e in kb.entities:
        seen: set[str] = set()
        names = [e.name] if e.type in NAME_ONLY_TYPES else [e.name, *e.synonyms]
        for i, name in enumerate(names):
            if not name.strip() or name.lower() in seen:
                continue
            seen.add(name.lower())
            records.append(
                Pending(
                    id=f"{e.id}#{i}",
                    text=name,
                    kind=e.type,
                    extra={"entity_id": e.id, "name": e.name, "synonym": i > 0},
                )
            )
    return records


def _object_label(relation: Relation, names: dict[str, str]) -> str:
    label = names.get(relation.object, relation.object)
    return f"{label} ({relation.frequency_label})" if relation.frequency_label else label


def relationship_records(kb: KnowledgeBase) -> list[Pending]:
    """Relations grouped per subject and predicate, so ~250k edges become tens of thousands of
    records. A group of one is that relation (`id` = ``s|P|o``); larger groups list their
    objects in `extra["objects"]` (`id` = ``s|P|group<n>``) and cite the union of their sources."""
    names = {e.id: e.name for e in kb.entities}
    types = {e.id: e.type for e in kb.entities}
    groups: dict[tuple[str, str], list[Relation]] = defaultdict(list)
    for r in kb.relations:
        if r.predicate == "IS_A" and types.get(r.subject) == "Phenotype":
            continue  # the HPO hierarchy (~55k edges) is in the graph and the HPO term documents
        groups[(r.subject, r.predicate)].append(r)
    records = []
    for (subject, predicate), relations in groups.items():
        relations.sort(key=lambda r: (-(r.frequency or 0.0), names.get(r.object, r.object)))
        subject_name = names.get(subject, subject)
        phrase = PHRASES.get(predicate, predicate.lower().replace("_", " "))
        for n, start in enumerate(range(0, len(relations), GROUP_SIZE)):
            part = relations[start : start + GROUP_SIZE]
            text = f"{subject_name} {phrase}: " + "; ".join(_object_label(r, names) for r in part)
            sources = tuple(sorted({s for r in part for s in r.sources}))
            extra: dict[str, Any] = {
                "subject": subject,
                "predicate": predicate,
                "objects": [r.object for r in part],
            }
            if len(relations) == 1:
                extra["object"] = part[0].object
                record_id = part[0].key
            else:
                record_id = f"{subject}|{predicate}|group{n}"
            records.append(Pending(id=record_id, text=text, kind=predicate, sources=sources, extra=extra))
    return records


def hyperedge_records(kb: KnowledgeBase) -> list[Pending]:
    return [
        Pending(
            id=h.id, text=h.text, kind="hyperedge", sources=tuple(h.sources), extra={"members": h.members}
        )
        for h in kb.hyperedges
    ]


def vector_records(kb: KnowledgeBase) -> dict[str, list[Pending]]:
    """Every collection's records, in `COLLECTIONS` order."""
    builders = {
        "chunks": chunk_records,
        "entities": entity_records,
        "entity_names": entity_name_records,
        "relationships": relationship_records,
        "hyperedges": hyperedge_records,
    }
    return {name: _unique(builders[name](kb), name) for name in COLLECTIONS}


def _unique(records: list[Pending], collection: str) -> list[Pending]:
    ids = Counter(r.id for r in records)
    duplicated = [i for i, n in ids.items() if n > 1]
    if duplicated:
        raise MedDiagError(
            f"The knowledge base has duplicate {collection} ids (e.g. {duplicated[0]!r}); "
            "this is a bug in assembling it."
        )
    return records


# --------------------------------------------------------------------------- stage bookkeeping


class _Stages:
    """Times each stage, reports progress to the callback, and draws tqdm bars on stderr."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress or (lambda _message, _fraction: None)
        self.seconds: dict[str, float] = defaultdict(float)
        self.cpu_seconds: dict[str, float] = defaultdict(float)  # fairer than wall time on a shared machine

    def report(self, message: str, fraction: float) -> None:
        self.progress(message, min(max(fraction, 0.0), 1.0))

    @contextmanager
    def stage(self, name: str, message: str | None = None) -> Iterator[None]:
        if message:
            self.report(message, SPAN.get(name, (1.0, 1.0))[0])
        started, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - started
            self.cpu_seconds[name] += time.process_time() - cpu

    def span(self, name: str, message: str, fraction: float) -> None:
        lo, hi = SPAN[name]
        self.report(message, lo + (hi - lo) * fraction)


def _bar(total: int, desc: str) -> tqdm:
    return tqdm(total=total, desc=desc, file=sys.stderr, unit="rec", leave=False, dynamic_ncols=True)


# --------------------------------------------------------------------------- inputs and skipping


def _packaged_source_key(profile: str) -> tuple[str, list[SourceInfo]]:
    from meddiag.knowledge.sources import packaged_sources

    files = packaged_sources()
    digest = hashlib.sha256(f"{SCHEMA_VERSION}|{profile}".encode())
    for path in (files.hp_obo, files.phenotype_hpoa, files.genes_to_phenotype, files.mondo_json_zst):
        digest.update(f"|{path.name}:{path.stat().st_size}".encode())
    sources = [
        SourceInfo(name="hpo", version=files.hpo_version),
        SourceInfo(name="mondo", version=files.mondo_version),
    ]
    return digest.hexdigest()[:20], sources


def _kb_key(kb: KnowledgeBase) -> str:
    digest = hashlib.sha256(f"{SCHEMA_VERSION}|".encode())
    digest.update(kb.model_dump_json().encode())
    return digest.hexdigest()[:20]


def _is_current(existing: Manifest | None, key: str, settings: Settings) -> bool:
    return (
        existing is not None
        and existing.schema_version == SCHEMA_VERSION
        and existing.source_key == key
        and existing.embedder.name == settings.embedder_for(existing.embedder.name)
        and existing.vector_store == vector_store_kind(settings)
        and existing.milvus_uri == (settings.milvus_uri if settings.uses_milvus_server else "")
        and existing.graph_store == graph_store_kind(settings)
        and existing.neo4j_uri == settings.neo4j_uri
    )


def _existing_manifest(kb_dir: Path) -> Manifest | None:
    try:
        return read_manifest(kb_dir)
    except KnowledgeBaseStale:
        return None  # unreadable: rebuild over it


@contextmanager
def _build_lock(kb_dir: Path) -> Iterator[None]:
    """One build per knowledge-base directory at a time, across processes."""
    kb_dir.parent.mkdir(parents=True, exist_ok=True)
    lock_path = kb_dir.parent / f".{kb_dir.name}.build.lock"
    with lock_path.open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as err:
            raise StoreLocked(
                "Knowledge base build",
                f"another MedDiag process is already building the {kb_dir.name} knowledge base; "
                "wait for it to finish",
            ) from err
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _new_build_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dt%H%M%S") + "_" + secrets.token_hex(3)


def collection_names(profile: str, build_id: str) -> dict[str, str]:
    """Physical collection names, prefixed by profile and build so old and new builds coexist."""
    prefix = f"md_{profile}_{build_id}".replace("-", "_")
    return {name: f"{prefix}_{name}" for name in COLLECTIONS}


# --------------------------------------------------------------------------- stages


def _assemble(settings: Settings, stages: _Stages) -> KnowledgeBase:
    from meddiag.knowledge.assemble import assemble_kb
    from meddiag.knowledge.sources import packaged_sources

    with stages.stage("assemble"), tqdm(total=100, desc="assemble", file=sys.stderr, leave=False) as bar:

        def on_progress(message: str, fraction: float) -> None:
            bar.set_postfix_str(message)
            bar.update(round(fraction * 100) - bar.n)
            stages.span("assemble", message, fraction)

        return assemble_kb(packaged_sources(), settings.profile, progress=on_progress)


def _with_user_documents(kb: KnowledgeBase, settings: Settings) -> KnowledgeBase:
    """Re-index the documents users uploaded, so a rebuild never loses them."""
    from meddiag.knowledge.ingest import stored_user_documents
    from meddiag.knowledge.user_docs import NameLinker

    if not (settings.home / "user_docs").is_dir():
        return kb
    documents, chunks = stored_user_documents(settings.home, NameLinker.from_entities(kb.entities))
    kb.documents.extend(documents)
    kb.chunks.extend(chunks)
    return kb


def _fit_embedder(name: str, records: dict[str, list[Pending]], stages: _Stages) -> Embedder:
    stages.span("fit", f"Fitting the {name} embedder", 0.0)
    with stages.stage("fit_embedder"):
        embedder = create_embedder(name)
        if embedder.needs_fit:
            # Interleave collections so an even sample of the corpus covers all of them.
            corpus = [p.text for name in COLLECTIONS for p in records[name]]
            embedder.fit(corpus)
    return embedder


def _write_vectors(
    store: VectorStore,
    names: dict[str, str],
    records: dict[str, list[Pending]],
    embedder: Embedder,
    stages: _Stages,
) -> dict[str, int]:
    total = sum(len(r) for r in records.values()) or 1
    done = 0
    counts: dict[str, int] = {}
    for name in COLLECTIONS:
        pending = records[name]
        physical = names[name]
        store.create(physical, embedder.dim)
        with _bar(len(pending), f"embed+write {name}") as bar:
            for start in range(0, len(pending), EMBED_BATCH):
                batch = pending[start : start + EMBED_BATCH]
                with stages.stage(f"embed_{name}"):
                    vectors = embedder.embed([p.text for p in batch])
                with stages.stage(f"write_{name}"):
                    store.insert(
                        physical,
                        (
                            VectorRecord(
                                id=p.id, vector=v, text=p.text, kind=p.kind, sources=p.sources, extra=p.extra
                            )
                            for p, v in zip(batch, vectors, strict=True)
                        ),
                    )
                bar.update(len(batch))
                done += len(batch)
                stages.span("vectors", f"Embedding and indexing {name}", done / total)
        with stages.stage(f"index_{name}"):
            store.finish(physical)
        counts[name] = len(pending)
    return counts


def _write_graph(settings: Settings, kb: KnowledgeBase, build_dir: Path, stages: _Stages) -> None:
    """Save the local graph (always: it keeps the directory self-contained) and fill Neo4j if set."""
    with stages.stage("write_graph"):
        stages.span("graph", "Writing the knowledge graph", 0.0)
        local = open_local_graph(build_dir)
        local.upsert_entities(kb.entities)
        local.upsert_relations(kb.relations)
        local.save()
        if settings.uses_neo4j:
            stages.span("graph", "Writing the knowledge graph to Neo4j", 0.3)
            neo4j = open_neo4j(settings)
            try:
                neo4j.clear()
                neo4j.upsert_entities(kb.entities)
                neo4j.upsert_relations(kb.relations)
            finally:
                neo4j.close()


def _swap_in(build_dir: Path, kb_dir: Path) -> None:
    """Replace `kb_dir` by `build_dir` with two renames; the old one is removed only afterwards."""
    old = kb_dir.parent / f".{kb_dir.name}.old-{secrets.token_hex(3)}"
    had_old = kb_dir.exists()
    if had_old:
        os.rename(kb_dir, old)
    try:
        os.rename(build_dir, kb_dir)
    except OSError:
        if had_old:
            os.rename(old, kb_dir)
        raise
    if had_old:
        shutil.rmtree(old, ignore_errors=True)


def _drop_collections(settings: Settings, kb_dir: Path, names: Sequence[str]) -> None:
    """Drop a superseded build's collections on a Milvus server (a Lite file goes with its directory)."""
    if not names or not settings.uses_milvus_server:
        return
    store = open_vector_store(settings, kb_dir)
    try:
        for name in names:
            store.drop(name)
    finally:
        store.close()


# --------------------------------------------------------------------------- the build


def build_knowledge_base(
    settings: Settings,
    *,
    profile: str | None = None,
    force: bool = False,
    progress: Progress | None = None,
    kb: KnowledgeBase | None = None,
) -> Manifest:
    """Build (or keep, when current) the knowledge base of `settings.profile` in `settings.kb_dir`.

    `kb` replaces assembling from the packaged sources (tests, user-supplied content).
    `progress(message, fraction)` receives the overall progress in [0, 1].
    """
    if profile:
        settings = settings.model_copy(update={"profile": profile})
    kb_dir = settings.kb_dir
    stages = _Stages(progress)
    started = time.perf_counter()
    with _build_lock(kb_dir):
        if kb is None:
            key, sources = _packaged_source_key(settings.profile)
        else:
            key = _kb_key(kb)
            sources = [SourceInfo(name=k, version=v) for k, v in sorted(kb.versions.items())]
        existing = _existing_manifest(kb_dir)
        if not force and _is_current(existing, key, settings):
            assert existing is not None
            stages.report("The knowledge base is up to date.", 1.0)
            return existing

        build_id = _new_build_id()
        names = collection_names(settings.profile, build_id)
        build_dir = kb_dir.parent / f".{kb_dir.name}.building-{build_id}"
        build_dir.mkdir(parents=True)
        vectors = None
        try:
            if kb is None:
                kb = _assemble(settings, stages)
                sources = [SourceInfo(name=k, version=v) for k, v in sorted(kb.versions.items())] or sources
            kb = _with_user_documents(kb, settings)
            with stages.stage("records"):
                records = vector_records(kb)
            embedder = _fit_embedder(settings.embedder, records, stages)
            embedder.save(build_dir)
            vectors = open_vector_store(settings, build_dir)
            vector_counts = _write_vectors(vectors, names, records, embedder, stages)
            vectors.close()
            vectors = None
            _write_graph(settings, kb, build_dir, stages)
            manifest = Manifest(
                profile=settings.profile,
                build_id=build_id,
                created=datetime.now(UTC),
                sources=sources,
                source_key=key,
                counts=Counts(
                    documents=len(kb.documents),
                    chunks=len(kb.chunks),
                    entities=dict(sorted(Counter(e.type for e in kb.entities).items())),
                    relations=dict(sorted(Counter(r.predicate for r in kb.relations).items())),
                    hyperedges=len(kb.hyperedges),
                    vectors=vector_counts,
                ),
                embedder=EmbedderInfo(name=embedder.name, dim=embedder.dim, fingerprint=embedder.fingerprint),
                collections=names,
                vector_store=vector_store_kind(settings),
                milvus_uri=settings.milvus_uri if settings.uses_milvus_server else "",
                graph_store=graph_store_kind(settings),
                neo4j_uri=settings.neo4j_uri,
                build_seconds=0.0,
                stage_seconds={},
                stats={k: int(v) for k, v in kb.stats.items()},
            )
            with stages.stage("manifest"):
                stages.report("Swapping in the new knowledge base", 0.98)
                manifest.stage_seconds = {k: round(v, 3) for k, v in stages.seconds.items()}
                manifest.stage_cpu_seconds = {k: round(v, 3) for k, v in stages.cpu_seconds.items()}
                manifest.build_seconds = round(time.perf_counter() - started, 3)
                write_manifest(build_dir, manifest)
                _swap_in(build_dir, kb_dir)
        except BaseException:
            if vectors is not None:
                vectors.close()
            shutil.rmtree(build_dir, ignore_errors=True)
            try:
                _drop_collections(settings, kb_dir, list(names.values()))
            except MedDiagError as cleanup:  # keep the build's own error as the one the user sees
                log.warning("could not drop the failed build's collections: %s", cleanup)
            raise
        if existing is not None:
            _drop_collections(settings, kb_dir, list(existing.collections.values()))
    stages.report("Knowledge base ready", 1.0)
    log.info("built the %s knowledge base in %.1f s", settings.profile, manifest.build_seconds)
    return manifest


# --------------------------------------------------------------------------- CLI helpers


def run_build(profile: str | None, force: bool) -> Manifest:
    """`meddiag build`: build the configured (or named) profile's knowledge base."""
    return build_knowledge_base(get_settings(), profile=profile, force=force)


def kb_stats(settings: Settings) -> dict[str, Any]:
    """`meddiag stats`: the manifest flattened for printing."""
    manifest = read_manifest(settings.kb_dir)
    if manifest is None:
        raise KnowledgeBaseMissing("No knowledge base yet — run `meddiag build` or open the app to build it.")
    counts = manifest.counts
    return {
        "profile": manifest.profile,
        "build_id": manifest.build_id,
        "created": manifest.created.isoformat(),
        "documents": counts.documents,
        "chunks": counts.chunks,
        "entities": counts.entities,
        "relations": counts.relations,
        "hyperedges": counts.hyperedges,
        "vectors": counts.vectors,
        "sources": {s.name: s.version for s in manifest.sources},
        "embedder": manifest.embedder.model_dump(),
        "graph_store": manifest.graph_store,
        "vector_store": manifest.vector_store,
        "build_seconds": manifest.build_seconds,
    }
