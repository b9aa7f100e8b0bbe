"""Hyperedges: n-ary facts for HyperGraphRAG, each one sentence linking a disease to several entities.

Per disease: one hyperedge per frequency band of its features ("Marfan syndrome very
frequently presents with arachnodactyly, ectopia lentis and tall stature."), one for the
features recorded as absent, and one joining inheritance, onset and genes. A band with
more than `MAX_MEMBERS` features is split into several hyperedges so each stays a
readable sentence. `sources` is the union of the member facts' sources.

Hyperedges are rendered from `DiseaseFacts` like profiles, so `disease_hyperedges(...,
exclude_sources)` gives the same ids with the facts resting only on excluded sources left
out, as well as those whose frequency (their band) drew on one, and none for a group with
nothing left.
"""

from __future__ import annotations

from meddiag.knowledge.documents import BAND_ORDER, band_of
from meddiag.knowledge.model import Hyperedge, Relation, keeps_frequency, visible
from meddiag.knowledge.relations import DiseaseFacts

MAX_MEMBERS = 20

_BAND_VERBS: dict[str, str] = {
    "obligate": "always presents with",
    "very frequent": "very frequently presents with",
    "frequent": "frequently presents with",
    "occasional": "occasionally presents with",
    "very rare": "very rarely presents with",
    "excluded": "was reported without",
    "": "presents with",
}


def _join(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + f" and {items[-1]}"


def _slug(text: str) -> str:
    return text.replace(" ", "-") or "unspecified"


def _hyperedge(
    he_id: str, text: str, disease_id: str, rels: list[Relation], exclude: frozenset[str]
) -> Hyperedge:
    members = [disease_id, *(r.object for r in rels)]
    sources = [s for r in rels for s in r.sources if s not in exclude]
    return Hyperedge(
        id=he_id, text=text, members=list(dict.fromkeys(members)), sources=list(dict.fromkeys(sources))
    )


def disease_hyperedges(facts: DiseaseFacts, exclude_sources: frozenset[str] = frozenset()) -> list[Hyperedge]:
    """The hyperedges of one disease; ids are stable whatever is excluded."""
    did, name = facts.disease_id, facts.name
    bands: dict[str, list[Relation]] = {}
    absent: list[Relation] = []
    course: list[Relation] = []
    for rel in facts.relations:
        if rel.subject != did:
            continue
        if rel.predicate == "HAS_PHENOTYPE":
            bands.setdefault(band_of(rel), []).append(rel)
        elif rel.predicate == "NOT_HAS_PHENOTYPE":
            absent.append(rel)
        elif rel.predicate in ("HAS_INHERITANCE", "HAS_ONSET", "ASSOCIATED_GENE"):
            course.append(rel)

    out: list[Hyperedge] = []
    groups: list[tuple[str, str, list[Relation]]] = [
        (_slug(band), _BAND_VERBS[band], bands[band]) for band in BAND_ORDER if band in bands
    ]
    if absent:
        groups.append(("absent", "is typically not associated with", absent))
    for slug, verb, rels in groups:
        rels.sort(key=lambda r: (-(r.frequency or 0.0), facts.label(r.object).lower(), r.object))
        for part, start in enumerate(range(0, len(rels), MAX_MEMBERS)):
            # a band's verb states a frequency, which a left-out source may have been pooled into
            kept = [
                r
                for r in rels[start : start + MAX_MEMBERS]
                if visible(r.sources, exclude_sources) and keeps_frequency(r, exclude_sources)
            ]
            if kept:
                text = f"{name} {verb} {_join([facts.label(r.object) for r in kept])}."
                out.append(_hyperedge(f"he/{did}/{slug}/{part}", text, did, kept, exclude_sources))

    order = {"HAS_INHERITANCE": 0, "HAS_ONSET": 1, "ASSOCIATED_GENE": 2}
    course.sort(key=lambda r: (order[r.predicate], facts.label(r.object).lower(), r.object))
    kept = [r for r in course if visible(r.sources, exclude_sources)]
    if kept:
        out.append(_hyperedge(f"he/{did}/course/0", _course_text(facts, kept), did, kept, exclude_sources))
    return out


def _course_text(facts: DiseaseFacts, rels: list[Relation]) -> str:
    def labels(predicate: str) -> list[str]:
        names = sorted(facts.label(r.object) for r in rels if r.predicate == predicate)
        return [n[:1].lower() + n[1:] if predicate != "ASSOCIATED_GENE" else n for n in names]

    clauses = []
    if inheritance := labels("HAS_INHERITANCE"):
        clauses.append(f"follows {_join(inheritance)}")
    if onset := labels("HAS_ONSET"):
        clauses.append(f"has {_join(onset)}")
    if genes := labels("ASSOCIATED_GENE"):
        clauses.append(f"is associated with the gene{'s' if len(genes) > 1 else ''} {_join(genes)}")
    return f"{facts.name} {_join(clauses)}."
