"""Split a backend's raw context into typed evidence for the two channels, strictly.

Each backend prints its upstream format (docs/CONTEXT_FORMATS.md, `meddiag.backends.formats`);
this module reads it back: CSV with the `csv` module, JSON lines with `json`, PathRAG's
printed lists with `ast.literal_eval`. Chunks and sources go to the semantic channel,
entity and relationship blocks to the relational channel (`ROUTING`). A missing section
or a row that does not fit its header raises `ContextFormatError` naming the backend,
the section and the row; nothing is dropped silently.

It also accepts what the real upstream libraries print: LightRAG's longer Document Chunks
header and its structured `aquery_data` answer, MiniRAG's quoted upper-case names, CRLF
rows and "mini" mode, HyperGraphRAG's `,\\t`-joined unquoted rows, PathRAG's printed
lists of path sentences.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from meddiag.backends.formats import (
    FALLBACK_PREDICATE,
    HYPEREDGE_PREFIX,
    HYPERGRAPHRAG_ENTITIES,
    HYPERGRAPHRAG_RELATIONS,
    HYPERGRAPHRAG_SOURCES,
    LIGHTRAG_CHUNKS,
    LIGHTRAG_ENTITIES,
    LIGHTRAG_REFERENCES,
    LIGHTRAG_RELATIONS,
    MEMBER_SEPARATOR,
    MINI_ENTITY_COLUMNS,
    MINIRAG_ENTITIES,
    MINIRAG_RELATIONS,
    MINIRAG_SOURCES,
    PATHRAG_HIGH_ENTITIES,
    PATHRAG_HIGH_RELATIONS,
    PATHRAG_LOW_ENTITIES,
    PATHRAG_LOW_RELATIONS,
    PATHRAG_SOURCES,
    SECTIONS,
    ItemKind,
    predicate_from_words,
)
from meddiag.errors import ContextFormatError
from meddiag.schema import (
    BackendName,
    ChannelName,
    KGEntity,
    KGEvidence,
    KGHyperedge,
    KGPath,
    KGTriple,
    Level,
    ParsedContext,
    RawContext,
    RetrievedItem,
    TextEvidence,
)

# Which printed sections feed which channel, per backend.
ROUTING: dict[BackendName, dict[ChannelName, tuple[str, ...]]] = {
    "lightrag": {
        "semantic": (LIGHTRAG_CHUNKS, LIGHTRAG_REFERENCES),
        "relational": (LIGHTRAG_ENTITIES, LIGHTRAG_RELATIONS),
    },
    "minirag": {"semantic": (MINIRAG_SOURCES,), "relational": (MINIRAG_ENTITIES, MINIRAG_RELATIONS)},
    "hypergraphrag": {
        "semantic": (HYPERGRAPHRAG_SOURCES,),
        "relational": (HYPERGRAPHRAG_ENTITIES, HYPERGRAPHRAG_RELATIONS),
    },
    "pathrag": {
        "semantic": (PATHRAG_SOURCES,),
        "relational": (
            PATHRAG_HIGH_ENTITIES,
            PATHRAG_HIGH_RELATIONS,
            PATHRAG_LOW_ENTITIES,
            PATHRAG_LOW_RELATIONS,
        ),
    },
}

_FENCE = "```"
_SEP = "<SEP>"  # LightRAG joins multi-valued fields with it
_UNKNOWN_SOURCE = "unknown_source"
_DASHED_HEADER = re.compile(r"^-{3,}\s*(?P<name>.+?)\s*-{3,}$")
_QUIRK_ROW = re.compile(r"^(?P<id>\d+),\t", re.MULTILINE)  # HyperGraphRAG's combined rows
_QUIRK_SPLIT = re.compile(r",(?!\s)")  # prose writes ", "; the joined columns meet at a bare ","
_REFERENCE_LINE = re.compile(r"^\[(?P<id>[^\]]*)\]\s?(?P<doc>.*)$")
# One hop of a PathRAG path sentence; names are quoted upstream, unquoted in some forks.
_PATH_HOP = re.compile(
    r"through edge ?\((?P<words>[^()]*)\) to connect to "
    r'(?:"(?P<qa>[^"]*)" and "(?P<qb>[^"]*)"|(?P<a>.+?) and (?P<b>.+?))\.(?=\s*The entity )'
)
# One entity clause of a path sentence: its name and type.
_PATH_NODE = re.compile(
    r'The entity (?:"(?P<qn>[^"]*)"|(?P<n>.+?)) is a "?(?P<type>[^"(]*?)"? with the description\('
)
_FREE_TEXT_COLUMNS = ("description", "hyperedge", "content", "context")
# The object's entity type of our directed predicates: a path walks edges either way, so a
# hop from a phenotype to a disease over HAS_PHENOTYPE is the triple disease -> phenotype.
_OBJECT_TYPE = {
    "HAS_PHENOTYPE": "phenotype",
    "NOT_HAS_PHENOTYPE": "phenotype",
    "ASSOCIATED_GENE": "gene",
    "HAS_INHERITANCE": "inheritance",
    "HAS_ONSET": "onset",
}


# --------------------------------------------------------------------------- parsed rows


@dataclass
class _Row:
    """One printed row turned into evidence, with the key the side channel uses."""

    section: str
    row_id: str
    kind: ItemKind
    value: KGEntity | KGTriple | KGHyperedge | TextEvidence | KGPath
    predicate: str | None = None  # a hyperedge's predicate for its binary expansion
    provenance: list[str] = field(default_factory=list)  # a path's, for the triples of its hops
    hop_words: list[str] = field(default_factory=list)  # a path's edges as printed
    node_types: dict[str, str] = field(default_factory=dict)  # a path's entity types by name
    node_ids: list[str] = field(default_factory=list)  # a path's entity ids, from the side channel


@dataclass(frozen=True)
class _Block:
    section: str
    lines: list[str]  # the lines between the fences, line endings kept


@dataclass(frozen=True)
class _CsvRow:
    number: int  # 1-based among the block's data rows, for messages
    row_id: str
    cells: dict[str, str]


# --------------------------------------------------------------------------- public API


def parse_context(backend: BackendName, text: str) -> ParsedContext:
    """Parse one raw context string of `backend`'s format into text and KG evidence."""
    return _assemble(backend, _parse_rows(backend, text), {})


