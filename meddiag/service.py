"""The one object the UI and the CLI talk to.

It owns the process's knowledge-base handle and engine (opened lazily, once), and turns
the product's parts into calls a page can make without knowing about stores or backends.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, SecretStr

from meddiag.config import Settings, get_settings
from meddiag.errors import InputError, KnowledgeBaseMissing, MedDiagError
from meddiag.knowledge.model import Entity, Relation
from meddiag.schema import BACKENDS, AskResult, Channels, NodeEvent, ParsedContext, PatientInput, RawContext

if TYPE_CHECKING:
    from meddiag.engine.api import Engine
    from meddiag.eval.runner import EvalReport, InputForm
    from meddiag.knowledge.handle import KnowledgeBaseHandle
    from meddiag.knowledge.manifest import Manifest

ATTRIBUTION = (
    "This product uses the Human Phenotype Ontology (HPO, https://hpo.jax.org), "
    "and the Mondo Disease Ontology (MONDO, CC BY 4.0). "
    "Research and education tool — not for clinical decisions."
)

Progress = Callable[[str, float], None]


class KBStatus(BaseModel):
    built: bool
    profile: str
    home: str
    manifest: dict[str, Any] | None = None
    hpo_version: str = ""
    attribution: str = ATTRIBUTION
    problem: str | None = None


class Health(BaseModel):
    ok: bool
    message: str


class UploadResult(BaseModel):
    name: str
    ok: bool
    message: str
    chunks: int = 0


class MedDiagService:
    """Facade over knowledge base, engine, evaluation and health checks; one per process."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or get_settings()
        self._lock = threading.RLock()
        self._kb: KnowledgeBaseHandle | None = None
        self._engines: dict[str, Engine] = {}

    # ------------------------------------------------------------------ knowledge base

    def status(self) -> KBStatus:
        from meddiag.knowledge.manifest import read_manifest
        from meddiag.knowledge.sources import packaged_sources

        base = KBStatus(built=False, profile=self.settings.profile, home=str(self.settings.home))
        try:
            base.hpo_version = packaged_sources().hpo_version
            manifest = read_manifest(self.settings.kb_dir)
        except MedDiagError as err:
            base.problem = str(err)
            return base
        if manifest is None:
            return base
        base.built = True
        base.manifest = manifest.model_dump(mode="json")
        return base

    def build(
        self, profile: str | None = None, force: bool = False, progress: Progress | None = None
    ) -> Manifest:
        from meddiag.knowledge.build import build_knowledge_base

        with self._lock:
            self._close()
            settings = self.settings.model_copy(update={"profile": profile}) if profile else self.settings
            manifest = build_knowledge_base(settings, force=force, progress=progress)
            self.settings = settings
            return manifest

    def kb(self) -> KnowledgeBaseHandle:
        from meddiag.knowledge.handle import open_knowledge_base

        with self._lock:
            if self._kb is None:
                self._kb = open_knowledge_base(self.settings)
            return self._kb

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        self._engines.clear()
        if self._kb is not None:
            self._kb.close()
            self._kb = None

    # ------------------------------------------------------------------ questions

    def engine(self, backend: str | None = None) -> Engine:
        from meddiag.engine.api import create_engine

        name = backend or self.settings.backend
        if name not in BACKENDS:
            raise InputError(f"Unknown backend {name!r}; choose one of {', '.join(BACKENDS)}.")
        with self._lock:
            if name not in self._engines:
                if self._engines:
                    self._engines[name] = next(iter(self._engines.values())).with_backend(name)
                else:
                    self._engines[name] = create_engine(self.settings, backend=name, kb=self.kb())
            return self._engines[name]

    def ask(
        self,
        question: str | None = None,
        *,
        patient: PatientInput | None = None,
        backend: str | None = None,
        channels: Channels = "both",
        max_hops: int | None = None,
        exclude_sources: frozenset[str] = frozenset(),
        on_event: Callable[[NodeEvent], None] | None = None,
    ) -> AskResult:
        if not (question and question.strip()) and patient is None:
            raise InputError("Please type a question or fill in the patient form.")
        return self.engine(backend).ask(
            question,
            patient=patient,
            channels=channels,
            max_hops=self.settings.max_hops if max_hops is None else max_hops,
            exclude_sources=exclude_sources,
            on_event=on_event,
        )

    def retrieve(self, query: str, backend: str) -> tuple[RawContext, ParsedContext]:
        from meddiag.backends.registry import get_backend
        from meddiag.context_filter import filter_context

        if not query.strip():
            raise InputError("Please type a question.")
        raw = get_backend(backend, self.kb()).retrieve(query)
        return raw, filter_context(raw)

    # ------------------------------------------------------------------ knowledge graph

    def search_terms(self, text: str, limit: int = 20) -> list[tuple[str, str]]:
        """HPO phenotype terms whose label or synonym contains the text (for the patient form)."""
        return [(e.id, e.name) for e in self.search_entities(text, types=["Phenotype"], limit=limit)]

    def search_entities(self, text: str, types: Sequence[str] | None = None, limit: int = 20) -> list[Entity]:
        text = text.strip()
        if not text:
            return []
        graph = self.kb().graph
        exact = graph.get(text)
        found = graph.search_names(text, types=types, limit=limit)
        if exact is not None and (not types or exact.type in types):
            found = [exact, *[e for e in found if e.id != exact.id]][:limit]
        return found

    def neighbourhood(
        self, entity_id: str, depth: int = 1, max_nodes: int = 50, types: Sequence[str] | None = None
    ) -> tuple[list[Entity], list[Relation]]:
        graph = self.kb().graph
        if graph.get(entity_id) is None:
            raise InputError(f"{entity_id} is not in the knowledge base.")
        return graph.neighbourhood(entity_id, depth=depth, max_nodes=max_nodes, types=types)

    def add_documents(self, files: list[tuple[str, bytes]]) -> list[UploadResult]:
        from meddiag.knowledge.ingest import add_user_documents

        with self._lock:
            return [UploadResult(**r) for r in add_user_documents(self.kb(), files)]

    # ------------------------------------------------------------------ health checks

    def check_milvus(self, uri: str) -> Health:
        from meddiag.stores.health import check_milvus

        return Health(**check_milvus(uri.strip(), lite_path=self.settings.milvus_lite_path))

    def check_neo4j(self, uri: str, user: str, password: str) -> Health:
        from meddiag.stores.health import check_neo4j

        return Health(**check_neo4j(uri.strip(), user, password, self.settings.neo4j_database))

    def check_llm(self, base_url: str, model: str, api_key: str = "") -> Health:
        from meddiag.reasoning.llm import check_endpoint

        settings = self.settings.model_copy(
            update={"llm_base_url": base_url, "llm_model": model, "llm_api_key": SecretStr(api_key)}
        )
        ok, message = check_endpoint(settings)
        return Health(ok=ok, message=message)

    # ------------------------------------------------------------------ evaluation

    def evaluate(
        self,
        path: str | Path,
        *,
        limit: int | None = None,
        seed: int = 0,
        protocol: str = "leave-publication-out",
        backend: str | None = None,
        channels: Channels = "both",
        baseline: bool = False,
        progress: Progress | None = None,
        out_dir: Path | None = None,
        workers: int = 2,
        genes: bool = False,
        input_form: InputForm = "text",
    ) -> EvalReport:
        from meddiag.eval.runner import EvalOptions, run_evaluation

        options = EvalOptions(
            path=Path(path),
            limit=limit,
            seed=seed,
            protocol=protocol,
            backend=backend or self.settings.backend,
            channels=channels,
            baseline=baseline,
            out_dir=out_dir,
            workers=workers,
            genes=genes,
            input=input_form,
        )
        if not options.path.exists():
            raise InputError(f"No phenopacket file or folder at {options.path}.")
        if limit is not None and limit < 1:
            raise InputError(f"The sample size must be at least 1 case, not {limit}.")
        return run_evaluation(self.engine(options.backend), options, progress=progress)


def ensure_built(service: MedDiagService) -> bool:
    """Whether a knowledge base exists (the UI offers to build one when not)."""
    try:
        return service.status().built
    except KnowledgeBaseMissing:
        return False
