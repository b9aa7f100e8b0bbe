"""Reading sub-queries, passages and SPO slots: what they ask for, name and point to."""

from __future__ import annotations

import re
from functools import lru_cache

from meddiag.diagnosis.linking import LinkedText, PhraseLinker, tokenize

REF = re.compile(r"#(\d+)\b")
PLACEHOLDER = re.compile(r"^Entity#(\d+)$")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(])")
DOC_DISEASE = re.compile(r"^(?:profile|mondo|user)/((?:OMIM|ORPHA|DECIPHER|MONDO):[\w.]+)")
DISEASE_PREFIXES: tuple[str, ...] = ("OMIM:", "ORPHA:", "DECIPHER:", "MONDO:")
STOP = frozenset(
    re.findall(
        r"\w+",
        "a an the and or of in on at to for from by with which what who is are was were be do does how "
        "that this these those its their reported present presents characteristic",
    )
)


def is_disease(entity_id: str) -> bool:
    return entity_id.startswith(DISEASE_PREFIXES)


def entity_kind(entity_id: str) -> str:
    """disease / phenotype / gene / other, from the id's prefix."""
    if is_disease(entity_id):
        return "disease"
    return {"HP": "phenotype", "NCBIGene": "gene"}.get(entity_id.split(":", 1)[0], "other")


@lru_cache(maxsize=1024)
def normalise_predicate(predicate: str) -> str:
    """``has phenotype`` / ``HAS_PHENOTYPE`` / ``has-phenotype`` → ``HAS_PHENOTYPE``.
    Remembered: a hop checks hundreds of triples against few distinct predicates."""
    return re.sub(r"[^A-Z]+", "_", predicate.upper()).strip("_")


def is_open_slot(slot: str) -> bool:
    """A slot still to be found: ``?`` or an unresolved placeholder."""
    s = slot.strip()
    return s in ("?", "") or s.startswith("Entity#")


def doc_disease(doc_id: str) -> str | None:
    """The disease a generated document is about (``profile/OMIM:154700`` → ``OMIM:154700``)."""
    m = DOC_DISEASE.match(doc_id)
    return m.group(1) if m else None


@lru_cache(maxsize=32768)
def link_cached(linker: PhraseLinker, text: str) -> LinkedText:
    """Passages recur across hops, steps and questions; link each text once.

    An ask links ~200 passage sentences, many of them again in later asks about related
    diseases, so the cache holds those of the last ~150 asks."""
    return linker.link(text)


def query_words(text: str) -> set[str]:
    """The content words of a sub-query (normalised, stop words and short words left out)."""
    return {t.norm for t in tokenize(text) if t.lower not in STOP and len(t.norm) > 2}


@lru_cache(maxsize=65536)
def text_words(text: str) -> frozenset[str]:
    """The normalised words of a text; cached because every sub-query rescans the same passages.

    Sized for the passages of a few hundred asks: at 4,096 entries an evaluation's 400
    cases found 44 % of the texts cached, at 65,536 66 %; a 1,000-case evaluation then
    answered about 6 % more cases per second."""
    return frozenset(t.norm for t in tokenize(text))


def sentences(text: str) -> list[str]:
    return SENTENCE.split(text.strip())


# Words of a passage sentence stating a mode of inheritance or an age of onset (the synthesis
# quotes one such sentence); an onset sub-query asks with the same words.
STATES_INHERITANCE = re.compile(r"\binherit|\bautosomal|\bx-linked|\bmitochondrial", re.IGNORECASE)
STATES_ONSET = re.compile(r"\bonset\b|\bbegins?\b|\bstarts?\b", re.IGNORECASE)


def intent(sub_query: str) -> str:
    """What a sub-query asks for: distinguish / genes / inheritance / onset / features / diseases."""
    q = sub_query.lower()
    if re.search(r"\b(distinguish|differ|versus|compare)\w*", q):
        return "distinguish"
    if re.search(r"\bgenes?\b", q):
        return "genes"
    if re.search(r"\binherit\w*", q):  # not STATES_INHERITANCE: "mitochondrial myopathy" is a finding
        return "inheritance"
    if STATES_ONSET.search(q):
        return "onset"
    if re.search(r"\b(features?|symptoms?|signs?|characteristic|manifestations?)\b", q):
        return "features"
    return "diseases"
