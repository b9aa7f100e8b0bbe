"""The four upstream raw-context formats, written from typed evidence.

Each backend answers in the text format its upstream project prints (see
docs/CONTEXT_FORMATS.md): LightRAG's fenced JSON-lines sections, MiniRAG's and PathRAG's
CSV sections, HyperGraphRAG's CSV sections with hyperedges. The section names and columns
live here once, so `meddiag.context_filter` parses exactly what these renderers write.

Upstream formats have no room for our ids, predicates and provenance; the `*_items`
functions list them as `RetrievedItem`s keyed by (section, row id as printed), taking the
same arguments as the matching renderer so the row ids always agree.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from meddiag.errors import BackendError
from meddiag.knowledge.model import PREDICATES
from meddiag.schema import (
    BackendName,
    KGEntity,
    KGHyperedge,
    KGPath,
    KGTriple,
    RetrievedItem,
    TextEvidence,
)

# --------------------------------------------------------------------------- section names

LIGHTRAG_ENTITIES = "Knowledge Graph Data (Entity)"
LIGHTRAG_RELATIONS = "Knowledge Graph Data (Relationship)"
LIGHTRAG_CHUNKS = "Document Chunks"
LIGHTRAG_REFERENCES = "Reference Document List"
# The full header lines LightRAG 1.5 prints; the parser accepts any parenthetical after the name.
LIGHTRAG_CHUNKS_HEADER = (
    "Document Chunks (Each entry has a reference_id refer to the `Reference Document List`):"
)
LIGHTRAG_REFERENCES_HEADER = (
    "Reference Document List (Each entry starts with a [reference_id] that corresponds to entries "
    "in the Document Chunks):"
)

MINIRAG_ENTITIES = "Entities"
MINIRAG_RELATIONS = "Relationships"
MINIRAG_SOURCES = "Sources"

HYPERGRAPHRAG_ENTITIES = "Entities"
HYPERGRAPHRAG_RELATIONS = "Relationships"
HYPERGRAPHRAG_SOURCES = "Sources"

PATHRAG_GLOBAL = "global-information"  # a marker line, no block of its own
PATHRAG_HIGH_ENTITIES = "high-level entity information"
PATHRAG_HIGH_RELATIONS = "high-level relationship information"
PATHRAG_SOURCES = "Sources"
PATHRAG_LOCAL = "local-information"  # a marker line, no block of its own
PATHRAG_LOW_ENTITIES = "low-level entity information"
PATHRAG_LOW_RELATIONS = "low-level relationship information"

# Sections with a block, in the order each renderer prints them.
SECTIONS: dict[BackendName, tuple[str, ...]] = {
    "lightrag": (LIGHTRAG_ENTITIES, LIGHTRAG_RELATIONS, LIGHTRAG_CHUNKS, LIGHTRAG_REFERENCES),
    "minirag": (MINIRAG_ENTITIES, MINIRAG_RELATIONS, MINIRAG_SOURCES),
    "hypergraphrag": (HYPERGRAPHRAG_ENTITIES, HYPERGRAPHRAG_RELATIONS, HYPERGRAPHRAG_SOURCES),
    "pathrag": (
        PATHRAG_HIGH_ENTITIES,
        PATHRAG_HIGH_RELATIONS,
        PATHRAG_SOURCES,
        PATHRAG_LOW_ENTITIES,
        PATHRAG_LOW_RELATIONS,
    ),
}

# First row id of every block. LightRAG prints no ids: its rows are numbered by position.
ROW_ID_START: dict[BackendName, int] = {"lightrag": 0, "minirag": 0, "hypergraphrag": 1, "pathrag": 0}

ItemKind = Literal["entity", "relation", "hyperedge", "chunk", "path"]

# --------------------------------------------------------------------------- columns

ENTITY_COLUMNS = ("id", "entity", "type", "description", "rank")
RELATION_COLUMNS = ("id", "source", "target", "description", "keywords", "weight", "rank")
SOURCE_COLUMNS = ("id", "content")
MINI_ENTITY_COLUMNS = ("entity", "score", "description")  # MiniRAG "mini" mode
HYPERGRAPH_ENTITY_COLUMNS = ("id", "entity", "type", "description")
HYPEREDGE_COLUMNS = ("id", "hyperedge", "related_entities")
PATH_COLUMNS = ("id", "context")

HYPEREDGE_PREFIX = "<hyperedge>"
MEMBER_SEPARATOR = "|"

# --------------------------------------------------------------------------- predicates

# How a predicate reads in a `keywords` column or a path sentence (upstream keywords are words).
PREDICATE_WORDS: dict[str, str] = {
    "HAS_PHENOTYPE": "has phenotype",
    "NOT_HAS_PHENOTYPE": "does not have phenotype",
    "IS_A": "is a",
    "ASSOCIATED_GENE": "is associated with gene",
    "HAS_INHERITANCE": "has inheritance",
    "HAS_ONSET": "has onset",
    "EQUIVALENT_TO": "is equivalent to",
}

# A relation whose keywords name none of our predicates (an upstream graph's free keywords).
FALLBACK_PREDICATE = "RELATED_TO"

_WORDS_TO_PREDICATE: dict[str, str] = {
    **{words: code for code, words in PREDICATE_WORDS.items()},
    **{code.lower().replace("_", " "): code for code in PREDICATES},  # "associated gene"
    **{code.lower(): code for code in PREDICATES},  # "has_phenotype"
}


def predicate_words(predicate: str) -> str:
    """The words for a predicate; a predicate that is not ours is written as it is."""
    return PREDICATE_WORDS.get(predicate, predicate)


def predicate_from_words(words: str) -> str:
    """Our predicate for a `keywords` value, or `FALLBACK_PREDICATE` when it names none."""
    return _WORDS_TO_PREDICATE.get(" ".join(words.split()).lower(), FALLBACK_PREDICATE)


# --------------------------------------------------------------------------- cells


def _cell(value: str) -> str:
    # csv quotes a field holding "\n" but not one holding a lone "\r" (with a "\n" line
    # terminator), which would split the row on reading; a carriage return means nothing here.
    return value.replace("\r\n", "\n").replace("\r", "\n")


def format_rank(value: float | None) -> str:
    """Ranks are degrees, printed as integers when they are whole numbers, as upstream does."""
    if value is None:
        return ""
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def format_weight(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def _csv_block(columns: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([[_cell(c) for c in row] for row in rows])
    return out.getvalue().rstrip("\n")


def _fenced(section: str, language: str, body: str) -> str:
    return f"-----{section}-----\n```{language}\n{body}\n```\n"


def _json_line(obj: Mapping[str, object]) -> str:
    return json.dumps(obj, ensure_ascii=False)


# --------------------------------------------------------------------------- LightRAG


def lightrag_references(passages: Sequence[TextEvidence]) -> dict[str, str]:
    """Reference number per document id: the most frequent source first, ties by first appearance."""
    counts = Counter(p.doc_id for p in passages if p.doc_id)
    first = {doc: i for i, doc in reversed(list(enumerate(p.doc_id for p in passages)))}
    ordered = sorted(counts, key=lambda doc: (-counts[doc], first[doc]))
    return {doc: str(n) for n, doc in enumerate(ordered, start=1)}


def render_lightrag(
    entities: Sequence[KGEntity], triples: Sequence[KGTriple], passages: Sequence[TextEvidence]
) -> str:
    """LightRAG 1.5's context string: four fenced sections, one JSON object per line."""
    refs = lightrag_references(passages)
    entity_lines = "\n".join(
        _json_line({"entity": e.name, "type": e.type.lower(), "description": e.description}) for e in entities
    )
    relation_lines = "\n".join(
        _json_line({"entity1": t.subject, "entity2": t.object, "description": t.description}) for t in triples
    )
    chunk_lines = "\n".join(
        _json_line({"reference_id": refs.get(p.doc_id, ""), "content": p.text}) for p in passages
    )
    reference_lines = "\n".join(f"[{n}] {doc}" for doc, n in refs.items())
    return (
        f"\n{LIGHTRAG_ENTITIES}:\n\n```json\n{entity_lines}\n```\n\n"
        f"{LIGHTRAG_RELATIONS}:\n\n```json\n{relation_lines}\n```\n\n"
        f"{LIGHTRAG_CHUNKS_HEADER}\n\n```json\n{chunk_lines}\n```\n\n"
        f"{LIGHTRAG_REFERENCES_HEADER}\n\n```\n{reference_lines}\n```\n\n"
    )