def filter_context(raw: RawContext) -> ParsedContext:
    """Parse `raw.text`, then attach the side channel (ids, predicates, provenance) and timings."""
    rows = _parse_rows(raw.backend, raw.text)
    _attach(raw.backend, rows, raw.items)
    return _assemble(raw.backend, rows, dict(raw.timings))


# --------------------------------------------------------------------------- dispatch


def _parse_rows(backend: str, text: str) -> list[_Row]:
    if backend not in SECTIONS:
        known = ", ".join(SECTIONS)
        raise ContextFormatError(str(backend), "backend", f"unknown backend; expected one of {known}")
    if backend == "lightrag":
        if text.lstrip().startswith("{"):
            return _parse_lightrag_data(text)
        return _parse_lightrag(text)
    if backend == "minirag":
        return _parse_minirag(text)
    if backend == "hypergraphrag":
        return _parse_hypergraphrag(text)
    return _parse_pathrag(text)


def _assemble(backend: BackendName, rows: list[_Row], timings: dict[str, float]) -> ParsedContext:
    kg = KGEvidence()
    text: list[TextEvidence] = []
    paths: list[tuple[_Row, KGPath]] = []
    for row in rows:
        value = row.value
        if isinstance(value, TextEvidence):
            text.append(value)
        elif isinstance(value, KGEntity):
            kg.entities.append(value)
        elif isinstance(value, KGTriple):
            kg.triples.append(value)
        elif isinstance(value, KGHyperedge):
            kg.hyperedges.append(value)
            kg.triples.extend(_expand_hyperedge(value, row.predicate or FALLBACK_PREDICATE))
        else:
            paths.append((row, value))
    for position, (row, path) in enumerate(paths):
        path.reliability_rank = len(paths) - position  # upstream prints the most reliable last
        kg.paths.append(path)
        kg.triples.extend(_path_triples(path, row))
    return ParsedContext(backend=backend, text=text, kg=kg, timings=timings)


