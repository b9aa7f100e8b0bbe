"""Settings from MEDDIAG_* variables: defaults run offline, and a bad value is named, not a traceback."""

from __future__ import annotations

import pytest

from meddiag.config import load_settings
from meddiag.errors import SettingsError


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for key in (
        "MEDDIAG_BACKEND",
        "MEDDIAG_MAX_HOPS",
        "MEDDIAG_LLM_TIMEOUT_S",
        "MEDDIAG_LLM_BASE_URL",
        "MEDDIAG_MILVUS_URI",
        "MEDDIAG_NEO4J_URI",
    ):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)  # no project `.env` leaks in


def test_defaults_need_no_server_and_no_key() -> None:
    s = load_settings()
    assert s.backend == "lightrag"
    assert not (s.uses_milvus_server or s.uses_neo4j or s.uses_llm)


def test_each_unusable_variable_is_named_with_its_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDDIAG_BACKEND", "graphrag")
    monkeypatch.setenv("MEDDIAG_MAX_HOPS", "many")
    with pytest.raises(SettingsError) as err:
        load_settings()
    message = str(err.value)
    assert "MEDDIAG_BACKEND='graphrag'" in message and "hypergraphrag" in message
    assert "MEDDIAG_MAX_HOPS='many'" in message
    assert "unset them" in message


def test_values_passed_in_are_checked_too() -> None:
    with pytest.raises(SettingsError, match="MEDDIAG_LLM_TIMEOUT_S='soon'"):
        load_settings(llm_timeout_s="soon")


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("MEDDIAG_MILVUS_URI", "localhost:19530", "http://host:19530"),
        ("MEDDIAG_NEO4J_URI", "localhost:7687", "bolt://host:7687"),
        ("MEDDIAG_LLM_BASE_URL", "localhost:11434/v1", "http://host:11434/v1"),
    ],
)
def test_an_address_without_its_scheme_is_refused_not_ignored(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, says: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError, match=f"{variable}='{value}'.*write it as {says}"):
        load_settings()


def test_addresses_with_their_scheme_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDDIAG_MILVUS_URI", " https://milvus.example:19530 ")
    monkeypatch.setenv("MEDDIAG_NEO4J_URI", "neo4j+s://graph.example")
    s = load_settings()
    assert s.milvus_uri == "https://milvus.example:19530" and s.uses_milvus_server
    assert s.neo4j_uri == "neo4j+s://graph.example"
