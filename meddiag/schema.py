"""Typed wire models shared by the engine, the CLI, the evaluation and the UI.

Every boundary in MedDiag speaks these types and nothing else:
raw context -> parsed evidence -> hop sub-answers -> channel results -> synthesis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

BackendName = Literal["lightrag", "minirag", "pathrag", "hypergraphrag"]
BACKENDS: tuple[BackendName, ...] = ("lightrag", "minirag", "pathrag", "hypergraphrag")
ChannelName = Literal["semantic", "relational"]
Channels = Literal["both", "semantic", "relational"]
Level = Literal["high", "low"]
# How a differential row's place comes from its MONDO series (same parent class):
# "scored_by", no curated fact of its own is visible, so it takes the score of the member
# named; "shrunk_toward", its visible curated facts match no finding, so its place is the
# share of the named member's fit it borrows.
SeriesRole = Literal["scored_by", "shrunk_toward"]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# --------------------------------------------------------------------------- retrieval


class RetrievedItem(Model):
    """Side channel of a retrieval: what one printed row of the raw context stands for.

    Upstream formats have no room for our ids and provenance, so a backend lists them
    here keyed by (section, row id); `context_filter` attaches them to parsed rows.
    """

    section: str
    row_id: str
    kind: Literal["entity", "relation", "hyperedge", "chunk", "path"]
    ids: list[str] = Field(default_factory=list)
    predicate: str | None = None
    provenance: list[str] = Field(default_factory=list)
    frequency: float | None = None  # a relation's curated frequency, which no upstream format prints


class RawContext(Model):
    """One backend's answer to one retrieval call, in its upstream text format. Frozen: one
    answer is shared by every hop that asks the same within an ask."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    backend: BackendName
    query: str
    text: str
    items: list[RetrievedItem] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)


class TextEvidence(Model):
    """A passage for the semantic channel."""

    ref_id: str
    doc_id: str = ""
    source: str = ""
    title: str = ""
    text: str
    provenance: list[str] = Field(default_factory=list)
    score: float | None = None


class KGEntity(Model):
    name: str
    type: str = ""
    description: str = ""
    rank: float | None = None
    level: Level | None = None
    id: str | None = None


class KGTriple(Model):
    """A Subject-Predicate-Object fact for the relational channel."""

    subject: str
    predicate: str
    object: str
    description: str = ""
    keywords: str = ""
    weight: float | None = None  # the backend's edge weight, as printed (upstream: 1.0 when unknown)
    # The curated share of patients showing a feature (HAS_PHENOTYPE); None when not curated.
    frequency: float | None = None
    rank: float | None = None
    level: Level | None = None
    subject_id: str | None = None
    object_id: str | None = None
    provenance: list[str] = Field(default_factory=list)
    from_hyperedge: bool = False

    @property
    def key(self) -> str:
        return f"{self.subject}|{self.predicate}|{self.object}"


class KGHyperedge(Model):
    """An n-ary fact (HyperGraphRAG): one sentence linking several entities."""

    text: str
    members: list[str]
    provenance: list[str] = Field(default_factory=list)
    id: str | None = None


class KGPath(Model):
    """A PathRAG path: alternating nodes and edges, rendered as a sentence."""

    nodes: list[str]
    edges: list[str]
    sentence: str
    reliability_rank: int = 0
    level: Level = "low"


class KGEvidence(Model):
    entities: list[KGEntity] = Field(default_factory=list)
    triples: list[KGTriple] = Field(default_factory=list)
    hyperedges: list[KGHyperedge] = Field(default_factory=list)
    paths: list[KGPath] = Field(default_factory=list)


class ParsedContext(Model):
    """A raw context split by `context_filter` into the two channels' evidence."""

    backend: BackendName
    text: list[TextEvidence] = Field(default_factory=list)
    kg: KGEvidence = Field(default_factory=KGEvidence)
    timings: dict[str, float] = Field(default_factory=dict)


# --------------------------------------------------------------------------- questions


Sex = Literal["female", "male", "other", "unknown"]


class Finding(Model):
    """A finding linked to an HPO term, observed or excluded."""

    hpo_id: str
    label: str
    excluded: bool = False
    mention: str = ""
    match: Literal["id", "exact", "synonym", "embedding", "fuzzy", "lab"] = "exact"
    confidence: float = 1.0


LabReadingKind = Literal["high", "low", "normal"]