def _expand_hyperedge(hyperedge: KGHyperedge, predicate: str) -> list[KGTriple]:
    """An n-ary fact as binary triples from its first member to each other one, for display."""
    if not hyperedge.members:
        return []
    head, *others = hyperedge.members
    return [
        KGTriple(
            subject=head,
            predicate=predicate,
            object=other,
            description=hyperedge.text,
            provenance=list(hyperedge.provenance),
            from_hyperedge=True,
        )
        for other in others
    ]


def _path_triples(path: KGPath, row: _Row) -> list[KGTriple]:
    """The hops of a path as triples, each turned the way its predicate points."""
    ids = row.node_ids if len(row.node_ids) == len(path.nodes) else [None] * len(path.nodes)
    triples = []
    for i, edge in enumerate(path.edges):
        (subject, subject_id), (obj, object_id) = (path.nodes[i], ids[i]), (path.nodes[i + 1], ids[i + 1])
        object_type = _OBJECT_TYPE.get(edge)
        if (
            object_type
            and row.node_types.get(subject) == object_type
            and row.node_types.get(obj) != object_type
        ):
            (subject, subject_id), (obj, object_id) = (obj, object_id), (subject, subject_id)
        triples.append(
            KGTriple(
                subject=subject,
                predicate=edge,
                object=obj,
                description=f"{subject} {row.hop_words[i]} {obj}",
                keywords=row.hop_words[i],
                level=path.level,
                subject_id=subject_id or None,
                object_id=object_id or None,
                provenance=list(row.provenance),
            )
        )
    return triples


# --------------------------------------------------------------------------- side channel


def _attach(backend: BackendName, rows: list[_Row], items: Sequence[RetrievedItem]) -> None:
    index: dict[tuple[str, str], list[_Row]] = {}
    for row in rows:
        index.setdefault((row.section, row.row_id), []).append(row)
    for item in items:
        targets = index.get((item.section, item.row_id))
        if not targets:
            raise ContextFormatError(
                backend,
                item.section,
                f"the backend describes row {item.row_id}, which the context does not print",
            )
        for row in targets:
            if row.kind != item.kind:
                raise ContextFormatError(
                    backend,
                    item.section,
                    f"row {item.row_id} is printed as a {row.kind} but described as a {item.kind}",
                )
            _attach_one(row, item)


def _attach_one(row: _Row, item: RetrievedItem) -> None:
    value = row.value
    if isinstance(value, KGEntity):
        if item.ids:
            value.id = item.ids[0]
    elif isinstance(value, KGTriple):
        if item.predicate:
            value.predicate = item.predicate
        if item.ids:
            value.subject_id = item.ids[0] or None
            value.object_id = (item.ids[1] if len(item.ids) > 1 else "") or None
        value.provenance = list(item.provenance)
        value.frequency = item.frequency
    elif isinstance(value, KGHyperedge):
        if item.ids:
            value.id = item.ids[0]
        value.provenance = list(item.provenance)
        row.predicate = item.predicate
    elif isinstance(value, TextEvidence):
        if item.ids:
            value.doc_id = item.ids[0]
        value.provenance = list(item.provenance)
    else:
        row.node_ids = list(item.ids)
        row.provenance = list(item.provenance)


# --------------------------------------------------------------------------- block scanning


