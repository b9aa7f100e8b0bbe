"""Upstream LightRAG (lightrag-hku 1.5.7) beside our LightRAG backend on the same knowledge graph, warm.

Loads our knowledge base into lightrag-hku through `insert_custom_kg` (our chunks, entities and
relations, embedded with our own embedder) once, caches it in --workdir, then times retrieval of
both on real patient vignettes: p50/p95 wall time per query, mode `mix`, the same top_k and token
budgets, and the same dual-level keywords (ours, extracted offline; their extraction is timed
apart and left out of both). lightrag-hku gets a word tokenizer, our embedder and an LLM function
that refuses to run: only the context is asked for, so no LLM is needed. Also prints the share of
cases whose gold disease is among the retrieved entities and relation ends (nothing is left out on
either side: lightrag-hku cannot exclude sources). Reads GA4GH phenopackets (never copied into the
project); prints numbers and never asserts on time.

lightrag-hku is a benchmark-only extra, never a dependency of MedDiag:

    pip install lightrag-hku==1.5.7
    python bench/lightrag_hku.py                                   # the full KB (see bench/retrieval.py)
    python bench/lightrag_hku.py --home /tmp/demo --profile demo --cases 50
    python bench/lightrag_hku.py --limit-relations 20000 --rebuild  # a quick try on a subset

The lightrag-hku copy lives in --workdir (default `.meddiag/lightrag-hku/<profile>`) and is
rebuilt when the knowledge base, the subset or lightrag-hku's version changed, or with --rebuild.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import shutil
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from meddiag.backends.base import (
    Backend,
    Keywords,
    TokenBudgets,
    chunk_from_hit,
    describe_relation,
    predicate_phrase,
)
from meddiag.backends.keywords import extract_keywords
from meddiag.backends.registry import get_backend
from meddiag.errors import MedDiagError
from meddiag.eval.phenopackets import Case, load_cases
from meddiag.eval.questions import vignette
from meddiag.knowledge.build import entity_text
from meddiag.knowledge.handle import KnowledgeBaseHandle
from meddiag.knowledge.model import Chunk, Entity, Relation
from meddiag.stores.base import VectorHit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ helpers, however this file is run
from retrieval import (
    DEFAULT_CASES,
    WARM_UP,
    bench_settings,
    gold,
    open_kb,
    percentile,
    relational_ids,
)

HKU_VERSION = "1.5.7"
INSTALL = f"pip install lightrag-hku=={HKU_VERSION}"
MARKER = "meddiag-source.json"  # what the cached copy was built from
CHUNK_PAGE = 1000
EMBED_BATCH = 2048  # texts per embedding call while building (lightrag-hku's default is 10)
EMBED_TIMEOUT_S = 600  # per call; lightrag-hku's default of 30 s is meant for a remote service
# lightrag-hku keeps 200 tokens of its context budget for references and safety.
HKU_BUFFER_TOKENS = 200


# --------------------------------------------------------------------------- lightrag-hku, lazily


def import_lightrag() -> ModuleType:
    """The installed `lightrag` package, or a clear exit telling how to install it."""
    try:
        import lightrag
    except ImportError:
        raise SystemExit(
            "lightrag-hku is not installed; it is a benchmark-only extra, not a MedDiag dependency.\n"
            f"Install it with:\n    {INSTALL}"
        ) from None
    version = getattr(lightrag, "__version__", "?")
    if version != HKU_VERSION:
        print(f"note: lightrag-hku {version} is installed; this benchmark was written for {HKU_VERSION}")
    return lightrag


class WordCodec:
    """A deterministic whitespace tokenizer: one token per word, as our budgets count tokens.

    A token is the word's UTF-8 bytes read as one integer (after a 0x01 lead byte, so no word
    loses leading bytes), which needs no vocabulary: stateless, so safe across threads and under
    `copy.deepcopy`, and decoding gives back the words joined by single spaces.
    """

    def encode(self, content: str) -> list[int]:
        return [int.from_bytes(b"\x01" + word.encode("utf-8"), "big") for word in content.split()]

    def decode(self, tokens: Sequence[int]) -> str:
        words = []
        for token in tokens:
            raw = token.to_bytes((token.bit_length() + 7) // 8, "big")
            words.append(raw[1:].decode("utf-8", errors="replace"))
        return " ".join(words)


@dataclass
class NoLLM:
    """lightrag-hku's LLM function: retrieval must never need one, so any call fails loudly."""

    calls: int = 0

    async def __call__(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        self.calls += 1
        raise RuntimeError(
            "lightrag-hku asked for an LLM; this benchmark passes keywords and asks only for context"
        )


def make_rag(hku: ModuleType, workdir: Path, kb: KnowledgeBaseHandle, llm: NoLLM) -> Any:
    """A lightrag-hku instance over `workdir` with our embedder, a word tokenizer and no LLM."""
    from lightrag.utils import EmbeddingFunc, Tokenizer

    embedder = kb.embedder

    async def embed(texts: list[str], **_: Any) -> np.ndarray:
        return np.asarray(embedder.embed(list(texts)), dtype=np.float32)

    return hku.LightRAG(
        working_dir=str(workdir),
        workspace="",  # not the WORKSPACE environment variable
        embedding_func=EmbeddingFunc(
            embedding_dim=kb.manifest.embedder.dim, func=embed, model_name=kb.manifest.embedder.name
        ),
        embedding_batch_num=EMBED_BATCH,
        embedding_func_max_async=1,  # our embedder runs in the loop's thread: one call at a time
        default_embedding_timeout=EMBED_TIMEOUT_S,
        llm_model_func=llm,
        enable_llm_cache=False,
        tokenizer=Tokenizer("meddiag-words", WordCodec()),
    )


# --------------------------------------------------------------------------- our KB as a custom KG


def read_chunks(kb: KnowledgeBaseHandle) -> list[Chunk]:
    """Every chunk record of the KB's `chunks` collection, read through the store's own server."""
    from pymilvus import MilvusClient

    settings = kb.settings
    client = MilvusClient(uri=kb.vectors.shared_uri(), token=settings.milvus_token.get_secret_value())
    logging.getLogger("pymilvus").setLevel(logging.ERROR)  # the Lite server has no MVCC timestamp
    chunks: list[Chunk] = []
    try:
        pages = client.query_iterator(
            kb.collection("chunks"), batch_size=CHUNK_PAGE, output_fields=["text", "kind", "sources", "extra"]
        )
        while rows := pages.next():
            for row in rows:
                hit = VectorHit(
                    id=str(row["id"]),
                    score=0.0,
                    text=row["text"],
                    kind=row["kind"],
                    sources=tuple(row.get("sources") or ()),
                    extra=dict(row.get("extra") or {}),
                )
                chunks.append(chunk_from_hit(hit))
        pages.close()
    finally:
        client.close()
    chunks.sort(key=lambda c: (c.doc_id, c.position))
    return chunks


@dataclass
class CustomKG:
    """The `insert_custom_kg` payload, and how its entity names map back to our ids."""

    chunks: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    relationships: list[dict[str, Any]] = field(default_factory=list)
    ids_by_name: dict[str, str] = field(default_factory=dict)
    entities_without_chunk: int = 0
    relations_without_chunk: int = 0
    merged_pairs: int = 0
    self_loops: int = 0

    def payload(self) -> dict[str, Any]:
        return {"chunks": self.chunks, "entities": self.entities, "relationships": self.relationships}


def entity_labels(entities: Sequence[Entity], normalise: Any) -> dict[str, str]:
    """A node name per entity: its name as lightrag-hku normalises it, with the id added where
    two entities would share one (LightRAG keys its graph by name, we by id)."""
    normal = {e.id: normalise(e.name) or "" for e in entities}
    shared = Counter(normal.values())
    labels: dict[str, str] = {}
    for e in entities:
        label = normal[e.id]
        if not label or shared[label] > 1:
            label = normalise(f"{e.name} ({e.id})") or normalise(e.id)
        labels[e.id] = label
    return labels


def custom_kg(
    entities: Sequence[Entity], relations: Sequence[Relation], chunks: Sequence[Chunk], normalise: Any
) -> CustomKG:
    """Our chunks, entities and relations in lightrag-hku's custom-KG shape.

    A chunk's alias (`source_id`) is our chunk id. An entity cites its own document's first chunk
    (its HPO term page, MONDO description or disease profile), else the first chunk naming it, else
    a chunk of its own holding its entity record (name, synonyms, description): lightrag-hku marks
    an entity without a chunk UNKNOWN and then, on every query that meets it, drops its vector
    chunk selection for the weight-based one. A relation cites a chunk that names both ends, else
    none (a source-less relation). Relations between the same two entities become one row, as
    lightrag-hku stores edges undirected.
    """
    kg = CustomKG()
    labels = entity_labels(entities, normalise)
    kg.ids_by_name = {label: eid for eid, label in labels.items()}
    names = {e.id: e.name for e in entities}
    mentions: dict[str, list[str]] = defaultdict(list)
    own: dict[str, str] = {}
    doc_of: dict[str, str] = {}
    for c in chunks:
        kg.chunks.append(
            {"content": c.text, "source_id": c.id, "chunk_order_index": c.position, "file_path": c.doc_id}
        )
        doc_of[c.id] = c.doc_id
        own.setdefault(c.doc_id.split("/", 1)[-1], c.id)
        for eid in c.entity_ids:
            mentions[eid].append(c.id)
    mention_sets = {eid: set(ids) for eid, ids in mentions.items()}

    for e in entities:
        source = own.get(e.id) or next(iter(mentions.get(e.id, ())), "")
        if not source:
            source = f"entity/{e.id}"
            kg.chunks.append({"content": entity_text(e), "source_id": source, "file_path": source})
            kg.entities_without_chunk += 1
        kg.entities.append(
            {
                "entity_name": labels[e.id],
                "entity_type": e.type,
                "description": e.description or f"{e.type} {e.name}",
                "source_id": source,
                "file_path": doc_of.get(source, "meddiag"),
            }
        )

    pairs: dict[tuple[str, str], list[Relation]] = defaultdict(list)
    for rel in relations:
        if labels.get(rel.subject, rel.subject) == labels.get(rel.object, rel.object):
            kg.self_loops += 1
            continue
        pairs[(min(rel.subject, rel.object), max(rel.subject, rel.object))].append(rel)
    for (a, b), rels in pairs.items():
        kg.merged_pairs += len(rels) > 1
        fewer, more = sorted((a, b), key=lambda i: len(mentions.get(i, ())))
        both = mention_sets.get(more, set())
        source = next((cid for cid in mentions.get(fewer, ()) if cid in both), "")
        kg.relations_without_chunk += not source
        frequencies = [r.frequency for r in rels if r.frequency is not None]
        first = rels[0]
        kg.relationships.append(
            {
                "src_id": labels.get(first.subject, first.subject),
                "tgt_id": labels.get(first.object, first.object),
                "description": "; ".join(describe_relation(r, names) for r in rels),
                "keywords": ", ".join(dict.fromkeys(predicate_phrase(r.predicate) for r in rels)),
                # lightrag-hku wants weight >= the number of cited chunks; our frequency boosts it.
                "weight": (1.0 if source else 0.0) + (max(frequencies) if frequencies else 1.0),
                "source_id": source,
                "file_path": doc_of.get(source, "meddiag"),
            }
        )
    return kg


def subset(
    kb: KnowledgeBaseHandle, limit_relations: int | None
) -> tuple[list[Entity], list[Relation], list[Chunk]]:
    """The whole graph, or its first `limit_relations` relations with the entities at their ends
    and the chunks that name any of those entities."""
    relations = list(kb.graph.iter_relations())
    entities = list(kb.graph.iter_entities())
    chunks = read_chunks(kb)
    if limit_relations is None:
        return entities, relations, chunks
    relations = relations[:limit_relations]
    kept = {i for r in relations for i in (r.subject, r.object)}
    return (
        [e for e in entities if e.id in kept],
        relations,
        [c for c in chunks if kept.intersection(c.entity_ids)],
    )


# --------------------------------------------------------------------------- build or load


def source_key(kb: KnowledgeBaseHandle, limit_relations: int | None, version: str) -> dict[str, Any]:
    return {
        "profile": kb.manifest.profile,
        "kb_build_id": kb.manifest.build_id,
        "embedder": kb.manifest.embedder.fingerprint,
        "limit_relations": limit_relations,
        "lightrag_hku": version,
    }


def read_marker(workdir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((workdir / MARKER).read_text())
    except (OSError, ValueError):
        return None


def clear_workdir(workdir: Path) -> None:
    """Empty a work dir this script made (it holds our marker) or that is empty; refuse any other."""
    if not workdir.exists():
        return
    if read_marker(workdir) is None and any(workdir.iterdir()):
        raise SystemExit(
            f"{workdir} holds files this benchmark did not write; choose another --workdir or empty it"
        )
    shutil.rmtree(workdir)


@dataclass
class Prepared:
    rag: Any
    ids_by_name: dict[str, str]
    summary: str


def prepare(
    hku: ModuleType,
    loop: asyncio.AbstractEventLoop,
    kb: KnowledgeBaseHandle,
    workdir: Path,
    *,
    limit_relations: int | None,
    rebuild: bool,
    llm: NoLLM,
) -> Prepared:
    """Open the cached lightrag-hku copy of the KB, building it first when missing or stale."""
    from lightrag.utils import normalize_entity_name

    key = source_key(kb, limit_relations, getattr(hku, "__version__", "?"))
    marker = read_marker(workdir)
    if not rebuild and marker is not None and marker.get("source") == key and marker.get("complete"):
        start = time.perf_counter()
        rag = make_rag(hku, workdir, kb, llm)
        loop.run_until_complete(rag.initialize_storages())
        return Prepared(
            rag,
            dict(marker["ids_by_name"]),
            f"cached lightrag-hku copy in {workdir} loaded in {time.perf_counter() - start:.1f} s "
            f"(built in {marker['build_seconds']:.1f} s: {marker['counts']})",
        )
    if marker is not None and not rebuild:
        print(f"the lightrag-hku copy in {workdir} is stale or incomplete; rebuilding it")
    clear_workdir(workdir)
    workdir.mkdir(parents=True)
    (workdir / MARKER).write_text(json.dumps({"source": key, "complete": False}))

    started = time.perf_counter()
    entities, relations, chunks = subset(kb, limit_relations)
    read_s = time.perf_counter() - started
    kg = custom_kg(entities, relations, chunks, normalize_entity_name)
    rag = make_rag(hku, workdir, kb, llm)
    loop.run_until_complete(rag.initialize_storages())
    insert_start = time.perf_counter()
    loop.run_until_complete(rag.ainsert_custom_kg(kg.payload()))
    insert_s = time.perf_counter() - insert_start
    build_s = time.perf_counter() - started
    counts = (
        f"{len(kg.chunks):,} chunks, {len(kg.entities):,} entities, {len(kg.relationships):,} relationships"
    )
    (workdir / MARKER).write_text(
        json.dumps(
            {
                "source": key,
                "complete": True,
                "build_seconds": round(build_s, 1),
                "counts": counts,
                "ids_by_name": kg.ids_by_name,
            }
        )
    )
    notes = (
        f"{kg.merged_pairs:,} entity pairs with several relations merged, {kg.self_loops:,} self-loops "
        f"left out; {kg.entities_without_chunk:,} entities no chunk names got a chunk of their own; "
        f"{kg.relations_without_chunk:,} relationships cite no chunk"
    )
    return Prepared(
        rag,
        kg.ids_by_name,
        f"built the lightrag-hku copy in {workdir} in {build_s:.1f} s (reading our KB {read_s:.1f} s, "
        f"insert_custom_kg {insert_s:.1f} s): {counts} from {len(relations):,} relations; {notes}",
    )


class UnknownSourceCounter(logging.Filter):
    """Drops (and counts) lightrag-hku's per-row warning about a row that cites no known chunk."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if "UNKNOWN source_id" in record.getMessage():
            self.count += 1
            return False
        return True


# --------------------------------------------------------------------------- timing


def hku_budget(query: str, budgets: TokenBudgets, hku_overhead: int) -> int:
    """lightrag-hku's total budget such that its chunks get about our chunk budget: it gives
    chunks what the prompt, the query, the KG context and a buffer leave of the total."""
    return budgets.entities + budgets.relations + budgets.chunks + hku_overhead + len(query.split())


def hku_found_ids(result: dict[str, Any], ids_by_name: dict[str, str]) -> set[str]:
    data = result.get("data") or {}
    names = [e.get("entity_name", "") for e in data.get("entities", [])]
    names += [n for r in data.get("relationships", []) for n in (r.get("src_id", ""), r.get("tgt_id", ""))]
    return {ids_by_name[n] for n in names if n in ids_by_name}


@dataclass
class Timings:
    ms: list[float] = field(default_factory=list)
    rows: Counter[str] = field(default_factory=Counter)
    hits: int = 0

    def row(self, label: str, cases: int, known: int) -> str:
        mean_rows = "  ".join(f"{self.rows[k] / cases:>6.1f}" for k in ("entity", "relation", "chunk"))
        found = f"{self.hits / known:>8.1%}" if known else f"{'n/a':>8}"
        return (
            f"{label:<22} {percentile(self.ms, 50):>8.1f} {percentile(self.ms, 95):>8.1f} "
            f"{statistics.fmean(self.ms):>8.1f} {found}  {mean_rows}"
        )


def run(
    loop: asyncio.AbstractEventLoop,
    backend: Backend,
    prepared: Prepared,
    cases: Sequence[Case],
    *,
    top_k: int,
    hku_mode: str,
) -> tuple[Timings, Timings, list[float], int]:
    """Time both on every case (after warm-up), alternating which goes first."""
    from lightrag import QueryParam
    from lightrag.prompt import PROMPTS

    budgets = backend.budgets
    overhead = (
        len(PROMPTS["rag_response"].split()) + len(PROMPTS["kg_query_context"].split()) + HKU_BUFFER_TOKENS
    )
    queries = [vignette(c) for c in cases]
    keyword_ms: list[float] = []
    keywords: list[Keywords] = []
    for q in queries:
        start = time.perf_counter()
        keywords.append(extract_keywords(q, backend.kb))
        keyword_ms.append((time.perf_counter() - start) * 1000.0)

    def ours(i: int) -> tuple[float, set[str], Counter[str]]:
        start = time.perf_counter()
        raw = backend.retrieve(queries[i], keywords=keywords[i], top_k=top_k, mode="mix")
        ms = (time.perf_counter() - start) * 1000.0
        return ms, relational_ids(raw), Counter(item.kind for item in raw.items)

    def theirs(i: int) -> tuple[float, set[str], Counter[str]]:
        param = QueryParam(
            mode=hku_mode,
            only_need_context=True,
            top_k=top_k,
            chunk_top_k=top_k,
            max_entity_tokens=budgets.entities,
            max_relation_tokens=budgets.relations,
            max_total_tokens=hku_budget(queries[i], budgets, overhead),
            hl_keywords=list(keywords[i].high),
            ll_keywords=list(keywords[i].low),
            enable_rerank=False,
        )
        start = time.perf_counter()
        result = loop.run_until_complete(prepared.rag.aquery_data(queries[i], param))
        ms = (time.perf_counter() - start) * 1000.0
        data = result.get("data") or {}
        rows = Counter(
            entity=len(data.get("entities", [])),
            relation=len(data.get("relationships", [])),
            chunk=len(data.get("chunks", [])),
        )
        return ms, hku_found_ids(result, prepared.ids_by_name), rows

    for i in range(min(WARM_UP, len(cases))):
        ours(i)
        theirs(i)
    mine, hku = Timings(), Timings()
    known = 0
    for i, case in enumerate(cases):
        order = ((ours, mine), (theirs, hku)) if i % 2 == 0 else ((theirs, hku), (ours, mine))
        target = gold(case)
        in_kb = backend.kb.graph.get(target) is not None
        known += in_kb
        for retrieve, timings in order:
            ms, found, rows = retrieve(i)
            timings.ms.append(ms)
            timings.rows.update(rows)
            timings.hits += in_kb and target in found
    return mine, hku, keyword_ms, known


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Stop lightrag-hku's queue workers (tasks it leaves running) before closing the loop."""
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phenopackets", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--profile", choices=["demo", "full"], default="full")
    parser.add_argument(
        "--home", type=Path, default=None, help="knowledge-base home (see bench/retrieval.py)"
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="lightrag-hku's copy (default .meddiag/lightrag-hku/<profile>)",
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild lightrag-hku's copy even if cached")
    parser.add_argument(
        "--limit-relations", type=int, default=None, metavar="N", help="build on the first N relations only"
    )
    parser.add_argument("--top-k", type=int, default=20)
    parser.add_argument(
        "--hku-mode", choices=["mix", "hybrid"], default="mix", help="lightrag-hku's mode (ours runs mix)"
    )
    args = parser.parse_args()
    if args.limit_relations is not None and args.limit_relations < 1:
        parser.error("--limit-relations must be at least 1")

    hku = import_lightrag()
    hku_log = logging.getLogger("lightrag")
    unknown_sources = UnknownSourceCounter()
    hku_log.addFilter(unknown_sources)
    workdir = args.workdir or Path(".meddiag") / "lightrag-hku" / args.profile
    settings = bench_settings(args.profile, args.home)
    llm = NoLLM()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    kb = None
    prepared = None
    try:
        start = time.perf_counter()
        kb = open_kb(settings)
        cases = load_cases(args.phenopackets, limit=args.cases).cases
        print(
            f"knowledge base {args.profile!r} at {settings.home} opened in {time.perf_counter() - start:.1f} s"
        )
        prepared = prepare(
            hku, loop, kb, workdir, limit_relations=args.limit_relations, rebuild=args.rebuild, llm=llm
        )
        print(prepared.summary)
        if unknown_sources.count:
            print(
                f"lightrag-hku warned {unknown_sources.count:,} times about rows citing no chunk (silenced)"
            )
        if not cases:
            raise SystemExit(f"no usable cases in {args.phenopackets}")
        hku_log.setLevel(logging.WARNING)  # its per-query INFO lines would be timed too
        backend = get_backend("lightrag", kb)
        mine, theirs, keyword_ms, known = run(
            loop, backend, prepared, cases, top_k=args.top_k, hku_mode=args.hku_mode
        )
    except MedDiagError as err:
        raise SystemExit(f"error: {err}") from None
    finally:
        if prepared is not None:
            loop.run_until_complete(prepared.rag.finalize_storages())
        close_loop(loop)
        if kb is not None:
            kb.close()

    print(
        f"{len(cases)} vignettes after {min(WARM_UP, len(cases))} warm-up, top_k {args.top_k}, "
        f"mode mix (lightrag-hku: {args.hku_mode}), own publications kept on both sides; "
        f"keyword extraction (ours, given to both, not timed below) p50 {percentile(keyword_ms, 50):.1f} ms, "
        f"p95 {percentile(keyword_ms, 95):.1f} ms"
    )
    print(
        f"{'retrieval':<22} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'gold':>8}  "
        f"{'ents':>6}  {'rels':>6}  {'chunks':>6}  (gold: share of the {known} cases whose disease is in the KB; "
        "rows: mean per query)"
    )
    print(mine.row("meddiag lightrag", len(cases), known))
    print(theirs.row(f"lightrag-hku {getattr(hku, '__version__', '?')}", len(cases), known))
    print(f"LLM calls lightrag-hku attempted: {llm.calls}")


if __name__ == "__main__":
    main()
