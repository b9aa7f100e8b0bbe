"""Parse HPO's disease annotations (`phenotype.hpoa`) and gene–disease pairs (`genes_to_phenotype.txt`).

Frequencies come in three notations (an HPO frequency term, ``n/m``, ``x%``); all are
normalised to a number in [0, 1] and a readable label.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

# HPO frequency terms: label and the midpoint of the band HPO defines for them.
FREQUENCY_TERMS: dict[str, tuple[str, float]] = {
    "HP:0040280": ("obligate", 1.0),
    "HP:0040281": ("very frequent", 0.895),
    "HP:0040282": ("frequent", 0.545),
    "HP:0040283": ("occasional", 0.17),
    "HP:0040284": ("very rare", 0.025),
    "HP:0040285": ("excluded", 0.0),
}


def frequency_band(value: float) -> str:
    """The HPO band a number falls in (bands as HPO defines them)."""
    if value >= 0.995:
        return "obligate"
    if value >= 0.8:
        return "very frequent"
    if value >= 0.3:
        return "frequent"
    if value >= 0.05:
        return "occasional"
    if value > 0:
        return "very rare"
    return "excluded"


def parse_frequency(raw: str) -> tuple[float | None, str]:
    """(number in [0, 1] or None when not stated, label). Raises ValueError on an unknown notation."""
    raw = raw.strip()
    if not raw:
        return None, ""
    if raw in FREQUENCY_TERMS:
        label, value = FREQUENCY_TERMS[raw]
        return value, label
    if raw.endswith("%"):
        value = float(raw[:-1]) / 100.0
        return max(0.0, min(1.0, value)), raw
    if "/" in raw:
        num, _, den = raw.partition("/")
        n, m = int(num), int(den)
        if m <= 0:
            raise ValueError(f"frequency {raw!r} has a zero denominator")
        return max(0.0, min(1.0, n / m)), raw
    raise ValueError(f"unknown frequency notation {raw!r}")


def split_references(raw: str) -> list[str]:
    if ";" not in raw:  # the common case: one reference
        raw = raw.strip()
        return [raw] if raw else []
    return [r.strip() for r in raw.split(";") if r.strip()]


@dataclass
class Annotation:
    disease_id: str
    disease_name: str
    hpo_id: str
    negated: bool
    aspect: str  # P phenotype, I inheritance, C onset/course, M modifier, H past history
    references: list[str]
    evidence: str
    onset: str = ""
    frequency: float | None = None
    frequency_label: str = ""
    sex: str = ""
    modifiers: list[str] = field(default_factory=list)
    biocuration: str = ""


@dataclass
class Annotations:
    version: str
    rows: list[Annotation]
    diseases: dict[str, str]  # id -> name
    skipped: int = 0


_HPOA_COLUMNS = (
    "database_id",
    "disease_name",
    "qualifier",
    "hpo_id",
    "reference",
    "evidence",
    "onset",
    "frequency",
    "sex",
    "modifier",
    "aspect",
    "biocuration",
)


def _read_header(fh: TextIO, path: Path) -> tuple[str, list[str]]:
    """(release version, column names), leaving `fh` at the first data row."""
    version = "unknown"
    for line in fh:
        if line.startswith("#"):
            if line.startswith("#version:"):
                version = line.split(":", 1)[1].strip()
            continue
        header = line.rstrip("\n").split("\t")
        missing = [c for c in _HPOA_COLUMNS if c not in header]
        if missing:
            raise ValueError(f"{path.name}: header lacks columns {missing}")
        return version, header
    raise ValueError(f"{path.name}: no header row")


@dataclass
class DiseasePhenotypes:
    """A quick index of `phenotype.hpoa`: every disease's name and positive phenotype ids."""

    version: str
    names: dict[str, str]  # disease id -> name
    phenotypes: dict[str, set[str]]  # disease id -> HPO ids of its aspect-P, non-NOT rows