def _scan(backend: str, text: str, header_of: Callable[[str], str | None]) -> dict[str, _Block]:
    """The fenced blocks of the known sections, reading the text once from top to bottom.

    Reading in order (and skipping each block whole) means a passage that happens to
    contain a header line is never taken for one.
    """
    lines = list(io.StringIO(text, newline=""))
    blocks: dict[str, _Block] = {}
    i = 0
    while i < len(lines):
        section = header_of(lines[i].strip())
        if section is None:
            i += 1
            continue
        if section in blocks:
            raise ContextFormatError(backend, section, f"the section appears a second time on line {i + 1}")
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j >= len(lines) or not lines[j].strip().startswith(_FENCE):
            if backend == "lightrag" and section == LIGHTRAG_REFERENCES:
                unfenced_end = _unfenced_end(lines, j)
                blocks[section] = _Block(section, lines[j:unfenced_end])
                i = unfenced_end
                continue
            raise ContextFormatError(
                backend, section, f"the header on line {i + 1} has no ``` block after it"
            )
        start = j + 1
        csv_aware = lines[j].strip().lower() == "```csv" and not _is_quirk_block(lines, start)
        end = _csv_block_end(backend, section, lines, start) if csv_aware else _plain_block_end(lines, start)
        if end is None:
            raise ContextFormatError(
                backend, section, f"the ``` block opened on line {j + 1} is never closed"
            )
        blocks[section] = _Block(section, lines[start:end])
        i = end + 1
    return blocks


def _plain_block_end(lines: list[str], start: int) -> int | None:
    for k in range(start, len(lines)):
        if lines[k].strip() == _FENCE:
            return k
    return None


def _csv_block_end(backend: str, section: str, lines: list[str], start: int) -> int | None:
    """The closing fence, found by the csv reader so a quoted cell may hold any line."""
    consumed = 0

    def feed() -> Iterator[str]:
        nonlocal consumed
        for line in lines[start:]:
            consumed += 1
            yield line

    try:
        for row in csv.reader(feed()):
            if len(row) == 1 and row[0].strip() == _FENCE:
                return start + consumed - 1
    except csv.Error as exc:
        raise ContextFormatError(backend, section, f"the CSV block cannot be read: {exc}") from exc
    return None


def _unfenced_end(lines: list[str], start: int) -> int:
    k = start
    while k < len(lines) and _REFERENCE_LINE.match(lines[k].strip()):
        k += 1
    return k


def _first_content_line(lines: Sequence[str]) -> str:
    return next((line for line in lines if line.strip()), "")


def _is_quirk_block(lines: list[str], start: int) -> bool:
    end = _plain_block_end(lines, start)
    header = _first_content_line(lines[start:end])
    return ",\t" in header


def _require(backend: str, blocks: dict[str, _Block], sections: Sequence[str]) -> None:
    for section in sections:
        if section not in blocks:
            raise ContextFormatError(backend, section, "the section is missing")


def _dashed_headers(sections: Sequence[str]) -> Callable[[str], str | None]:
    names = set(sections)

    def header_of(line: str) -> str | None:
        match = _DASHED_HEADER.match(line)
        return match["name"] if match and match["name"] in names else None

    return header_of


# --------------------------------------------------------------------------- CSV rows


def _csv_rows(backend: str, block: _Block, required: Sequence[str]) -> tuple[list[str], list[_CsvRow]]:
    """The block's header and data rows as cells by column name; an empty block has neither."""
    header_line = _first_content_line(block.lines)
    if not header_line:
        return [], []
    if ",\t" in header_line:
        header, raw = _quirk_rows(backend, block)
    else:
        try:
            records = [
                r
                for r in csv.reader(io.StringIO("".join(block.lines), newline=""))
                if any(c.strip() for c in r)
            ]
        except csv.Error as exc:
            raise ContextFormatError(backend, block.section, f"the CSV block cannot be read: {exc}") from exc
        header = [c.strip().lower() for c in records[0]]
        raw = records[1:]
    missing = [c for c in required if c not in header]
    if missing:
        raise ContextFormatError(
            backend, block.section, f"the header ({', '.join(header)}) lacks the column {missing[0]!r}"
        )
    rows: list[_CsvRow] = []
    for number, cells in enumerate(raw, start=1):
        if len(cells) != len(header):
            raise ContextFormatError(
                backend,
                block.section,
                f"row {number} has {len(cells)} fields where the header names {len(header)} ({', '.join(header)})",
            )
        by_name = dict(zip(header, cells, strict=True))
        row_id = by_name["id"].strip() if "id" in by_name else str(number - 1)
        if not row_id:
            raise ContextFormatError(backend, block.section, f"row {number} has an empty id")
        rows.append(_CsvRow(number, row_id, by_name))
    return header, rows


