"""A stand-in for `MedDiagService` that answers from the hand-made case.

Used by page tests that must not depend on a built knowledge base (error paths, the
first-start build prompt); the happy paths run on the real service (see conftest.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from meddiag.config import Settings
from meddiag.errors import InputError
from meddiag.eval.runner import CaseRecord, EvalReport
from meddiag.knowledge.model import Entity, Relation
from meddiag.schema import AskResult, NodeEvent, PatientInput
from meddiag.service import Health, KBStatus

from .sample_case import sample_result


class FakeService:
    def __init__(self, settings: Settings | None = None, *, built: bool = True) -> None:
        self.settings = settings or Settings()
        self.built = built
        self.asked: list[dict] = []
        self.builds: list[str | None] = []
        self.evaluated: list[dict] = []

    def status(self) -> KBStatus:
        manifest = {
            "profile": "demo",
            "sources": {"hpo": "2025-05-06"},
            "counts": {"documents": 3},
            "embedder": {"name": "lsa-192", "dim": 192},
        }
        return KBStatus(
            built=self.built,
            profile="demo",
            home=str(self.settings.home),
            hpo_version="2025-05-06",
            manifest=manifest if self.built else None,
        )

    def build(
        self,
        profile: str | None = None,
        force: bool = False,
        progress: Callable[[str, float], None] | None = None,
    ):
        for stage, fraction in (("assemble", 0.2), ("embed", 0.7)):
            if progress:
                progress(stage, fraction)
        self.built = True
        self.builds.append(profile)
        return type("Manifest", (), {"profile": profile or "demo"})()

    def ask(
        self,
        question: str | None = None,
        *,
        patient: PatientInput | None = None,
        backend: str | None = None,
        channels: str = "both",
        max_hops: int | None = None,
        exclude_sources: frozenset[str] = frozenset(),
        on_event: Callable[[NodeEvent], None] | None = None,
    ) -> AskResult:
        if not (question and question.strip()) and patient is None:
            raise InputError("Please type a question or fill in the patient form.")
        self.asked.append(
            {
                "question": question,
                "patient": patient,
                "backend": backend,
                "channels": channels,
                "max_hops": max_hops,
                "exclude_sources": exclude_sources,
            }
        )
        result = sample_result()
        for event in result.events:
            if on_event:
                on_event(event)
        return result.model_copy(
            update={"backend": backend or "lightrag", "excluded_sources": sorted(exclude_sources)}
        )

    def search_terms(self, text: str, limit: int = 20) -> list[tuple[str, str]]:
        terms = [("HP:0001166", "Arachnodactyly"), ("HP:0001083", "Ectopia lentis")]
        return [t for t in terms if text.lower() in t[1].lower() or text.lower() in "long fingers"]

    def search_entities(self, text, types=None, limit=20) -> list[Entity]:
        return (
            [Entity(id="OMIM:154700", type="Disease", name="Marfan syndrome")]
            if "marfan" in text.lower()
            else []
        )

    def neighbourhood(self, entity_id, depth=1, max_nodes=50, types=None):
        entities = [
            Entity(id="OMIM:154700", type="Disease", name="Marfan syndrome"),
            Entity(id="HP:0001166", type="Phenotype", name="Arachnodactyly"),
        ]
        return entities, [Relation(subject="OMIM:154700", predicate="HAS_PHENOTYPE", object="HP:0001166")]

    def check_llm(self, base_url: str, model: str, api_key: str = "") -> Health:
        return Health(ok=False, message=f"Cannot reach {base_url}.")

    def check_milvus(self, uri: str) -> Health:
        return Health(ok=True, message="Milvus Lite file is readable.")

    def check_neo4j(self, uri: str, user: str, password: str) -> Health:
        return Health(ok=False, message="Neo4j is not reachable.")

    def evaluate(
        self,
        path,
        *,
        limit=None,
        seed=0,
        protocol="leave-publication-out",
        backend=None,
        channels="both",
        baseline=False,
        progress=None,
        out_dir=None,
        genes=False,
        input_form="text",
    ) -> EvalReport:
        if not Path(path).exists():
            raise InputError(f"No phenopacket file or folder at {path}.")
        self.evaluated.append(
            {
                "path": str(path),
                "limit": limit,
                "backend": backend,
                "channels": channels,
                "input_form": input_form,
                "genes": genes,
            }
        )
        if progress:
            progress("case 1/2", 0.5)
            progress("case 2/2", 1.0)
        records = [
            CaseRecord(
                case_id="PMID_1_Marfan",
                gold=["OMIM:154700"],
                gold_labels=["Marfan syndrome"],
                in_kb=True,
                question="q1",
                rank=1,
                top10=["OMIM:154700", "OMIM:236200"],
                seconds=0.4,
                gold_facts=8,
                gold_facts_own=2,
                gold_facts_thinned=4,
                result=sample_result(),
            ),
            CaseRecord(
                case_id="PMID_2_Other",
                gold=["OMIM:999999"],
                in_kb=False,
                question="q2",
                rank=None,
                top10=["OMIM:154700"],
                seconds=0.6,
            ),
        ]
        summary = {
            "protocol": protocol,
            "n": 2,
            "top1": 0.5,
            "backend": backend,
            "channels": channels,
            "input": input_form,
            "genes": genes,
        }
        return EvalReport(
            summary=summary, records=records, markdown="| run | top-1 |\n|---|---|\n| engine | 50% |"
        )

    def close(self) -> None:
        pass