def scan_hpoa(path: Path) -> DiseasePhenotypes:
    """Disease names and phenotype sets without building an `Annotation` per row: enough to
    choose a subset of diseases before parsing only their rows."""
    names: dict[str, str] = {}
    phenotypes: dict[str, set[str]] = defaultdict(set)
    with path.open(encoding="utf-8") as fh:
        version, header = _read_header(fh, path)
        i_id, i_name, i_qual, i_hpo, i_aspect = (
            header.index(c) for c in ("database_id", "disease_name", "qualifier", "hpo_id", "aspect")
        )
        last = max(i_id, i_name, i_qual, i_hpo, i_aspect)
        for line in fh:
            rec = line.rstrip("\n").split("\t")
            if len(rec) <= last:
                continue
            disease = rec[i_id]
            if disease not in names:
                names[disease] = rec[i_name]
            if rec[i_aspect] == "P" and rec[i_qual] != "NOT":
                phenotypes[disease].add(rec[i_hpo])
    return DiseasePhenotypes(version=version, names=names, phenotypes=dict(phenotypes))


def parse_hpoa(path: Path, diseases: Container[str] | None = None) -> Annotations:
    """Every row of `phenotype.hpoa` (only those of `diseases` when given); rows with an
    unreadable frequency are counted, not kept.

    Lines are split by hand rather than with `csv.DictReader`: the file has no quoting and
    ~270k rows, and this is the slowest step of building a knowledge base.
    """
    rows: list[Annotation] = []
    names: dict[str, str] = {}
    skipped = 0
    # Few distinct frequency strings occur, so parse each once.
    freq_cache: dict[str, tuple[float | None, str] | None] = {}
    with path.open(encoding="utf-8") as fh:
        version, header = _read_header(fh, path)
        (i_id, i_name, i_qual, i_hpo, i_ref, i_ev, i_onset, i_freq, i_sex, i_mod, i_aspect, i_cur) = (
            header.index(c) for c in _HPOA_COLUMNS
        )
        width = len(header)
        for line in fh:
            rec = line.rstrip("\n").split("\t")
            if len(rec) < width:
                if not line.strip():
                    continue
                rec += [""] * (width - len(rec))
            if diseases is not None and rec[i_id] not in diseases:
                continue
            raw_freq = rec[i_freq]
            if raw_freq in freq_cache:
                parsed = freq_cache[raw_freq]
            else:
                try:
                    parsed = parse_frequency(raw_freq)
                except ValueError:
                    parsed = None
                freq_cache[raw_freq] = parsed
            if parsed is None:
                skipped += 1
                continue
            modifier = rec[i_mod]
            ann = Annotation(
                disease_id=rec[i_id],
                disease_name=rec[i_name],
                hpo_id=rec[i_hpo],
                negated=rec[i_qual] == "NOT",
                aspect=rec[i_aspect],
                references=split_references(rec[i_ref]),
                evidence=rec[i_ev],
                onset=rec[i_onset],
                frequency=parsed[0],
                frequency_label=parsed[1],
                sex=rec[i_sex].lower(),
                modifiers=[m for m in modifier.split(";") if m] if modifier else [],
                biocuration=rec[i_cur],
            )
            rows.append(ann)
            if ann.disease_id not in names:
                names[ann.disease_id] = ann.disease_name
    return Annotations(version=version, rows=rows, diseases=names, skipped=skipped)


@dataclass(frozen=True)
class GeneDisease:
    gene_id: str  # NCBIGene:2200
    symbol: str
    disease_id: str


def parse_gene_diseases(path: Path) -> list[GeneDisease]:
    """Distinct gene–disease pairs from `genes_to_phenotype.txt`."""
    pairs: dict[tuple[str, str], GeneDisease] = {}
    with path.open(encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        try:
            i_gene, i_symbol, i_disease = (
                header.index(c) for c in ("ncbi_gene_id", "gene_symbol", "disease_id")
            )
        except ValueError as err:
            raise ValueError(f"{path.name}: unexpected header {header}") from err
        for line in fh:
            rec = line.rstrip("\n").split("\t")
            if len(rec) <= max(i_gene, i_symbol, i_disease):
                continue
            key = (rec[i_gene], rec[i_disease])
            if key not in pairs:
                pairs[key] = GeneDisease(f"NCBIGene:{rec[i_gene]}", rec[i_symbol], rec[i_disease])
    return list(pairs.values())


def genes_by_disease(pairs: list[GeneDisease]) -> dict[str, list[GeneDisease]]:
    out: dict[str, list[GeneDisease]] = defaultdict(list)
    for p in pairs:
        out[p.disease_id].append(p)
    return out
