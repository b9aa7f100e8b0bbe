"""Parse HPO's disease annotations (`phenotype.hpoa`) and gene–disease pairs (`genes_to_phenotype.txt`).

Frequencies come in three notations (an HPO frequency term, ``n/m``, ``x%``); all are
normalised to a number in [0, 1] and a readable label.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

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


def parse_hpoa(path: Path) -> Annotations:
    """Every row of `phenotype.hpoa`; rows with an unreadable frequency are counted, not kept."""
    version = "unknown"
    rows: list[Annotation] = []
    diseases: dict[str, str] = {}
    skipped = 0
    with path.open(encoding="utf-8") as fh:
        header: list[str] | None = None
        for line in fh:
            if line.startswith("#"):
                if line.startswith("#version:"):
                    version = line.split(":", 1)[1].strip()
                continue
            header = line.rstrip("\n").split("\t")
            break
        if header is None:
            raise ValueError(f"{path.name}: no header row")
        for rec in csv.DictReader(fh, fieldnames=header, delimiter="\t", quoting=csv.QUOTE_NONE):
            try:
                freq, freq_label = parse_frequency(rec["frequency"] or "")
            except ValueError:
                skipped += 1
                continue
            ann = Annotation(
                disease_id=rec["database_id"],
                disease_name=rec["disease_name"],
                hpo_id=rec["hpo_id"],
                negated=rec["qualifier"] == "NOT",
                aspect=rec["aspect"],
                references=split_references(rec["reference"] or ""),
                evidence=rec["evidence"] or "",
                onset=rec["onset"] or "",
                frequency=freq,
                frequency_label=freq_label,
                sex=(rec["sex"] or "").lower(),
                modifiers=[m for m in (rec["modifier"] or "").split(";") if m],
                biocuration=rec["biocuration"] or "",
            )
            rows.append(ann)
            diseases.setdefault(ann.disease_id, ann.disease_name)
    return Annotations(version=version, rows=rows, diseases=diseases, skipped=skipped)


@dataclass(frozen=True)
class GeneDisease:
    gene_id: str  # NCBIGene:2200
    symbol: str
    disease_id: str


def parse_gene_diseases(path: Path) -> list[GeneDisease]:
    """Distinct gene–disease pairs from `genes_to_phenotype.txt`."""
    pairs: dict[tuple[str, str], GeneDisease] = {}
    with path.open(encoding="utf-8") as fh:
        for rec in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            key = (rec["ncbi_gene_id"], rec["disease_id"])
            if key not in pairs:
                pairs[key] = GeneDisease(f"NCBIGene:{rec['ncbi_gene_id']}", rec["gene_symbol"], rec["disease_id"])
    return list(pairs.values())


def genes_by_disease(pairs: list[GeneDisease]) -> dict[str, list[GeneDisease]]:
    out: dict[str, list[GeneDisease]] = defaultdict(list)
    for p in pairs:
        out[p.disease_id].append(p)
    return out
