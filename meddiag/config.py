"""One settings object, read from `MEDDIAG_*` environment variables (and an optional `.env`).

Defaults run offline: Milvus Lite file, local graph directory, offline reasoner.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, SecretStr, ValidationError
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, SettingsConfigDict

from meddiag.errors import SettingsError
from meddiag.schema import BackendName

# 192 dimensions: the same top-1 and top-10 as 256 on the development sample and the same
# retrieval recall, while Milvus Lite's exhaustive searches, whose cost grows with the
# dimension, get cheaper (4.40 vs 3.72 cases/s; README, Evaluation).
DEFAULT_EMBEDDER = "lsa-192"


@dataclass(frozen=True)
class AddressRule:
    """A connection address is empty or starts with one of `schemes`: anything else would be
    silently ignored, or fail later with a less helpful message."""

    schemes: tuple[str, ...]
    example: str
    empty: str  # what an empty address means

    def problem(self, value: str) -> str | None:
        """What is wrong with `value`, as a clause; None when it is usable."""
        value = value.strip()
        if value and not value.startswith(self.schemes):
            return f"write it as {self.example}, or leave it empty for {self.empty}"
        return None

    def validator(self) -> AfterValidator:
        def check(value: str) -> str:
            problem = self.problem(value)
            if problem:
                raise ValueError(problem)
            return value.strip()

        return AfterValidator(check)


HTTP_SCHEMES = ("http://", "https://")
NEO4J_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
MILVUS_ADDRESS = AddressRule(HTTP_SCHEMES, "http://host:19530", "the Milvus Lite file under the home folder")
MilvusUri = Annotated[str, MILVUS_ADDRESS.validator()]
Neo4jUri = Annotated[
    str, AddressRule(NEO4J_SCHEMES, "bolt://host:7687", "the local graph directory").validator()
]
LlmUrl = Annotated[str, AddressRule(HTTP_SCHEMES, "http://host:11434/v1", "the offline reasoner").validator()]


def _default_home() -> Path:
    return Path.home() / ".meddiag"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEDDIAG_", env_file=".env", extra="ignore")

    home: Path = Field(default_factory=_default_home, description="Where knowledge bases live.")
    profile: Literal["demo", "full"] = "demo"
    embedder: str = Field(
        default=DEFAULT_EMBEDDER,
        description="Embedder of new builds; when unset, a built knowledge base keeps its own.",
    )

    milvus_uri: MilvusUri = Field(
        default="", description="Empty: Milvus Lite file under home; http(s)://: a server."
    )
    milvus_token: SecretStr = SecretStr("")

    neo4j_uri: Neo4jUri = ""
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("")
    neo4j_database: str = "neo4j"

    backend: BackendName = "lightrag"
    max_hops: int = 4

    llm_base_url: LlmUrl = ""
    llm_model: str = ""
    llm_api_key: SecretStr = SecretStr("")
    llm_timeout_s: float = 30.0
    llm_retries: int = 1

    @property
    def kb_dir(self) -> Path:
        """The live knowledge base for the active profile."""
        return self.home / "kb" / self.profile

    @property
    def milvus_lite_path(self) -> Path:
        return self.kb_dir / "milvus.db"

    @property
    def uses_milvus_server(self) -> bool:
        return self.milvus_uri.startswith(HTTP_SCHEMES)

    @property
    def embedder_chosen(self) -> bool:
        """Whether MEDDIAG_EMBEDDER (or the caller) named the embedder, rather than the default."""
        return "embedder" in self.model_fields_set

    def embedder_for(self, built_with: str) -> str:
        """The embedder to read a knowledge base built with `built_with`: the chosen one, else its own.

        The embedder is a build-time choice, so a later default must not lock out (or rebuild)
        a knowledge base built before it."""
        return self.embedder if self.embedder_chosen else built_with

    @property
    def uses_neo4j(self) -> bool:
        return bool(self.neo4j_uri)

    @property
    def uses_llm(self) -> bool:
        return bool(self.llm_base_url and self.llm_model)


def error_reason(error: ErrorDetails) -> str:
    """A validation error's message as a clause: our own checks' text without pydantic's prefix."""
    return error["msg"].removeprefix("Value error, ").rstrip(".")


def load_settings(**values: Any) -> Settings:
    """Settings from the environment (and `values`), or a `SettingsError` naming each unusable variable."""
    try:
        return Settings(**values)
    except ValidationError as err:
        problems = []
        for e in err.errors(include_url=False):
            name = "MEDDIAG_" + "_".join(str(part) for part in e["loc"]).upper()
            secret = any(word in name for word in ("TOKEN", "PASSWORD", "KEY"))
            value = "" if secret else f"={e['input']!r}"
            problems.append(f"{name}{value} ({error_reason(e)})")
        which = "it" if len(problems) == 1 else "them"
        raise SettingsError(
            f"Cannot use {'; '.join(problems)}. Correct or unset {which} in the environment or `.env`."
        ) from err


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return load_settings()
