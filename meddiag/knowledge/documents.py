"""Documents and their chunks: HPO term pages, MONDO descriptions, generated disease profiles.

Chunking: texts are split on sentence boundaries and packed greedily into chunks of at
most `MAX_CHARS` characters (a sentence longer than that is cut between words).

Generated profiles and leaving sources out
------------------------------------------
A profile states many facts about one disease (features by frequency band, excluded
features, inheritance, onset, genes, MONDO classification), each resting on its own
sources. It is built from a *layout*: an ordered list of parts, each part one sentence
rendered from a small group of relations, and parts packed into chunks. The layout depends
only on the complete facts, so chunk ids (``profile/<disease>#<position>``) are stable.

`render_profile(disease_id, facts, exclude_sources)` renders the same layout while leaving
out every relation whose sources are all excluded: a part re-renders from its remaining
relations (a fact that also rests on another source stays; in a frequency band, one whose
pooled frequency drew on a left-out source is stated as reported without a frequency), a
part with none left disappears, and a chunk with no fact left is dropped. Each chunk's `sources` is the union
of the sources of the facts it states (minus the excluded ones), and its `entity_ids` are
the disease and every entity those facts mention. A retriever that hits a profile chunk
can therefore rebuild `DiseaseFacts` from the relations it can still see (the graph
store's relations of the disease, plus names) and substitute the re-rendered chunk with
the same id.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from meddiag.knowledge.annotations import FREQUENCY_TERMS, frequency_band
from meddiag.knowledge.hpo import Term, in_sentence
from meddiag.knowledge.model import Chunk, Document, Relation, as_seen_without, keeps_frequency, visible
from meddiag.knowledge.mondo import MondoTerm
from meddiag.knowledge.relations import HPO_SOURCE, MONDO_SOURCE, DiseaseFacts

MAX_CHARS = 900
# A profile list is not started in a chunk with less room left than this when it continues
# in the next chunk anyway.
MIN_LIST_ROOM = 250

# ----------------------------------------------------------------------------- chunking

# A sentence ends at . ! or ? followed by space and a capital, digit or opening bracket;
# "e.g. the" and "approx. 5" stay whole only when lower-case follows, which is the common case.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Sentences of a text, paragraphs breaking sentences too; empty pieces dropped."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = " ".join(para.split())
        if para:
            out.extend(s for s in _SENTENCE_END.split(para) if s)
    return out


def _cut_words(sentence: str, max_chars: int) -> list[str]:
    pieces: list[str] = []
    current = ""
    for word in sentence.split(" "):
        while len(word) > max_chars:  # a single unbroken token longer than a chunk
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:max_chars])
            word = word[max_chars:]
        if current and len(current) + 1 + len(word) > max_chars:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces


def chunk_text(text: str, max_chars: int = MAX_CHARS) -> list[str]:
    """Sentence-aligned chunks of at most `max_chars` characters."""
    chunks: list[str] = []
    current = ""
    for sentence in split_sentences(text):
        for piece in _cut_words(sentence, max_chars) if len(sentence) > max_chars else [sentence]:
            if current and len(current) + 1 + len(piece) > max_chars:
                chunks.append(current)
                current = piece
            else:
                current = f"{current} {piece}" if current else piece
    if current:
        chunks.append(current)
    return chunks


def chunk_document(doc: Document, max_chars: int = MAX_CHARS) -> list[Chunk]:
    """Chunks of a plain document; each inherits the document's entity ids and sources."""
    return [
        Chunk(
            id=f"{doc.id}#{i}",
            doc_id=doc.id,
            title=doc.title,
            source=doc.source,
            position=i,
            text=text,
            entity_ids=list(doc.entity_ids),
            sources=list(doc.sources),
            generated=doc.generated,
        )
        for i, text in enumerate(chunk_text(doc.text, max_chars))
    ]