def _quirk_rows(backend: str, block: _Block) -> tuple[list[str], list[list[str]]]:
    """Rows `<id>,\\t<rest>` whose rest is the other columns joined by "," without quoting.

    The free-text column (description, hyperedge, content, context) absorbs the commas
    that cannot be told apart; a row may span lines when a cell held a line break.
    """
    text = "".join(block.lines)
    header_line = _first_content_line(block.lines)
    body = text[text.index(header_line) + len(header_line) :]
    header = [c.strip().lower() for c in header_line.split(",")]
    matches = list(_QUIRK_ROW.finditer(body))
    if body[: matches[0].start() if matches else len(body)].strip():
        raise ContextFormatError(
            backend, block.section, "a line after the header does not start with a row id"
        )
    others = header[1:]
    free = next((others.index(c) for c in _FREE_TEXT_COLUMNS if c in others), len(others) - 1)
    rows: list[list[str]] = []
    for number, match in enumerate(matches, start=1):
        end = matches[number].start() if number < len(matches) else len(body)
        rest = body[match.end() : end].removesuffix("\n").removesuffix("\r")
        rows.append([match["id"], *_split_quirk(backend, block.section, number, rest, len(others), free)])
    return header, rows


def _split_quirk(backend: str, section: str, number: int, rest: str, width: int, free: int) -> list[str]:
    if width == 1:
        return [rest]
    parts = _QUIRK_SPLIT.split(rest)
    if len(parts) < width:
        raise ContextFormatError(
            backend, section, f"row {number} has {len(parts) + 1} fields, fewer than its header"
        )
    after = width - free - 1
    middle_end = len(parts) - after
    return [*parts[:free], ",".join(parts[free:middle_end]), *parts[middle_end:]]


def _number(backend: str, section: str, row: _CsvRow, column: str) -> float | None:
    value = row.cells.get(column, "").strip()
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        raise ContextFormatError(
            backend, section, f"row {row.number} has {value!r} in column {column!r}, which is not a number"
        ) from None


def _merged(description: str) -> str:
    """Upstream merges an entity's or relation's descriptions with <SEP>; show them as lines."""
    return description.replace(_SEP, "\n")


def _unquote(value: str) -> str:
    """Upstream extraction keeps the LLM's quotes: `"MARFAN SYNDROME"` means MARFAN SYNDROME."""
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


# --------------------------------------------------------------------------- CSV sections


def _entity_rows(backend: str, block: _Block, level: Level | None = None) -> tuple[list[str], list[_Row]]:
    header, rows = _csv_rows(backend, block, ("entity",))
    out = [
        _Row(
            block.section,
            r.row_id,
            "entity",
            KGEntity(
                name=_unquote(r.cells["entity"]),
                type=_unquote(r.cells.get("type", "")).lower(),
                description=_merged(r.cells.get("description", "")),
                rank=_number(backend, block.section, r, "rank" if "rank" in r.cells else "score"),
                level=level,
            ),
        )
        for r in rows
    ]
    return header, out


def _relation_rows(backend: str, block: _Block, level: Level | None = None) -> list[_Row]:
    _, rows = _csv_rows(backend, block, ("id", "source", "target"))
    out = []
    for r in rows:
        keywords = r.cells.get("keywords", "")
        triple = KGTriple(
            subject=_unquote(r.cells["source"]),
            predicate=predicate_from_words(keywords),
            object=_unquote(r.cells["target"]),
            description=_merged(r.cells.get("description", "")),
            keywords=keywords,
            weight=_number(backend, block.section, r, "weight"),
            rank=_number(backend, block.section, r, "rank"),
            level=level,
        )
        out.append(_Row(block.section, r.row_id, "relation", triple))
    return out


def _source_rows(backend: str, block: _Block) -> list[_Row]:
    _, rows = _csv_rows(backend, block, ("id", "content"))
    return [
        _Row(block.section, r.row_id, "chunk", TextEvidence(ref_id=r.row_id, text=r.cells["content"]))
        for r in rows
    ]


