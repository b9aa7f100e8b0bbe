"""Load GA4GH phenopacket (schema v2) documents into evaluation cases.

Accepts a directory of ``.json`` files, one ``.json`` file, or a ``.jsonl`` file with one
phenopacket per line. Only the fields the evaluation uses are validated; a document that
cannot be used is skipped with a counted reason (``malformed``, ``no_observed_feature``,
``no_diagnosis``) so that one bad line never stops a benchmark.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from meddiag.diagnosis.onset import onset_at, onset_of_class
from meddiag.engine.inputs import pubmed_id
from meddiag.errors import InputError
from meddiag.schema import Onset, Sex

SkipReason = str  # "malformed" | "no_observed_feature" | "no_diagnosis"

# ---------------------------------------------------------------- the fields we read


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _OntologyClass(_Loose):
    id: str
    label: str = ""


class _Age(_Loose):
    iso8601duration: str = ""


class _GestationalAge(_Loose):
    weeks: int = Field(ge=0, le=45)
    days: int = Field(default=0, ge=0, le=6)


class _TimeElement(_Loose):
    age: _Age | None = None
    ontologyClass: _OntologyClass | None = None
    gestationalAge: _GestationalAge | None = None


class _Feature(_Loose):
    type: _OntologyClass
    excluded: bool = False
    onset: _TimeElement | None = None


class _Subject(_Loose):
    id: str = ""
    sex: str = ""
    timeAtLastEncounter: _TimeElement | None = None


class _GeneDescriptor(_Loose):
    symbol: str = ""


class _VariationDescriptor(_Loose):
    geneContext: _GeneDescriptor | None = None


class _VariantInterpretation(_Loose):
    variationDescriptor: _VariationDescriptor | None = None


class _GenomicInterpretation(_Loose):
    gene: _GeneDescriptor | None = None
    variantInterpretation: _VariantInterpretation | None = None


class _Diagnosis(_Loose):
    disease: _OntologyClass | None = None
    genomicInterpretations: list[_GenomicInterpretation] = Field(default_factory=list)


class _Interpretation(_Loose):
    diagnosis: _Diagnosis | None = None


class _Disease(_Loose):
    term: _OntologyClass
    excluded: bool = False
    onset: _TimeElement | None = None


class _ExternalReference(_Loose):
    id: str = ""


class _MetaData(_Loose):
    externalReferences: list[_ExternalReference] = Field(default_factory=list)


class _Phenopacket(_Loose):
    id: str
    subject: _Subject = Field(default_factory=_Subject)
    phenotypicFeatures: list[_Feature] = Field(default_factory=list)
    interpretations: list[_Interpretation] = Field(default_factory=list)
    diseases: list[_Disease] = Field(default_factory=list)
    metaData: _MetaData = Field(default_factory=_MetaData)


# ---------------------------------------------------------------- the case we hand on


class Feature(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    label: str


class Case(BaseModel):
    """One patient as the evaluation needs it; `genes` and `diseases` are never shown to the ranker."""

    id: str
    observed: list[Feature]
    excluded: list[Feature] = Field(default_factory=list)
    age_years: float | None = None
    age_iso: str = ""
    sex: Sex | None = None
    onset: Onset | None = None  # the disease's onset, else its earliest observed feature's
    diseases: list[str]  # gold disease ids (OMIM first when present)
    disease_labels: list[str] = Field(default_factory=list)
    genes: list[str] = Field(default_factory=list)
    pmids: list[str] = Field(default_factory=list)

    @property
    def sources(self) -> frozenset[str]:
        """The publications to leave out while this case is answered."""
        return frozenset(self.pmids)

    @property
    def publication(self) -> str:
        """The publication the case is grouped by (its first PMID in sorted order; its own
        id when it cites none): patients of one paper are not independent samples."""
        return min(self.pmids, default=self.id)


_DURATION = re.compile(
    r"^P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?$"
)


def duration_years(iso: str) -> float | None:
    """Years in an ISO 8601 duration such as P6Y, P1Y6M, P3M, P30D; None when empty or unreadable.

    A time part (``T…``) is ignored: ages in phenopackets are given in days or coarser.
    """
    text = iso.strip().upper().split("T", 1)[0]
    m = _DURATION.match(text)
    if not text or text == "P" or not m or not any(m.groups()):
        return None
    y, mo, w, d = (float(g) if g else 0.0 for g in m.groups())
    return y + mo / 12.0 + w * 7.0 / 365.25 + d / 365.25


def _onset(time: _TimeElement | None) -> Onset | None:
    """An onset from a phenopacket time element: an HPO onset class, an age or a gestational age."""
    if time is None:
        return None
    if time.ontologyClass is not None:
        return onset_of_class(time.ontologyClass.id)
    if time.age is not None and (years := duration_years(time.age.iso8601duration)) is not None:
        return onset_at(years)
    if time.gestationalAge is not None:
        g = time.gestationalAge
        return onset_at((g.weeks * 7 + g.days - 280) / 365.25)
    return None


def _case_onset(pp: _Phenopacket) -> Onset | None:
    """When the illness began: the diagnosed disease's onset, else the earliest onset of an
    observed feature (case reports give one or the other)."""
    for d in pp.diseases:
        if not d.excluded and (found := _onset(d.onset)) is not None:
            return found
    features = [o for f in pp.phenotypicFeatures if not f.excluded if (o := _onset(f.onset)) is not None]
    return min(features, key=lambda o: (o.low_years, o.high_years)) if features else None


_SEX = {"FEMALE": "female", "MALE": "male", "OTHER_SEX": "other", "UNKNOWN_SEX": "unknown"}


def _case(pp: _Phenopacket) -> Case | SkipReason:
    # Keyed by (id, label), in order: comparing models pairwise was quadratic in the
    # number of features, seconds over a whole case file.
    observed: dict[tuple[str, str], Feature] = {}
    excluded: dict[tuple[str, str], Feature] = {}
    for f in pp.phenotypicFeatures:
        target = excluded if f.excluded else observed
        key = (f.type.id, f.type.label or f.type.id)
        if key not in target:  # not setdefault: that would build a model for every repeat
            target[key] = Feature(id=key[0], label=key[1])
    if not observed:
        return "no_observed_feature"
    diseases: list[str] = []
    labels: list[str] = []
    genes: list[str] = []
    for it in pp.interpretations:
        if it.diagnosis is None:
            continue
        if it.diagnosis.disease is not None and it.diagnosis.disease.id not in diseases:
            diseases.append(it.diagnosis.disease.id)
            labels.append(it.diagnosis.disease.label)
        for gi in it.diagnosis.genomicInterpretations:
            gene = gi.gene
            vi = gi.variantInterpretation
            if gene is None and vi is not None and vi.variationDescriptor is not None:
                gene = vi.variationDescriptor.geneContext
            if gene is not None and gene.symbol and gene.symbol not in genes:
                genes.append(gene.symbol)
    if not diseases:
        for d in pp.diseases:
            if not d.excluded and d.term.id not in diseases:
                diseases.append(d.term.id)
                labels.append(d.term.label)
    if not diseases:
        return "no_diagnosis"
    iso = ""
    if pp.subject.timeAtLastEncounter is not None and pp.subject.timeAtLastEncounter.age is not None:
        iso = pp.subject.timeAtLastEncounter.age.iso8601duration
    return Case(
        id=pp.id,
        observed=list(observed.values()),
        excluded=[f for key, f in excluded.items() if key not in observed],
        age_years=duration_years(iso) if iso else None,
        age_iso=iso,
        sex=_SEX.get(pp.subject.sex.upper()) if pp.subject.sex else None,
        onset=_case_onset(pp),
        diseases=diseases,
        disease_labels=labels,
        genes=genes,
        pmids=list(dict.fromkeys(p for r in pp.metaData.externalReferences if (p := pubmed_id(r.id)))),
    )


def parse_phenopacket(data: object) -> Case | SkipReason:
    """A case from one decoded phenopacket, or the reason it cannot be used."""
    try:
        pp = _Phenopacket.model_validate(data)
    except ValidationError:
        return "malformed"
    return _case(pp)


@dataclass
class LoadResult:
    cases: list[Case] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)


def _documents(path: Path) -> Iterator[bytes]:
    """Raw bytes, decoded per document: one line that is not UTF-8 must not stop the whole load."""
    if path.is_dir():
        for p in sorted(path.glob("*.json")):
            yield p.read_bytes()
    elif path.suffix == ".jsonl":
        with path.open("rb") as fh:
            for line in fh:
                if line.strip():
                    yield line
    else:
        yield path.read_bytes()


def load_cases(path: Path | str, *, limit: int | None = None) -> LoadResult:
    """Usable cases from `path` and the count of skipped documents by reason."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"No phenopackets were found at {path}.")
    return cases_from_texts(_documents(path), limit=limit)


def cases_from_texts(texts: Iterable[str | bytes], *, limit: int | None = None) -> LoadResult:
    result = LoadResult()
    for text in texts:
        if limit is not None and len(result.cases) >= limit:
            break
        try:
            data = json.loads(text)
        except ValueError:  # not JSON, or bytes that are not UTF-8 (UnicodeDecodeError)
            result.skipped["malformed"] += 1
            continue
        parsed = parse_phenopacket(data)
        if isinstance(parsed, Case):
            result.cases.append(parsed)
        else:
            result.skipped[parsed] += 1
    return result
