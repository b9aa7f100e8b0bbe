"""Offline dual-level keyword extraction (LightRAG's keyword step without an LLM).

Low level: the entities and findings a query names. The query is cut into phrases at
punctuation and conjunctions; phrases after a negation cue ("no", "without", ...) are kept
apart as negated findings and do not steer retrieval; each phrase is looked up through the graph store's name
search and the `entity_names` vectors, and a candidate is kept when its name or a synonym
occurs in the phrase as whole words (or, failing that, when its name vector is very close).
High level: the themes the question asks about ("genes", "inheritance", "differential
diagnosis", ...), the predicates that carry them, and the expected answer type.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from meddiag.backends.base import Keywords, KnowledgeBaseView
from meddiag.knowledge.model import NAME_ONLY_TYPES, Entity

# A vector-only match must be this close (cosine) to count as the entity the phrase names.
NAME_VECTOR_MIN_SCORE = 0.9
MAX_PHRASES = 40
MAX_NAME_SEARCHES = 1
_CANDIDATES_PER_PHRASE = 8

_SPLIT = re.compile(
    r"[,;:.!?()\[\]\n\t]+|\s(?:and|or|with|without|but|plus|also|including|no|not|denies|absent|versus|vs)\s",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_SENTENCE = re.compile(r"[.;!?\n]+")
_COMPARED_FROM = re.compile(r"(\b(?:distinguish|differentiat|tell)\w*\b.*?)\s+from\s+", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:no|not|without|denies|denied|absent|negative for|absence of|excluded)\b", re.I)
_AGE = re.compile(r"^\d+(?:-\w+)*$|^newborn$")  # "6-year-old", "3", "newborn"
_NUMBERED = frozenset({"type", "types", "grade", "stage", "class", "group", "factor", "complex"})
_FILLER_WORDS = """
    a an the of in on at to for from by is are was were be been has have had having this that these
    those it its his her their patient patients child boy girl man woman infant adult year years old
    aged age month months who which what whom whose how why when where does do did can could would should
    may might will shall presents presented presenting present shows showed showing history findings
    finding feature features symptom symptoms sign signs diagnosis diagnose diagnoses differential
    likely most possible candidate candidates gene genes genetic cause causes caused explain explains
    list give tell me please associated inheritance inherited onset mode i we you our us he she they
    them male female no not without denies characteristic characteristics main key reported described
    known distinguish distinguishes differentiate differentiates differ difference differences compare
    compared between versus vs"""
_FILLER = frozenset(_FILLER_WORDS.split())
# Disease nouns are filler only at the start of a phrase ("disease with ..."), never at its end
# ("Gaucher disease").
_DISEASE_NOUNS = "disease diseases disorder disorders syndrome condition conditions"
_LEADING_FILLER = _FILLER | frozenset(_DISEASE_NOUNS.split())


@dataclass(frozen=True)
class Theme:
    keyword: str
    pattern: re.Pattern[str]
    predicates: tuple[str, ...]
    answer_type: str | None


# Order matters for the answer type: the first matching theme with a type wins.
THEMES: tuple[Theme, ...] = (
    Theme(
        "genes",
        re.compile(r"\bgen(?:e|es|etic)\b|mutation|variant|\bcaus", re.I),
        ("ASSOCIATED_GENE",),
        "Gene",
    ),
    Theme(
        "inheritance",
        re.compile(r"inherit|autosomal|x-linked|recessive|dominant|transmi|pattern of", re.I),
        ("HAS_INHERITANCE",),
        "Inheritance",
    ),
    Theme("onset", re.compile(r"\bonset\b|age at|when do|when does|start", re.I), ("HAS_ONSET",), "Onset"),
    Theme(
        "clinical features",
        re.compile(r"feature|symptom|\bsigns?\b|phenotyp|manifest|clinical|characteri|present with", re.I),
        ("HAS_PHENOTYPE",),
        "Phenotype",
    ),
    Theme(
        "differential diagnosis",
        re.compile(r"diagnos|differential|which disease|what disease|what condition|explain", re.I),
        ("HAS_PHENOTYPE", "IS_A"),
        "Disease",
    ),
    Theme(
        "absent findings",
        re.compile(r"\bno\b|\bnot\b|without|absent|denies|negative for|exclud", re.I),
        ("NOT_HAS_PHENOTYPE",),
        None,
    ),
    Theme(
        "disease classification",
        re.compile(r"subtype|\btype of\b|classif|categor|kind of|\bis a\b", re.I),
        ("IS_A",),
        "DiseaseClass",
    ),
    Theme(
        "synonyms",
        re.compile(r"also known|synonym|same as|equivalent|another name", re.I),
        ("EQUIVALENT_TO",),
        None,
    ),
)


def normalise(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _trim(part: str) -> str:
    found = _WORD.findall(part.lower())
    # An age ("6-year-old", "3") is no name, but the number of "type 1" or "factor V" is.
    words = [
        w for i, w in enumerate(found) if not (_AGE.match(w) and (i == 0 or found[i - 1] not in _NUMBERED))
    ]
    while words and words[0] in _LEADING_FILLER:
        words.pop(0)
    while words and words[-1] in _FILLER:
        words.pop()
    if not words or (len(words) == 1 and len(words[0]) < 3) or set(words) <= _LEADING_FILLER:
        return ""
    return " ".join(words)


def split_findings(query: str) -> tuple[list[str], list[str]]:
    """(stated phrases, negated phrases): filler trimmed; a negation cue negates the rest of its sentence."""
    stated: list[str] = []
    negated: list[str] = []
    for sentence in _SENTENCE.split(query):
        # "distinguishes A from B" names two things; elsewhere "from" belongs to a name
        # ("anomalous origin of coronary artery from the pulmonary artery").
        sentence = _COMPARED_FROM.sub(r"\1, ", sentence)
        cue = _NEGATION.search(sentence)
        cut = cue.start() if cue else len(sentence)
        for text, bucket in ((sentence[:cut], stated), (sentence[cut:], negated)):
            bucket.extend(p for p in map(_trim, _SPLIT.split(f" {text} ")) if p)
    stated = list(dict.fromkeys(stated))[:MAX_PHRASES]
    return stated, [p for p in dict.fromkeys(negated) if p not in stated][:MAX_PHRASES]


def phrases(query: str) -> list[str]:
    """The stated (not negated) phrases of the query: candidate names of entities."""
    return split_findings(query)[0]


def _named_in(entity: Entity, phrase: str) -> str | None:
    """The entity's name or synonym that occurs in `phrase` as whole words, longest first."""
    padded = f" {phrase} "
    for name in sorted({normalise(n) for n in (entity.name, *entity.synonyms)}, key=len, reverse=True):
        if name and f" {name} " in padded:
            return name
    return None


