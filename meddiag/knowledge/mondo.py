"""Parse MONDO from cellxgene-ontology-guide's zstd JSON and link it to HPO's disease ids.

The packaged MONDO carries no cross-references, so the link to OMIM/ORPHA/DECIPHER ids is
made by exact label match: a MONDO label or exact synonym equal (case- and
punctuation-insensitive) to an HPO disease name. Labels shared by several MONDO classes
are not used, so a link is never ambiguous.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import zstandard


@dataclass
class MondoTerm:
    id: str
    label: str
    description: str = ""
    synonyms: list[str] = field(default_factory=list)
    parents: list[str] = field(default_factory=list)  # direct parents (distance 1)
    ancestors: dict[str, int] = field(default_factory=dict)  # every ancestor -> distance


def parse_mondo(path: Path) -> dict[str, MondoTerm]:
    """Current (non-deprecated) MONDO classes."""
    with path.open("rb") as fh:
        data = json.loads(zstandard.ZstdDecompressor().stream_reader(fh).read())
    terms: dict[str, MondoTerm] = {}
    for mid, rec in data.items():
        if rec.get("deprecated"):
            continue
        ancestors = dict(rec.get("ancestors") or {})
        parents = [a for a, dist in ancestors.items() if dist == 1]
        terms[mid] = MondoTerm(
            id=mid,
            label=rec.get("label", mid),
            description=rec.get("description") or "",
            synonyms=list(rec.get("synonyms") or []),
            parents=parents,
            ancestors=ancestors,
        )
    return terms


_NON_WORD = re.compile(r"[^a-z0-9]+")


def normalise_label(text: str) -> str:
    return _NON_WORD.sub(" ", text.lower()).strip()


@dataclass
class MondoLinks:
    """disease id (OMIM/ORPHA/DECIPHER) -> MONDO id, with how each link was made."""

    by_disease: dict[str, str]
    by_label: int
    by_synonym: int
    synonym_matched: set[str] = field(default_factory=set)  # disease ids linked through a synonym


def link_mondo(mondo: dict[str, MondoTerm], disease_names: dict[str, str]) -> MondoLinks:
    by_label: dict[str, set[str]] = defaultdict(set)
    by_synonym: dict[str, set[str]] = defaultdict(set)
    for term in mondo.values():
        by_label[normalise_label(term.label)].add(term.id)
        for syn in term.synonyms:
            by_synonym[normalise_label(syn)].add(term.id)
    links: dict[str, str] = {}
    n_label = n_syn = 0
    synonym_matched: set[str] = set()
    for disease_id, name in disease_names.items():
        key = normalise_label(name)
        hits = by_label.get(key, set())
        if len(hits) == 1:
            links[disease_id] = next(iter(hits))
            n_label += 1
            continue
        hits = by_synonym.get(key, set())
        if len(hits) == 1:
            links[disease_id] = next(iter(hits))
            n_syn += 1
            synonym_matched.add(disease_id)
    return MondoLinks(by_disease=links, by_label=n_label, by_synonym=n_syn, synonym_matched=synonym_matched)