def _hyperedge_rows(backend: str, block: _Block) -> list[_Row]:
    _, rows = _csv_rows(backend, block, ("id", "hyperedge", "related_entities"))
    out = []
    for r in rows:
        text = _unquote(r.cells["hyperedge"])
        text = _unquote(text.removeprefix(HYPEREDGE_PREFIX))
        members = [
            _unquote(m.strip()) for m in r.cells["related_entities"].split(MEMBER_SEPARATOR) if m.strip()
        ]
        out.append(_Row(block.section, r.row_id, "hyperedge", KGHyperedge(text=text, members=members)))
    return out


def _path_rows(backend: str, block: _Block) -> list[_Row]:
    _, rows = _csv_rows(backend, block, ("id", "context"))
    out = []
    for r in rows:
        for sentence in _path_sentences(backend, block.section, r):
            path, words = _parse_path(backend, block.section, r, sentence)
            types = {
                m["qn"] if m["qn"] is not None else m["n"].strip(): m["type"].strip().lower()
                for m in _PATH_NODE.finditer(sentence)
            }
            out.append(_Row(block.section, r.row_id, "path", path, hop_words=words, node_types=types))
    return out


def _path_sentences(backend: str, section: str, row: _CsvRow) -> list[str]:
    """A context cell holds one sentence, or upstream's printed Python list of sentences."""
    cell = row.cells["context"].strip()
    if not (cell.startswith("[") and cell.endswith("]")):
        return [cell]
    try:
        value = ast.literal_eval(cell)
    except (ValueError, SyntaxError) as exc:
        raise ContextFormatError(
            backend, section, f"row {row.number} holds a list that cannot be read"
        ) from exc
    flat = _flatten(value)
    if flat is None or not flat:
        raise ContextFormatError(backend, section, f"row {row.number} holds a list without path sentences")
    return flat