class NameCandidateCache:
    """Bounded, thread-safe memory of phrase → nearest names, shared by all queries.

    Name records cite no source, so the answer for a phrase never depends on the query or
    its exclusions. The key includes the physical collection, which changes with every
    build, so a rebuilt knowledge base never sees stale entries.
    """

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self._items: OrderedDict[tuple[int, str, str], list[tuple[str, float]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[int, str, str]) -> list[tuple[str, float]] | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[int, str, str], value: list[tuple[str, float]]) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)


NAME_CANDIDATES = NameCandidateCache()


def _name_vector_candidates(kb: KnowledgeBaseView, texts: Sequence[str]) -> list[list[tuple[str, float]]]:
    """Per phrase, (entity id, score) of its nearest names in the `entity_names` collection.

    The uncached phrases are searched together in one store call: a search costs about the
    same for twenty vectors as for one.
    """
    collection = kb.collection("entity_names")
    keys = [(id(kb.vectors), collection, t) for t in texts]
    found = {k: v for k in keys if (v := NAME_CANDIDATES.get(k)) is not None}
    missing = list(dict.fromkeys(k for k in keys if k not in found))
    if missing:
        vectors = np.asarray(kb.embedder.embed([k[2] for k in missing]), dtype=np.float32)
        batches = kb.vectors.search_many(collection, [v.tolist() for v in vectors], _CANDIDATES_PER_PHRASE)
        for key, hits in zip(missing, batches, strict=True):
            found[key] = [(str(h.extra.get("entity_id") or h.id.split("#", 1)[0]), h.score) for h in hits]
            NAME_CANDIDATES.put(key, found[key])
    return [found[k] for k in keys]


def _graph_name_candidates(kb: KnowledgeBaseView, phrase: str) -> list[Entity]:
    """The graph store's name search for a phrase, remembered like the name vectors."""
    key = (id(kb.graph), "graph_names", phrase)
    cached = NAME_CANDIDATES.get(key)
    if cached is None:
        cached = [(e.id, 0.0) for e in kb.graph.search_names(phrase, limit=_CANDIDATES_PER_PHRASE)]
        NAME_CANDIDATES.put(key, cached)
    found = kb.graph.get_many([eid for eid, _ in cached])
    return [found[eid] for eid, _ in cached if eid in found]