def _join(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + f" and {items[-1]}"


# ----------------------------------------------------------------------------- HPO and MONDO


def hpo_document(term: Term) -> Document:
    """A page for one HPO term: name, synonyms (lay ones marked), definition, comment."""
    lay = set(term.lay_synonyms)
    parts = [f"{term.name} ({term.id}) is a term of the Human Phenotype Ontology."]
    clinical = [s for s in term.synonyms if s not in lay]
    if clinical:
        parts.append(f"Also called: {'; '.join(clinical)}.")
    if lay:
        parts.append(f"In everyday words: {'; '.join(term.lay_synonyms)}.")
    if term.definition:
        parts.append(f"Definition: {term.definition}")
    if term.comment:
        parts.append(f"Comment: {term.comment}")
    return Document(
        id=f"hpo/{term.id}",
        title=term.name,
        source="hpo",
        text=" ".join(parts),
        generated=False,
        entity_ids=[term.id],
        sources=[HPO_SOURCE],
    )


def mondo_document(term: MondoTerm, linked_diseases: Iterable[str] = ()) -> Document:
    """MONDO's description of a disease, with its label and synonyms."""
    synonyms = [s for s in term.synonyms if s != term.label]
    parts = [f"{term.label} ({term.id})."]
    if synonyms:
        parts.append(f"Also called: {'; '.join(synonyms)}.")
    parts.append(term.description)
    return Document(
        id=f"mondo/{term.id}",
        title=term.label,
        source="mondo",
        text=" ".join(parts),
        generated=False,
        entity_ids=[term.id, *sorted(linked_diseases)],
        sources=[MONDO_SOURCE],
    )


# ----------------------------------------------------------------------------- profiles

BAND_ORDER: tuple[str, ...] = (
    "obligate",
    "very frequent",
    "frequent",
    "occasional",
    "very rare",
    "excluded",
    "",
)
BAND_PHRASES: dict[str, str] = {
    "obligate": "always present (100% of patients)",
    "very frequent": "very frequent (80–99% of patients)",
    "frequent": "frequent (30–79% of patients)",
    "occasional": "occasional (5–29% of patients)",
    "very rare": "very rare (1–4% of patients)",
    "excluded": "absent in the patients studied (0%)",
    "": "reported without a frequency",
}
_BAND_NAMES = {label for label, _ in FREQUENCY_TERMS.values()}


UNBANDED = ""  # the band of a feature reported without a frequency


def band_of(rel: Relation) -> str:
    """The frequency band of a HAS_PHENOTYPE relation ("" when no frequency was curated)."""
    return UNBANDED if rel.frequency is None else frequency_band(rel.frequency)


@dataclass(frozen=True)
class _Part:
    """One sentence of a profile: a kind and the relations it states (none for the overview)."""

    kind: str
    relations: tuple[Relation, ...] = ()


@dataclass(frozen=True)
class _Rendered:
    text: str
    entity_ids: tuple[str, ...]
    sources: tuple[str, ...]
    states_facts: bool


def _feature(rel: Relation, facts: DiseaseFacts) -> str:
    label = facts.label(rel.object)
    if rel.frequency_label and rel.frequency_label not in _BAND_NAMES:
        return f"{label} ({rel.frequency_label})"
    return label


def _other_end(rel: Relation, disease_id: str) -> str:
    return rel.object if rel.subject == disease_id else rel.subject


def _item(rel: Relation, kind: str, facts: DiseaseFacts) -> str:
    """How one relation appears in its part's list."""
    if kind.startswith("band:"):
        return _feature(rel, facts)
    other = _other_end(rel, facts.disease_id)
    return f"{facts.label(other)} ({other})" if kind == "equivalent" else facts.label(other)


def _part_text(part: _Part, facts: DiseaseFacts, rels: list[Relation]) -> str:
    name = facts.name
    if part.kind == "overview":
        return f"Disease profile of {name} ({facts.disease_id}), generated from HPO annotations."
    if part.kind.startswith("band:"):
        phrase = BAND_PHRASES[part.kind[5:]]
        return f"Features of {name} that are {phrase}: {_join([_feature(r, facts) for r in rels])}."
    labels = [facts.label(_other_end(r, facts.disease_id)) for r in rels]
    if part.kind == "not":
        return f"Features recorded as not occurring in {name}: {_join(labels)}."
    if part.kind == "inheritance":
        return f"Mode of inheritance of {name}: {_join([in_sentence(s) for s in labels])}."
    if part.kind == "onset":
        return f"Onset of {name}: {_join([in_sentence(s) for s in labels])}."
    if part.kind == "genes":
        noun = "Gene" if len(labels) == 1 else "Genes"
        return f"{noun} associated with {name}: {_join(labels)}."
    if part.kind == "equivalent":
        ids = [f"{facts.label(i)} ({i})" for i in (_other_end(r, facts.disease_id) for r in rels)]
        return f"{name} is listed in other disease catalogues as {_join(ids)}."
    if part.kind == "class":
        return f"MONDO classifies {name} under: {'; '.join(labels)}."
    raise ValueError(f"unknown profile part {part.kind!r}")


def _render_part(part: _Part, facts: DiseaseFacts, exclude: frozenset[str]) -> _Rendered | None:
    if part.kind == "overview":
        return _Rendered(_part_text(part, facts, []), (facts.disease_id,), (), False)
    rels = [r for r in part.relations if visible(r.sources, exclude)]
    if not rels:
        return None
    stated = rels
    unbanded: list[Relation] = []
    if part.kind.startswith("band:"):
        # A band states a frequency, so a feature whose pooled frequency drew on a left-out
        # source is stated in the same part as one reported without a frequency.
        stated, unbanded = [], []
        for r in rels:
            (stated if keeps_frequency(r, exclude) else unbanded).append(r)
    texts = [_part_text(part, facts, stated)] if stated else []
    if unbanded:
        shown = [as_seen_without(r, exclude) for r in unbanded]  # no curated label either
        texts.append(_part_text(_Part(f"band:{UNBANDED}"), facts, shown))
    ids = [facts.disease_id, *(_other_end(r, facts.disease_id) for r in rels)]
    sources = [s for r in rels for s in r.sources if s not in exclude]
    return _Rendered(" ".join(texts), tuple(dict.fromkeys(ids)), tuple(dict.fromkeys(sources)), True)


def _kind(rel: Relation, disease_id: str) -> str | None:
    p = rel.predicate
    if p == "HAS_PHENOTYPE" and rel.subject == disease_id:
        return f"band:{band_of(rel)}"
    if rel.subject != disease_id and p != "EQUIVALENT_TO":
        return None
    return {
        "NOT_HAS_PHENOTYPE": "not",
        "HAS_INHERITANCE": "inheritance",
        "HAS_ONSET": "onset",
        "ASSOCIATED_GENE": "genes",
        "EQUIVALENT_TO": "equivalent",
        "IS_A": "class",
    }.get(p)


_KIND_ORDER = [f"band:{b}" for b in BAND_ORDER] + [
    "not",
    "inheritance",
    "onset",
    "genes",
    "equivalent",
    "class",
]


def _layout(disease_id: str, facts: DiseaseFacts, max_chars: int) -> list[list[_Part]]:
    """Parts in reading order, packed into chunks; computed from all facts, no exclusions."""
    grouped: dict[str, list[Relation]] = {}
    for rel in facts.relations:
        kind = _kind(rel, disease_id)
        if kind is not None:
            grouped.setdefault(kind, []).append(rel)
    overview = _Part("overview")
    chunks: list[list[_Part]] = [[overview]]
    size = len(_part_text(overview, facts, []))
    for kind in _KIND_ORDER:
        rels = grouped.get(kind)
        if not rels:
            continue
        if kind.startswith("band:"):
            rels.sort(key=lambda r: (-(r.frequency or 0.0), facts.label(r.object).lower(), r.object))
        else:
            rels.sort(key=lambda r: (facts.label(_other_end(r, disease_id)).lower(), r.object, r.subject))
        # Lengths are summed rather than rendered: an item costs its text and at most two
        # separator characters, plus three for the one " and ".
        base = len(_part_text(_Part(kind), facts, [])) + 3
        costs = [len(_item(r, kind, facts)) + 2 for r in rels]
        i = 0
        while i < len(rels):
            room = max_chars - size - 1 if size else max_chars
            j, length = i, base
            while j < len(rels) and length + costs[j] <= room:
                length += costs[j]
                j += 1
            # Open a new chunk rather than leave nothing, or a sliver of a list that goes on.
            if size and (j == i or (j < len(rels) and room < MIN_LIST_ROOM)):
                chunks.append([])
                size = 0
                continue
            if j == i:  # one item longer than a whole chunk: it gets a chunk of its own
                j, length = i + 1, base + costs[i]
            chunks[-1].append(_Part(kind, tuple(rels[i:j])))
            size += (1 if size else 0) + length
            i = j
    return chunks


def profile_doc_id(disease_id: str) -> str:
    return f"profile/{disease_id}"


def profile_title(name: str) -> str:
    return f"{name} — disease profile"


def render_profile(
    disease_id: str,
    facts: DiseaseFacts,
    exclude_sources: frozenset[str] = frozenset(),
    max_chars: int = MAX_CHARS,
) -> list[Chunk]:
    """The profile's chunks, leaving out facts that rest only on `exclude_sources`.

    Chunk ids and positions are those of the complete profile, so a re-rendered chunk
    replaces the stored chunk with the same id; chunks left with no fact are omitted.
    For the ids to match, `facts` must hold *all* the disease's relations (not ones a
    store already filtered): the exclusion is applied here.
    """
    if facts.disease_id != disease_id:
        raise ValueError(f"facts about {facts.disease_id} cannot render the profile of {disease_id}")
    doc_id = profile_doc_id(disease_id)
    chunks: list[Chunk] = []
    for position, parts in enumerate(_layout(disease_id, facts, max_chars)):
        rendered = [r for r in (_render_part(p, facts, exclude_sources) for p in parts) if r is not None]
        if not any(r.states_facts for r in rendered):
            continue
        chunks.append(
            Chunk(
                id=f"{doc_id}#{position}",
                doc_id=doc_id,
                title=profile_title(facts.name),
                source="profile",
                position=position,
                text=" ".join(r.text for r in rendered),
                entity_ids=list(dict.fromkeys(i for r in rendered for i in r.entity_ids)),
                sources=list(dict.fromkeys(s for r in rendered for s in r.sources)),
                generated=True,
            )
        )
    return chunks


def profile_document(disease_id: str, facts: DiseaseFacts) -> tuple[Document, list[Chunk]] | None:
    """The complete generated profile and its chunks; None when nothing is known about the disease."""
    chunks = render_profile(disease_id, facts)
    if not chunks:
        return None
    doc = Document(
        id=profile_doc_id(disease_id),
        title=profile_title(facts.name),
        source="profile",
        text="\n\n".join(c.text for c in chunks),
        generated=True,
        entity_ids=list(dict.fromkeys(i for c in chunks for i in c.entity_ids)),
        sources=list(dict.fromkeys(s for c in chunks for s in c.sources)),
    )
    return doc, chunks