# --------------------------------------------------------------------------- shared CSV rows


def _entity_rows(entities: Sequence[KGEntity], start: int) -> list[list[str]]:
    return [
        [str(i), e.name, e.type.lower(), e.description, format_rank(e.rank)]
        for i, e in enumerate(entities, start=start)
    ]


def _relation_rows(triples: Sequence[KGTriple], start: int) -> list[list[str]]:
    return [
        [
            str(i),
            t.subject,
            t.object,
            t.description,
            predicate_words(t.predicate),
            format_weight(t.weight),
            format_rank(t.rank),
        ]
        for i, t in enumerate(triples, start=start)
    ]


def _source_rows(passages: Sequence[TextEvidence], start: int) -> list[list[str]]:
    return [[str(i), p.text] for i, p in enumerate(passages, start=start)]


# --------------------------------------------------------------------------- MiniRAG


def render_minirag(
    entities: Sequence[KGEntity], triples: Sequence[KGTriple], passages: Sequence[TextEvidence]
) -> str:
    """MiniRAG's CSV sections: Entities, Relationships, Sources; ids from 0."""
    start = ROW_ID_START["minirag"]
    return "\n" + "".join(
        [
            _fenced(MINIRAG_ENTITIES, "csv", _csv_block(ENTITY_COLUMNS, _entity_rows(entities, start))),
            _fenced(MINIRAG_RELATIONS, "csv", _csv_block(RELATION_COLUMNS, _relation_rows(triples, start))),
            _fenced(MINIRAG_SOURCES, "csv", _csv_block(SOURCE_COLUMNS, _source_rows(passages, start))),
        ]
    )


