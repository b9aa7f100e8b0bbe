"""Session-state keys and per-session defaults, named once so pages never spell raw strings."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError

from meddiag.config import LlmUrl, MilvusUri, Neo4jUri, Settings, error_reason
from meddiag.errors import InputError
from meddiag.schema import BackendName, Channels

ASK_RESULT = "ask.result"
ASK_QUESTION = "ask.question"
ASK_OBSERVED = "ask.observed"
ASK_EXCLUDED = "ask.excluded"
ASK_HIDDEN_SOURCES = "ask.hidden_sources"  # sources left out while answering
ASK_TERM_OPTIONS = "ask.term_options"
ASK_FROM_LINK = "ask.from_link"
EXPLORER_ENTITY = "explorer.entity"
COMPARE_RESULTS = "compare.results"
EVAL_REPORT = "eval.report"
SESSION_DEFAULTS = "settings.defaults"


_FIELD_LABELS = {"llm_base_url": "Endpoint base URL", "milvus_uri": "Milvus URI", "neo4j_uri": "Neo4j URI"}


class SessionDefaults(BaseModel):
    """What the Settings page saves for this browser session.

    Engine defaults (backend, channels, hops) feed the Ask page's widgets; connection
    fields become `Settings` overrides for the session's service.
    """

    backend: BackendName = "lightrag"
    channels: Channels = "both"
    max_hops: int = Field(default=4, ge=1, le=8)
    reasoner: str = "offline"  # "offline" or "llm"
    llm_base_url: LlmUrl = ""
    llm_model: str = ""
    llm_api_key: str = ""
    milvus_uri: MilvusUri = ""
    neo4j_uri: Neo4jUri = ""
    neo4j_user: str = "neo4j"
    neo4j_password: str = ""

    @classmethod
    def from_form(cls, **values: Any) -> SessionDefaults:
        """What the Settings page saves; `InputError` naming each field it cannot use, so an
        unusable address is refused there rather than breaking every page of the session."""
        try:
            return cls(**values)
        except ValidationError as err:
            problems = [
                f"{_FIELD_LABELS.get(str(e['loc'][0]), str(e['loc'][0]))}: {error_reason(e)}"
                for e in err.errors(include_url=False)
            ]
            raise InputError("Not saved. " + "; ".join(problems) + ".") from err

    @classmethod
    def from_settings(cls, settings: Settings) -> SessionDefaults:
        return cls(
            backend=settings.backend,
            max_hops=min(max(settings.max_hops, 1), 8),
            reasoner="llm" if settings.uses_llm else "offline",
            llm_base_url=settings.llm_base_url,
            llm_model=settings.llm_model,
            llm_api_key=settings.llm_api_key.get_secret_value(),
            milvus_uri=settings.milvus_uri,
            neo4j_uri=settings.neo4j_uri,
            neo4j_user=settings.neo4j_user,
            neo4j_password=settings.neo4j_password.get_secret_value(),
        )

    def settings_overrides(self) -> dict[str, Any]:
        """The fields that change how the service connects, as `Settings` keyword overrides."""
        llm = self.reasoner == "llm"
        return {
            "milvus_uri": self.milvus_uri,
            "neo4j_uri": self.neo4j_uri,
            "neo4j_user": self.neo4j_user,
            "neo4j_password": self.neo4j_password,
            "llm_base_url": self.llm_base_url if llm else "",
            "llm_model": self.llm_model if llm else "",
            "llm_api_key": self.llm_api_key if llm else "",
        }
