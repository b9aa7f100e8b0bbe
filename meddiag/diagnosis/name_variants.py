"""Other ways of writing an HPO name, for the phrase index of `linking.PhraseLinker`.

HPO names are curated for sorting and precision; clinicians, and newer HPO releases than the
one packaged, write the same finding in prose order and plainer words. Each function here
returns the extra wordings of one name; the linker indexes a wording only when no curated
name already uses it and only one term produces it, so a variant never displaces or blurs a
curated name.
"""

from __future__ import annotations

import re
from itertools import product

# The qualifier after the comma of an inverted name: a word or two, letters only.
_INVERTED = re.compile(r"^([^,()]+), ([A-Za-z-]+(?: [A-Za-z-]+)?)$")

# "Low blood neutrophil count", "Decreased B cell count", "High blood eosinophil count".
_COUNT = re.compile(
    r"^(abnormal|low|decreased|reduced|high|increased|elevated) (?:(?:blood|total|circulating) )?"
    r"([a-z0-9 -]+?) (count|number)$",
    re.IGNORECASE,
)
# "Decreased proportion of CD4-positive T cells", "Abnormal proportion of gamma-delta T cells".
_PROPORTION = re.compile(
    r"^(abnormal|low|decreased|reduced|high|increased|elevated) proportion of ([A-Za-z0-9 +-]+)$",
    re.IGNORECASE,
)
# "Decreased circulating antibody concentration": newer HPO labels say "immunoglobulin".
_CIRCULATING_ANTIBODY = re.compile(r"\bcirculating antibody\b", re.IGNORECASE)
# "Proximal muscle weakness in upper limbs": a finding, then where it is (a few words each).
_WHERE = re.compile(r"^([A-Za-z-]+)((?: [A-Za-z-]+){0,3}) in ((?:the )?[A-Za-z-]+(?: [A-Za-z-]+)?)$")
_LOWER = ("decreased", "reduced", "low")
_HIGHER = ("increased", "elevated", "high")


def _direction_words(direction: str) -> tuple[str, ...]:
    """A direction word and its synonyms; "abnormal" has none."""
    d = direction.lower()
    return _LOWER if d in _LOWER else _HIGHER if d in _HIGHER else (d,)


def uninverted(name: str) -> str | None:
    """The prose order of an inverted name, or None when the name is not inverted.

    HPO writes many names head first ("Intellectual disability, severe", "Hypotonia,
    generalized"), while clinicians — and newer HPO labels — write "severe intellectual
    disability"; without this the scan takes the head alone and drops the qualifier. Only a
    one- or two-word qualifier after a single comma is moved: longer tails are lists or
    explanations, not qualifiers.
    """
    m = _INVERTED.match(name.strip())
    return f"{m.group(2)} {m.group(1)}" if m else None


def count_variants(name: str) -> list[str]:
    """Other wordings of a blood-count name: "Low neutrophil count" is also written "decreased
    neutrophil count" or, as newer HPO labels have it, "decreased total neutrophil count".

    The direction word takes each of its synonyms ("abnormal" stays itself), "count" and "number" stand for each other,
    and "total" may stand before the cell type; "blood" and "circulating" are dropped.
    """
    m = _COUNT.match(name.strip())
    if not m:
        return []
    direction, cell, _ = m.groups()
    words = _direction_words(direction)
    return [
        f"{d} {total}{cell} {unit}" for d, total, unit in product(words, ("", "total "), ("count", "number"))
    ]


def located_variants(name: str) -> list[str]:
    """The site before the finding: "Proximal muscle weakness in upper limbs" is written
    "proximal upper limb muscle weakness" by clinicians and newer HPO labels, "Pain in the
    chest" "chest pain". Both orders are returned — the site first, and the site after the
    finding's first word (often its qualifier); plurals fold in the index ("limbs")."""
    m = _WHERE.match(name.strip())
    if not m:
        return []
    first, rest, site = m.group(1), m.group(2).strip(), m.group(3).removeprefix("the ")
    finding = f"{first} {rest}".strip()
    out = [f"{site} {finding}"]
    if rest:
        out.append(f"{first} {site} {rest}")
    return out


def proportion_variants(name: str) -> list[str]:
    """The cell type before "proportion": "Decreased proportion of CD4-positive T cells" is
    written "decreased CD4+ T cell proportion" by newer HPO labels and flow-cytometry reports.

    The direction word takes each of its synonyms ("abnormal" stays itself); a marker's
    "-positive" is dropped, as the "+" that replaces it is not a word; plurals fold in the index.
    """
    m = _PROPORTION.match(name.strip())
    if not m:
        return []
    direction, cells = m.groups()
    words = _direction_words(direction)
    kinds = dict.fromkeys((cells, re.sub(r"-positive\b", "", cells, flags=re.IGNORECASE)))
    return [f"{w} {c} proportion" for w, c in product(words, kinds)]


def immunoglobulin_variants(name: str) -> list[str]:
    """ "Immunoglobulin" for "antibody" in a blood level: "Decreased circulating antibody
    concentration" is written "decreased circulating immunoglobulin concentration" by newer
    HPO labels and laboratory reports (a specific antibody, "anti-PR3 antibody", keeps its word)."""
    variant = _CIRCULATING_ANTIBODY.sub("circulating immunoglobulin", name)
    return [variant] if variant != name else []