class LabValue(Model):
    """A laboratory value written as a number in the question, and how it was read."""

    analyte: str
    value: float
    unit: str
    reading: LabReadingKind
    limit: str  # the limit it was read against: "above 300 U/L"
    mention: str  # the text read: "CK 20,000 U/L"
    hpo_id: str | None = None  # the finding it became; None within range or without an HPO term


class Onset(Model):
    """When the illness began, as an age range in years; before birth is negative (conception
    is about -0.75). A stated age is a point (``low == high``); an HPO onset class
    ("Infantile onset", HP:0003593) its range (28 days to 1 year)."""

    model_config = ConfigDict(extra="forbid", frozen=True)  # hashable: part of the ranker's cache key

    low_years: float = Field(ge=-1.0, le=130.0)
    high_years: float = Field(ge=-1.0, le=130.0)
    label: str  # as the page and the explanation name it: "infantile onset", "onset at 3 years"
    hpo_id: str = ""  # the HPO onset class, when the onset was given as one

    @model_validator(mode="after")
    def _ordered(self) -> Onset:
        if self.high_years < self.low_years:
            raise ValueError(f"onset range ends ({self.high_years}) before it starts ({self.low_years})")
        return self


class PatientInput(Model):
    """Structured patient input, equivalent to a free-text vignette."""

    observed: list[str] = Field(default_factory=list)
    excluded: list[str] = Field(default_factory=list)
    age_years: float | None = None
    sex: Sex | None = None
    onset: Onset | None = None
    genes: list[str] = Field(default_factory=list)
    note: str = ""


QuestionKind = Literal[
    "diagnosis", "genes", "features", "inheritance", "onset", "gene_diseases", "compare", "unknown"
]


class ParsedQuestion(Model):
    """What the reasoner understood of a question."""

    text: str
    kind: QuestionKind
    findings: list[Finding] = Field(default_factory=list)
    age_years: float | None = None
    sex: Sex | None = None
    onset: Onset | None = None  # when the illness began ("onset in infancy", "onset at 3 years")
    genes: list[str] = Field(default_factory=list)
    # Genes reported with a variant (the form's gene field, or named beside a variant word in
    # the text): only these rank their diseases first. "CD4+ T cells" names a gene, not a variant.
    variant_genes: list[str] = Field(default_factory=list)
    diseases: list[str] = Field(default_factory=list)  # disease ids named in the question
    disease_mentions: list[str] = Field(default_factory=list)  # ... as the question words them
    lab_values: list[LabValue] = Field(default_factory=list)  # numbers read against reference limits
    warnings: list[str] = Field(default_factory=list)
    # Set by the caller, not the reasoner: sources every step must leave out (leave-publication-out).
    exclude_sources: list[str] = Field(default_factory=list)

    @property
    def asks_for_diagnosis(self) -> bool:
        """Whether a differential is the answer: not for a named disease's genes or features."""
        return self.kind in ("diagnosis", "unknown")


# --------------------------------------------------------------------------- channels


class TriplePattern(Model):
    """An SPO sub-query; a slot may be a placeholder such as ``Entity#1`` or ``?``."""

    subject: str
    predicate: str
    object: str

    def __str__(self) -> str:
        return f"({self.subject}, {self.predicate}, {self.object})"


class SemanticHop(Model):
    index: int
    sub_query: str
    grounded_query: str
    unresolved: list[str] = Field(default_factory=list)
    passages: list[TextEvidence] = Field(default_factory=list)
    summary: str = ""
    sub_answer: str = ""
    logic: list[str] = Field(default_factory=list)
    expansion: bool = False


class RelationalHop(Model):
    index: int
    triple_queries: list[TriplePattern]
    resolved_queries: list[TriplePattern]
    unresolved: list[str] = Field(default_factory=list)
    triples: list[KGTriple] = Field(default_factory=list)
    dropped: int = 0
    summary: str = ""
    sub_answer: str = ""
    answer_entities: list[str] = Field(default_factory=list)
    logic: list[str] = Field(default_factory=list)
    expansion: bool = False


class Verification(Model):
    sufficient: bool
    reason: str


class SemanticResult(Model):
    hops: list[SemanticHop] = Field(default_factory=list)
    verification: Verification | None = None


class RelationalResult(Model):
    hops: list[RelationalHop] = Field(default_factory=list)
    verification: Verification | None = None


# --------------------------------------------------------------------------- synthesis