def _flatten(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        out: list[str] = []
        for v in value:
            inner = _flatten(v)
            if inner is None:
                return None
            out.extend(inner)
        return out
    return None


def _parse_path(backend: str, section: str, row: _CsvRow, sentence: str) -> tuple[KGPath, list[str]]:
    """Recover a path's nodes and edges from its hops: `through edge(w) to connect to "A" and "B".`"""
    hops = list(_PATH_HOP.finditer(sentence))
    if not hops:
        raise ContextFormatError(
            backend,
            section,
            f"row {row.number} is not a path sentence (no 'through edge(...) to connect to')",
        )
    nodes: list[str] = []
    words: list[str] = []
    for hop in hops:
        a = hop["qa"] if hop["qa"] is not None else _unquote(hop["a"].strip())
        b = hop["qb"] if hop["qb"] is not None else _unquote(hop["b"].strip())
        if nodes and nodes[-1] != a:
            raise ContextFormatError(
                backend,
                section,
                f"row {row.number}: the hop from {a!r} does not continue the path at {nodes[-1]!r}",
            )
        if not nodes:
            nodes.append(a)
        nodes.append(b)
        words.append(hop["words"].strip())
    edges = [predicate_from_words(w) for w in words]
    return KGPath(nodes=nodes, edges=edges, sentence=sentence, level="low"), words


# --------------------------------------------------------------------------- MiniRAG, HyperGraphRAG, PathRAG


def _parse_minirag(text: str) -> list[_Row]:
    blocks = _scan("minirag", text, _dashed_headers(SECTIONS["minirag"]))
    _require("minirag", blocks, (MINIRAG_ENTITIES,))
    header, entities = _entity_rows("minirag", blocks[MINIRAG_ENTITIES])
    # MiniRAG's own ("mini") query prints scored entities without ids, and no relationships.
    mini_mode = set(MINI_ENTITY_COLUMNS) <= set(header) and "id" not in header
    _require("minirag", blocks, (MINIRAG_SOURCES,) if mini_mode else (MINIRAG_RELATIONS, MINIRAG_SOURCES))
    relations = _relation_rows("minirag", blocks[MINIRAG_RELATIONS]) if MINIRAG_RELATIONS in blocks else []
    return [*entities, *relations, *_source_rows("minirag", blocks[MINIRAG_SOURCES])]


def _parse_hypergraphrag(text: str) -> list[_Row]:
    blocks = _scan("hypergraphrag", text, _dashed_headers(SECTIONS["hypergraphrag"]))
    _require("hypergraphrag", blocks, SECTIONS["hypergraphrag"])
    _, entities = _entity_rows("hypergraphrag", blocks[HYPERGRAPHRAG_ENTITIES])
    return [
        *entities,
        *_hyperedge_rows("hypergraphrag", blocks[HYPERGRAPHRAG_RELATIONS]),
        *_source_rows("hypergraphrag", blocks[HYPERGRAPHRAG_SOURCES]),
    ]


def _parse_pathrag(text: str) -> list[_Row]:
    blocks = _scan("pathrag", text, _dashed_headers(SECTIONS["pathrag"]))
    _require("pathrag", blocks, SECTIONS["pathrag"])
    _, high_entities = _entity_rows("pathrag", blocks[PATHRAG_HIGH_ENTITIES], "high")
    _, low_entities = _entity_rows("pathrag", blocks[PATHRAG_LOW_ENTITIES], "low")
    return [
        *high_entities,
        *_relation_rows("pathrag", blocks[PATHRAG_HIGH_RELATIONS], "high"),
        *_source_rows("pathrag", blocks[PATHRAG_SOURCES]),
        *low_entities,
        *_path_rows("pathrag", blocks[PATHRAG_LOW_RELATIONS]),
    ]


# --------------------------------------------------------------------------- LightRAG


def _lightrag_header(line: str) -> str | None:
    for name in SECTIONS["lightrag"]:
        if line == name + ":" or (line.startswith(name + " (") and line.endswith(":")):
            return name
    return None


def _json_rows(block: _Block) -> Iterator[tuple[int, dict[str, Any]]]:
    number = 0
    for line in block.lines:
        if not line.strip():
            continue
        number += 1
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ContextFormatError(
                "lightrag", block.section, f"row {number} is not a JSON object: {exc}"
            ) from exc
        if not isinstance(obj, dict):
            raise ContextFormatError("lightrag", block.section, f"row {number} is not a JSON object")
        yield number, obj


def _field(section: str, number: int, obj: dict[str, Any], *names: str) -> str:
    """The first present key of `names` (LightRAG renamed some keys between its forms)."""
    for name in names:
        if name in obj and obj[name] is not None:
            return str(obj[name])
    raise ContextFormatError("lightrag", section, f"row {number} has no {names[0]!r}")


def _optional_float(section: str, number: int, value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ContextFormatError(
            "lightrag", section, f"row {number} has a weight that is not a number"
        ) from None


def _lightrag_triple(section: str, number: int, obj: dict[str, Any]) -> KGTriple:
    keywords = str(obj.get("keywords") or "")
    return KGTriple(
        subject=_field(section, number, obj, "entity1", "src_id"),
        predicate=predicate_from_words(keywords),
        object=_field(section, number, obj, "entity2", "tgt_id"),
        description=_merged(str(obj.get("description") or "")),
        keywords=keywords,
        weight=_optional_float(section, number, obj.get("weight")),
        provenance=_sep_list(obj.get("file_path")),
    )


def _headings(value: Any) -> str:
    if isinstance(value, list):
        return " → ".join(str(v) for v in value)
    return "" if value is None else str(value)


def _parse_lightrag(text: str) -> list[_Row]:
    blocks = _scan("lightrag", text, _lightrag_header)
    _require("lightrag", blocks, SECTIONS["lightrag"])
    references: dict[str, str] = {}
    for number, line in enumerate((ln.strip() for ln in blocks[LIGHTRAG_REFERENCES].lines if ln.strip()), 1):
        match = _REFERENCE_LINE.match(line)
        if not match:
            raise ContextFormatError(
                "lightrag", LIGHTRAG_REFERENCES, f"line {number} does not start with [n]"
            )
        references[match["id"]] = match["doc"].strip()
    rows: list[_Row] = []
    block = blocks[LIGHTRAG_ENTITIES]
    for number, obj in _json_rows(block):
        entity = KGEntity(
            name=_field(block.section, number, obj, "entity", "entity_name"),
            type=str(obj.get("type") or obj.get("entity_type") or "").lower(),
            description=_merged(str(obj.get("description") or "")),
        )
        rows.append(_Row(block.section, str(number - 1), "entity", entity))
    block = blocks[LIGHTRAG_RELATIONS]
    for number, obj in _json_rows(block):
        rows.append(
            _Row(block.section, str(number - 1), "relation", _lightrag_triple(block.section, number, obj))
        )
    block = blocks[LIGHTRAG_CHUNKS]
    for number, obj in _json_rows(block):
        ref = str(obj.get("reference_id") if obj.get("reference_id") is not None else "")
        if ref and ref not in references:
            raise ContextFormatError(
                "lightrag",
                LIGHTRAG_CHUNKS,
                f"row {number} cites [{ref}], which the Reference Document List lacks",
            )
        passage = TextEvidence(
            ref_id=ref,
            doc_id=references.get(ref, "") if ref else "",
            title=_headings(obj.get("content_headings")),
            text=_field(block.section, number, obj, "content"),
        )
        rows.append(_Row(block.section, str(number - 1), "chunk", passage))
    return rows


def _sep_list(value: Any) -> list[str]:
    if not value:
        return []
    return [v for v in str(value).split(_SEP) if v.strip() and v != _UNKNOWN_SOURCE]


def _data_list(data: dict[str, Any], key: str, section: str) -> list[dict[str, Any]]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ContextFormatError(
            "lightrag", section, f"the structured answer has no list of objects 'data.{key}'"
        )
    return value


def _parse_lightrag_data(text: str) -> list[_Row]:
    """LightRAG's structured answer (`aquery_data`, `/query/data`): one JSON object."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ContextFormatError(
            "lightrag", "data", f"the structured answer is not valid JSON: {exc}"
        ) from exc
    data = obj.get("data") if isinstance(obj, dict) else None
    if not isinstance(data, dict):
        raise ContextFormatError("lightrag", "data", "the structured answer has no 'data' object")
    entities = _data_list(data, "entities", LIGHTRAG_ENTITIES)
    relations = _data_list(data, "relationships", LIGHTRAG_RELATIONS)
    chunks = _data_list(data, "chunks", LIGHTRAG_CHUNKS)
    references = {
        str(r.get("reference_id", "")): str(r.get("file_path", ""))
        for r in _data_list(data, "references", LIGHTRAG_REFERENCES)
    }
    rows: list[_Row] = []
    for number, e in enumerate(entities, start=1):
        entity = KGEntity(
            name=_field(LIGHTRAG_ENTITIES, number, e, "entity_name", "entity"),
            type=str(e.get("entity_type") or e.get("type") or "").lower(),
            description=_merged(str(e.get("description") or "")),
        )
        rows.append(_Row(LIGHTRAG_ENTITIES, str(number - 1), "entity", entity))
    for number, r in enumerate(relations, start=1):
        rows.append(
            _Row(
                LIGHTRAG_RELATIONS,
                str(number - 1),
                "relation",
                _lightrag_triple(LIGHTRAG_RELATIONS, number, r),
            )
        )
    for number, c in enumerate(chunks, start=1):
        ref = str(c.get("reference_id") if c.get("reference_id") is not None else "")
        files = _sep_list(c.get("file_path"))
        passage = TextEvidence(
            ref_id=ref,
            doc_id=references.get(ref) or (files[0] if files else ""),
            title=_headings(c.get("content_headings")),
            text=_field(LIGHTRAG_CHUNKS, number, c, "content"),
        )
        rows.append(_Row(LIGHTRAG_CHUNKS, str(number - 1), "chunk", passage))
    return rows