# --------------------------------------------------------------------------- HyperGraphRAG


def render_hypergraphrag(
    entities: Sequence[KGEntity], hyperedges: Sequence[KGHyperedge], passages: Sequence[TextEvidence]
) -> str:
    """HyperGraphRAG's CSV sections: entities, hyperedges (`<hyperedge>` text, `|`-joined members), sources."""
    start = ROW_ID_START["hypergraphrag"]
    entity_rows = [
        [str(i), e.name, e.type.lower(), e.description] for i, e in enumerate(entities, start=start)
    ]
    hyperedge_rows = [
        [str(i), HYPEREDGE_PREFIX + h.text, MEMBER_SEPARATOR.join(h.members)]
        for i, h in enumerate(hyperedges, start=start)
    ]
    return "\n" + "".join(
        [
            _fenced(HYPERGRAPHRAG_ENTITIES, "csv", _csv_block(HYPERGRAPH_ENTITY_COLUMNS, entity_rows)),
            _fenced(HYPERGRAPHRAG_RELATIONS, "csv", _csv_block(HYPEREDGE_COLUMNS, hyperedge_rows)),
            _fenced(HYPERGRAPHRAG_SOURCES, "csv", _csv_block(SOURCE_COLUMNS, _source_rows(passages, start))),
        ]
    )


# --------------------------------------------------------------------------- PathRAG


def _entity_clause(name: str, entity: KGEntity | None) -> str:
    kind = entity.type.lower() if entity and entity.type else "UNKNOWN"
    description = entity.description if entity and entity.description else "UNKNOWN"
    return f'The entity "{_path_name(name)}" is a "{kind}" with the description({description})'


def _path_name(name: str) -> str:
    # Names are quoted in the sentence; an inner double quote would end the name early.
    return name.replace('"', "'")


def path_sentence(nodes: Sequence[str], edges: Sequence[str], entities: Mapping[str, KGEntity]) -> str:
    """A path in PathRAG's wording, from which the parser recovers the node/edge sequence.

    Each hop reads ``through edge(<words>) to connect to "A" and "B".`` between the two
    entities' clauses, and consecutive hops are joined with ``and``, as upstream chains them.
    """
    if len(nodes) != len(edges) + 1:
        raise BackendError(
            f"The PathRAG backend built a path with {len(edges)} edges but {len(nodes)} entities "
            f"({' -> '.join(nodes)}); a path needs one entity more than it has edges."
        )
    parts = [_entity_clause(nodes[0], entities.get(nodes[0]))]
    for i, edge in enumerate(edges):
        a, b = nodes[i], nodes[i + 1]
        if i > 0:
            parts.append("and" + _entity_clause(a, entities.get(a)))
        parts.append(
            f'through edge({predicate_words(edge)}) to connect to "{_path_name(a)}" and "{_path_name(b)}".'
        )
        parts.append(_entity_clause(b, entities.get(b)))
    return "".join(parts)


def render_pathrag(
    high_entities: Sequence[KGEntity],
    high_triples: Sequence[KGTriple],
    passages: Sequence[TextEvidence],
    low_entities: Sequence[KGEntity],
    low_paths: Sequence[KGPath],
) -> str:
    """PathRAG's global/local layout; low-level paths as sentences, least reliable first (caller's order)."""
    start = ROW_ID_START["pathrag"]
    lookup = {e.name: e for e in [*high_entities, *low_entities]}
    path_rows = [
        [str(i), path_sentence(p.nodes, p.edges, lookup)] for i, p in enumerate(low_paths, start=start)
    ]
    return "\n" + "".join(
        [
            f"-----{PATHRAG_GLOBAL}-----\n",
            _fenced(
                PATHRAG_HIGH_ENTITIES, "csv", _csv_block(ENTITY_COLUMNS, _entity_rows(high_entities, start))
            ),
            _fenced(
                PATHRAG_HIGH_RELATIONS,
                "csv",
                _csv_block(RELATION_COLUMNS, _relation_rows(high_triples, start)),
            ),
            _fenced(PATHRAG_SOURCES, "csv", _csv_block(SOURCE_COLUMNS, _source_rows(passages, start))),
            f"-----{PATHRAG_LOCAL}-----\n",
            _fenced(
                PATHRAG_LOW_ENTITIES, "csv", _csv_block(ENTITY_COLUMNS, _entity_rows(low_entities, start))
            ),
            _fenced(PATHRAG_LOW_RELATIONS, "csv", _csv_block(PATH_COLUMNS, path_rows)),
        ]
    )