class Citation(Model):
    """A numbered citation: a retrieved passage or a retrieved triple."""

    n: int
    kind: Literal["passage", "triple"]
    channel: ChannelName
    hop: int
    doc_id: str = ""
    text: str = ""
    subject: str = ""
    predicate: str = ""
    object: str = ""
    provenance: list[str] = Field(default_factory=list)


class DifferentialEntry(Model):
    id: str
    name: str
    score: float
    for_: list[str] = Field(default_factory=list, alias="for")
    against: list[str] = Field(default_factory=list)
    channels: list[ChannelName] = Field(default_factory=list)
    citations: list[int] = Field(default_factory=list)
    # Other catalogue ids of the same disease (ORPHA, MONDO …) whose evidence this row merges.
    aliases: list[str] = Field(default_factory=list)
    # Set when the disease's place comes from its MONDO series, as "Name (id)" of the member
    # it comes from; `series_role` says how (what its name states may still match, in `for_`),
    # and `series_class` which class they share, the smallest ("Name (id)"): a series may be a
    # phenotypic series or a class as broad as "hereditary disease".
    series: str = ""
    series_role: SeriesRole | None = None
    series_class: str = ""
    # Genes named in the question that the disease is associated with; such diseases rank first.
    genes: list[str] = Field(default_factory=list)
    # Other rows of the differential with exactly the same score: the evidence cannot tell
    # them apart, and their order among themselves is by catalogue id only.
    tied_with: list[str] = Field(default_factory=list)

    @property
    def series_member(self) -> str:
        """`series` with the class the two share, as rows and answers name it."""
        if self.series and self.series_class:
            return f"{self.series}, of the same MONDO class {self.series_class}"
        return self.series


# Scores closer than this read alike in the differential table (two decimals): two rows that
# close are level on the evidence as shown, and their order is no preference to act on.
NEAR_TIE = 0.01


def near_ties(entries: Sequence[DifferentialEntry], within: float = NEAR_TIE) -> list[bool]:
    """For each row, whether its score lies within `within` of the row above it without being
    an exact tie (exact ties share a place, `shared_places`). The first row is never one."""
    return [
        i > 0 and entries[i - 1].id not in e.tied_with and abs(entries[i - 1].score - e.score) < within
        for i, e in enumerate(entries)
    ]


def opens_with_near_tie(entries: Sequence[DifferentialEntry]) -> bool:
    """Whether the second row lies within `NEAR_TIE` of the first (`near_ties`)."""
    return len(entries) > 1 and near_ties(entries[:2])[1]


def shared_places(entries: Sequence[DifferentialEntry]) -> list[int]:
    """Each row's 1-based place in the differential, a row tied with the one above sharing
    its place (1, 2, 2, 4), as the table and the exports number them."""
    places: list[int] = []
    for i, e in enumerate(entries):
        tied = i > 0 and entries[i - 1].id in e.tied_with
        places.append(places[-1] if tied else i + 1)
    return places


class Agreement(Model):
    status: Literal["agree", "partial", "disagree", "single-channel"]
    detail: str


class Synthesis(Model):
    answer: str
    differential: list[DifferentialEntry] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    agreement: Agreement
    # Per channel, the disease scores the differential was fused from (before z-scoring), so
    # a row's place can be traced and the fusion re-tuned from evaluation runs.
    channel_scores: dict[ChannelName, dict[str, float]] = Field(default_factory=dict)


# --------------------------------------------------------------------------- trace


class NodeEvent(Model):
    """One engine node's run, for live progress and the timeline."""

    node: str
    channel: Literal["semantic", "relational", "parent"]
    hop: int | None = None
    status: Literal["ok", "error", "fallback"] = "ok"
    start: float
    end: float
    payload: str = ""


class ReasonerInfo(Model):
    name: str
    fallbacks: list[str] = Field(default_factory=list)


class AskResult(Model):
    """Everything one question produced; the CLI, UI and evaluation read only this."""

    question: str
    backend: BackendName
    channels: Channels = "both"
    reasoner: ReasonerInfo
    parsed: ParsedQuestion
    semantic: SemanticResult = Field(default_factory=SemanticResult)
    relational: RelationalResult = Field(default_factory=RelationalResult)
    synthesis: Synthesis
    events: list[NodeEvent] = Field(default_factory=list)
    excluded_sources: list[str] = Field(default_factory=list)
