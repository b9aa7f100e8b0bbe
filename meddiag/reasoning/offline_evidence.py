"""What a passage or a triple says about the patient, read against the ontology and the KB.

Shared by the offline reasoner's channel steps and its synthesis so that both decide the
same way which disease a piece of evidence is about and which findings it supports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from meddiag.diagnosis.linking import PhraseLinker
from meddiag.knowledge.hpo import Ontology
from meddiag.reasoning.offline_params import OfflineParams
from meddiag.reasoning.resources import ReasoningResources, name_key
from meddiag.reasoning.text_match import doc_disease, is_disease, link_cached, sentences
from meddiag.schema import Finding, KGTriple, ParsedQuestion, TextEvidence

# A sentence stating that its features do not occur ("Features of X that are absent in the
# patients studied (0%): …", "Features recorded as not occurring in X: …"): its findings are
# evidence against the disease, never for it.
_ABSENCE = re.compile(r"\babsent\b|\bnot occurring\b|\(0%\)", re.IGNORECASE)


# A feature curated without a frequency counts as this share of patients, as in the ranker.
UNSTATED_FREQUENCY = 0.5


def most_frequent_first(t: KGTriple) -> float:
    """Sort key putting the features most patients show first, so a disease's hallmarks lead
    its list; facts without a frequency sit at `UNSTATED_FREQUENCY` (a stable sort keeps
    retrieval order among ties)."""
    return -(UNSTATED_FREQUENCY if t.frequency is None else t.frequency)


def observed(parsed: ParsedQuestion) -> list[Finding]:
    return [f for f in parsed.findings if not f.excluded]


def excluded(parsed: ParsedQuestion) -> list[Finding]:
    return [f for f in parsed.findings if f.excluded]


@lru_cache(maxsize=4096)
def _stated_or_broader(onto: Ontology, terms: frozenset[str]) -> frozenset[str]:
    """The terms and all their ancestors: what a passage stating `terms` states at least broadly.
    Remembered per term set: every finding of a question is credited against each passage."""
    out: set[str] = set()
    for t in terms:
        if t in onto.terms:
            out |= onto.ancestors(t)
    return frozenset(out)


@dataclass(frozen=True)
class PassageReading:
    """What one passage text states, linked sentence by sentence."""

    present: frozenset[str]  # HPO terms stated as present
    absent: frozenset[str]  # HPO terms stated as absent (negated, or in an "absent" sentence)
    disease_ids: tuple[str, ...]  # diseases named, in text order


@lru_cache(maxsize=16384)
def read_passage(linker: PhraseLinker, text: str) -> PassageReading:
    """Read a passage once: passages recur across hops, sub-queries and questions, and each
    step asks the same questions of them (which findings? which diseases?)."""
    present: set[str] = set()
    absent: set[str] = set()
    diseases: dict[str, None] = {}
    for sentence in sentences(text):
        linked = link_cached(linker, sentence)
        denies = bool(_ABSENCE.search(sentence))
        for f in linked.findings:
            (absent if f.excluded or denies else present).add(f.hpo_id)
        diseases.update(dict.fromkeys(linked.disease_ids))
    return PassageReading(frozenset(present), frozenset(absent), tuple(diseases))


class EvidenceReader:
    """Diseases, findings and matches in evidence; read-only, so thread-safe."""

    def __init__(self, resources: ReasoningResources, params: OfflineParams) -> None:
        self.res = resources
        self.params = params
        # A hop tests every retrieved triple against every pattern (~10,000 tests per
        # question) over a few hundred distinct slots and values that recur across questions.
        self.slot_matches = lru_cache(maxsize=65536)(self._slot_matches)

    # ------------------------------------------------------------------ diseases

    def disease_row(self, disease_id: str) -> str | None:
        """The differential row an id counts for, or None for a MONDO class no disease is equivalent to."""
        row = self.res.canonical_disease(disease_id)
        return row if self.res.is_known_disease(row) else None

    def passage_diseases(self, p: TextEvidence) -> list[str]:
        """Every disease a passage is about or names: its document's own disease first."""
        out: list[str] = []
        own = doc_disease(p.doc_id or p.ref_id)
        for did in [*([own] if own else []), *read_passage(self.res.linker, p.text).disease_ids]:
            row = self.disease_row(did)
            if row is not None and row not in out:
                out.append(row)
        return out

    def passage_subjects(self, p: TextEvidence) -> list[str]:
        """The diseases a passage's findings belong to: its document's own disease when it has one.

        A disease profile or MONDO definition may name other diseases ("classical Marfan
        syndrome manifestations" in the neonatal Marfan text); its findings are still only
        its own disease's.
        """
        own = doc_disease(p.doc_id or p.ref_id)
        if own is not None:
            row = self.disease_row(own)
            return [row] if row is not None else []
        return self.passage_diseases(p)

    def entity_id(self, name: str, given: str | None) -> str:
        """A triple slot's id: the id the backend gave, else the first entity printed under that name."""
        if given:
            return given
        ids = self.res.lookup(name)
        return ids[0] if ids else name

    def features_of(self, disease: str) -> list[str]:
        """HPO terms the disease's ranking profile is annotated with (not negated; what its
        name states is no annotation)."""
        p = self.res.index.profile_index.get(self.res.canonical_disease(disease))
        if p is None:
            return []
        idx = self.res.index
        rels = idx.relations_of_profile(p).tolist()
        return [
            idx.terms[int(idx.rel_term[r])] for r in rels if not (idx.rel_negated[r] or idx.rel_from_name[r])
        ]

    # ------------------------------------------------------------------ findings

    def informative(self, findings: Sequence[Finding], n: int) -> list[Finding]:
        """The `n` most specific findings (highest information content), in question order."""
        top = sorted(findings, key=lambda f: -self.res.ic(f.hpo_id))[:n]
        return [f for f in findings if f in top]

    def passage_terms(self, p: TextEvidence) -> frozenset[str]:
        """HPO terms a passage states as present."""
        return read_passage(self.res.linker, p.text).present

    def passage_findings(self, p: TextEvidence) -> tuple[frozenset[str], frozenset[str]]:
        """(terms stated present, terms stated absent), sentence by sentence."""
        reading = read_passage(self.res.linker, p.text)
        return reading.present, reading.absent

    def credit(self, finding: str, terms: Iterable[str]) -> float:
        """IC of the best match of a patient finding among a passage's terms (0 when unrelated).

        Scores partial matches too (a broader term earns its own, lower, IC); whether a match
        is strong enough to name as support is `supports`.
        """
        onto = self.res.ontology
        if finding not in onto.terms:
            return 0.0
        stated = frozenset(terms)  # a passage reading's frozenset is passed through as is
        if finding in _stated_or_broader(onto, stated):
            return self.res.ic(finding)
        return max((self.res.ic(t) for t in stated & onto.ancestors(finding)), default=0.0)

    def supports(self, finding: str, terms: Iterable[str]) -> bool:
        """The terms state the finding, a more specific form of it, or a broader one still nearly as specific."""
        full = self.res.ic(finding)
        return full > 0 and self.credit(finding, terms) >= self.params.support_ic_share * full

    def _slot_matches(self, slot: str, value_id: str, value_name: str) -> bool:
        """Does a pattern slot (``?``, an id, a name, a placeholder) accept a triple's value?"""
        s = slot.strip()
        if s in ("?", "") or s.startswith("Entity#"):
            return True
        if s == value_id or name_key(s) == name_key(value_name):
            return True
        if is_disease(s) and is_disease(value_id):
            return self.res.canonical_disease(s) == self.res.canonical_disease(value_id)
        onto = self.res.ontology
        if s.startswith("HP:") and value_id.startswith("HP:") and s in onto.terms and value_id in onto.terms:
            if s in onto.ancestors(value_id):  # the fact names a more specific feature
                return True
            # a more general feature counts only while it stays informative
            return value_id in onto.ancestors(s) and self.res.ic(
                value_id
            ) >= self.params.support_ic_share * self.res.ic(s)
        return False