def _linkable_by(entity: Entity, phrase: str) -> bool:
    """Whether a phrase that is exactly one of the entity's names may link to it: a disease
    class only by its own name, as its name vectors hold (their synonyms are often findings)."""
    return entity.type not in NAME_ONLY_TYPES or entity.name.strip().lower() == phrase.strip().lower()


def _names_found(candidates: Sequence[Entity], phrase: str) -> list[Entity]:
    """Candidates named in the phrase; a name inside a longer matched name is dropped
    ("cleft" in "cleft palate")."""
    named = sorted(
        ((e, n) for e in candidates if (n := _named_in(e, phrase))), key=lambda en: len(en[1]), reverse=True
    )
    kept: list[tuple[Entity, str]] = []
    for entity, name in named:
        if not any(f" {name} " in f" {longer} " for _, longer in kept if longer != name):
            kept.append((entity, name))
    return [e for e, _ in kept]


def link_phrases(kb: KnowledgeBaseView, texts: Sequence[str]) -> tuple[list[Entity], list[str]]:
    """(entities named in the phrases, phrases that named none).

    A phrase that is exactly an entity's name or synonym (most findings in a vignette are)
    links to those entities through the graph's name lookup. The other phrases ask the name
    vectors (one search each, the costliest search of a query: the names collection is the
    largest); the graph store's name search, a scan on the local store, is asked only for
    phrases the vectors could not link, at most `MAX_NAME_SEARCHES` times per query.
    """
    exact = {
        phrase: found
        for phrase, named in kb.graph.entities_named(texts).items()
        if (found := [e for e in named if _linkable_by(e, phrase)])
    }
    rest = [t for t in texts if t not in exact]
    by_vector = dict(zip(rest, _name_vector_candidates(kb, rest), strict=True))
    entities = kb.graph.get_many({eid for hits in by_vector.values() for eid, _ in hits})
    linked: dict[str, Entity] = {}
    unlinked: list[str] = []
    name_searches = 0
    for phrase in texts:
        if phrase in exact:
            for entity in exact[phrase][:_CANDIDATES_PER_PHRASE]:
                linked.setdefault(entity.id, entity)
            continue
        hits = by_vector[phrase]
        candidates = [entities[eid] for eid, _ in hits if eid in entities]
        found = _names_found(candidates, phrase)
        if not found and name_searches < MAX_NAME_SEARCHES:
            name_searches += 1
            found = _names_found(_graph_name_candidates(kb, phrase), phrase)
        if not found and hits and hits[0][1] >= NAME_VECTOR_MIN_SCORE and hits[0][0] in entities:
            found = [entities[hits[0][0]]]
        if not found:
            unlinked.append(phrase)
        for entity in found:
            linked.setdefault(entity.id, entity)
    return list(linked.values()), unlinked


def themes(query: str) -> list[Theme]:
    return [t for t in THEMES if t.pattern.search(query)]


def expected_answer_type(query: str, named: Sequence[Entity]) -> str | None:
    """What kind of entity answers the question: a named disease asks for its features, else a disease."""
    for theme in themes(query):
        if theme.answer_type in ("Gene", "Inheritance", "Onset", "DiseaseClass"):
            return theme.answer_type
    names_disease = any(e.type in ("Disease", "DiseaseClass") for e in named)
    names_findings = any(e.type == "Phenotype" for e in named)
    if names_disease and not names_findings:
        return "Phenotype"
    return "Disease"


def extract_keywords(query: str, kb: KnowledgeBaseView) -> Keywords:
    """Dual-level keywords of `query`, linked to KB entities where the query names them."""
    found = themes(query)
    stated, negated = split_findings(query)
    entities, unlinked = link_phrases(kb, stated)
    predicates = list(dict.fromkeys(p for t in found for p in t.predicates))
    return Keywords(
        low=[e.name for e in entities] + unlinked,
        high=[t.keyword for t in found] or ["differential diagnosis"],
        entity_ids=[e.id for e in entities],
        predicates=predicates or ["HAS_PHENOTYPE"],
        answer_type=expected_answer_type(query, entities),
        negated=negated,
    )