# --------------------------------------------------------------------------- side channel


def retrieved_item(
    section: str,
    row_id: str | int,
    kind: ItemKind,
    ids: Sequence[str] = (),
    predicate: str | None = None,
    provenance: Sequence[str] = (),
    frequency: float | None = None,
) -> RetrievedItem:
    """What one printed row stands for: our ids, predicate, provenance and curated frequency."""
    return RetrievedItem(
        section=section,
        row_id=str(row_id),
        kind=kind,
        ids=list(ids),
        predicate=predicate,
        provenance=list(provenance),
        frequency=frequency,
    )


def _entity_items(section: str, entities: Sequence[KGEntity], start: int) -> list[RetrievedItem]:
    return [
        retrieved_item(section, i, "entity", [e.id] if e.id else [])
        for i, e in enumerate(entities, start=start)
    ]


def _triple_items(section: str, triples: Sequence[KGTriple], start: int) -> list[RetrievedItem]:
    return [
        retrieved_item(
            section,
            i,
            "relation",
            [t.subject_id or "", t.object_id or ""] if (t.subject_id or t.object_id) else [],
            t.predicate,
            t.provenance,
            t.frequency,
        )
        for i, t in enumerate(triples, start=start)
    ]


def _chunk_items(section: str, passages: Sequence[TextEvidence], start: int) -> list[RetrievedItem]:
    return [
        retrieved_item(section, i, "chunk", [p.doc_id] if p.doc_id else [], None, p.provenance)
        for i, p in enumerate(passages, start=start)
    ]


def lightrag_items(
    entities: Sequence[KGEntity], triples: Sequence[KGTriple], passages: Sequence[TextEvidence]
) -> list[RetrievedItem]:
    start = ROW_ID_START["lightrag"]
    return [
        *_entity_items(LIGHTRAG_ENTITIES, entities, start),
        *_triple_items(LIGHTRAG_RELATIONS, triples, start),
        *_chunk_items(LIGHTRAG_CHUNKS, passages, start),
    ]


def minirag_items(
    entities: Sequence[KGEntity], triples: Sequence[KGTriple], passages: Sequence[TextEvidence]
) -> list[RetrievedItem]:
    start = ROW_ID_START["minirag"]
    return [
        *_entity_items(MINIRAG_ENTITIES, entities, start),
        *_triple_items(MINIRAG_RELATIONS, triples, start),
        *_chunk_items(MINIRAG_SOURCES, passages, start),
    ]


def hypergraphrag_items(
    entities: Sequence[KGEntity], hyperedges: Sequence[KGHyperedge], passages: Sequence[TextEvidence]
) -> list[RetrievedItem]:
    start = ROW_ID_START["hypergraphrag"]
    return [
        *_entity_items(HYPERGRAPHRAG_ENTITIES, entities, start),
        *[
            retrieved_item(
                HYPERGRAPHRAG_RELATIONS, i, "hyperedge", [h.id] if h.id else [], None, h.provenance
            )
            for i, h in enumerate(hyperedges, start=start)
        ],
        *_chunk_items(HYPERGRAPHRAG_SOURCES, passages, start),
    ]


def pathrag_items(
    high_entities: Sequence[KGEntity],
    high_triples: Sequence[KGTriple],
    passages: Sequence[TextEvidence],
    low_entities: Sequence[KGEntity],
    low_paths: Sequence[KGPath],
) -> list[RetrievedItem]:
    """Items for every row but the paths: a path row's facts are all in its sentence."""
    start = ROW_ID_START["pathrag"]
    return [
        *_entity_items(PATHRAG_HIGH_ENTITIES, high_entities, start),
        *_triple_items(PATHRAG_HIGH_RELATIONS, high_triples, start),
        *_chunk_items(PATHRAG_SOURCES, passages, start),
        *_entity_items(PATHRAG_LOW_ENTITIES, low_entities, start),
    ]
