"""The knowledge base's typed model: documents, chunks, entities, relations, hyperedges.

Every relation, hyperedge and chunk carries `sources`: the publications (``PMID:…``) and
curation sources (``OMIM:…``, ``ORPHA:…``, ``HPO``, ``MONDO``) it derives from, so that
retrieval can leave sources out without rebuilding the index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EntityType = Literal["Disease", "Phenotype", "Gene", "Inheritance", "Onset", "DiseaseClass"]
Predicate = Literal[
    "HAS_PHENOTYPE",
    "NOT_HAS_PHENOTYPE",
    "IS_A",
    "ASSOCIATED_GENE",
    "HAS_INHERITANCE",
    "HAS_ONSET",
    "EQUIVALENT_TO",
]
PREDICATES: tuple[str, ...] = Predicate.__args__  # type: ignore[attr-defined]
# Disease classes (MONDO groupings) carry ~30k synonyms in the full KB that no finding or
# diagnosis is linked to, many of them a finding's own label: a phrase links to a class
# by its name only (and only its name is embedded for linking).
NAME_ONLY_TYPES = frozenset({"DiseaseClass"})


class KBModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Entity(KBModel):
    id: str  # HP:0001166, OMIM:154700, ORPHA:558, MONDO:0007947, HGNC:FBN1 / gene symbol id
    type: EntityType
    name: str
    description: str = ""
    synonyms: list[str] = Field(default_factory=list)
    xrefs: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


class Relation(KBModel):
    """A Subject–Predicate–Object triple with provenance."""

    subject: str  # entity id
    predicate: Predicate
    object: str  # entity id
    frequency: float | None = None  # 0..1 for HAS_PHENOTYPE when known
    frequency_label: str = ""  # "very frequent", "3/7", "40%" as curated
    evidence: str = ""  # HPO evidence code (PCS, TAS, IEA)
    sources: list[str] = Field(default_factory=list)
    source_file: str = ""

    @property
    def key(self) -> str:
        return f"{self.subject}|{self.predicate}|{self.object}"


class Hyperedge(KBModel):
    """An n-ary fact, e.g. one disease with all its phenotypes of one frequency band."""

    id: str
    text: str
    members: list[str]  # entity ids
    sources: list[str] = Field(default_factory=list)


class Document(KBModel):
    id: str  # hpo/HP:0001166, mondo/MONDO:0007947, profile/OMIM:154700, user/<name>
    title: str
    source: Literal["hpo", "mondo", "profile", "user"]
    text: str
    generated: bool = False
    entity_ids: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


class Chunk(KBModel):
    id: str  # "<doc id>#<position>"
    doc_id: str
    title: str
    source: str
    position: int
    text: str
    entity_ids: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    generated: bool = False


def visible(sources: Sequence[str], excluded: frozenset[str]) -> bool:
    """Whether a fact survives leaving `excluded` sources out: it must rest on something else."""
    # Set operations, not generators: a retrieval checks thousands of relations this way.
    return not excluded or not sources or not excluded.issuperset(sources)


def touches(sources: Sequence[str], excluded: frozenset[str]) -> bool:
    """Whether an item cites a left-out source at all (visible or not)."""
    return bool(excluded) and not excluded.isdisjoint(sources)


def keeps_frequency(rel: Relation, excluded: frozenset[str]) -> bool:
    """Whether a relation's curated frequency survives leaving `excluded` sources out.

    A frequency is pooled over every source a relation cites (one annotation row citing
    several publications, or rows merged into one relation), so it cannot be split by
    source: once a left-out source is among them, the frequency is not shown at all.
    """
    return rel.frequency is None or not touches(rel.sources, excluded)


def as_seen_without(rel: Relation, excluded: frozenset[str]) -> Relation:
    """A visible relation as a query leaving `excluded` out sees it: the other sources only,
    and no frequency when a left-out source is among those it was pooled from."""
    if not touches(rel.sources, excluded):
        return rel
    update: dict[str, object] = {"sources": [s for s in rel.sources if s not in excluded]}
    if rel.frequency is not None:
        update |= {"frequency": None, "frequency_label": ""}
    return rel.model_copy(update=update)


class KnowledgeBase(KBModel):
    """Everything one build writes to the stores, before embedding."""

    profile: Literal["demo", "full", "test"]
    versions: dict[str, str] = Field(default_factory=dict)  # source name -> release
    entities: list[Entity] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    hyperedges: list[Hyperedge] = Field(default_factory=list)
    documents: list[Document] = Field(default_factory=list)
    chunks: list[Chunk] = Field(default_factory=list)
    stats: dict[str, int] = Field(default_factory=dict)  # e.g. mondo_links_by_label
