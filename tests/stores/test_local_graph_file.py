"""The local graph store's saved file: a faithful round trip, and a clear message for a file it cannot use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from meddiag.errors import KnowledgeBaseStale, MedDiagError
from meddiag.stores.local_graph import LocalGraphStore
from tests.stores.tiny_kb import tiny_entities, tiny_relations


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    store = LocalGraphStore()
    store.upsert_entities(tiny_entities())
    store.upsert_relations(tiny_relations())
    return store.save(tmp_path / "graph.json")


def test_a_saved_graph_loads_with_every_entity_and_relation_field(saved: Path) -> None:
    loaded = LocalGraphStore(saved)
    assert sorted(loaded.iter_entities(), key=lambda e: e.id) == sorted(tiny_entities(), key=lambda e: e.id)
    assert sorted(loaded.iter_relations(), key=lambda r: r.key) == sorted(
        tiny_relations(), key=lambda r: r.key
    )


def test_a_graph_of_another_format_asks_for_a_rebuild(saved: Path) -> None:
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["format"] = 0
    data["relations"] = [
        {"s": r["subject"], "p": r["predicate"], "o": r["object"]} for r in data["relations"]
    ]
    saved.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(KnowledgeBaseStale, match=r"older format.*meddiag build --force"):
        LocalGraphStore(saved)


@pytest.mark.parametrize("damage", ["truncated", "bad predicate"])
def test_a_damaged_graph_file_is_a_sentence_naming_the_file(saved: Path, damage: str) -> None:
    text = saved.read_text(encoding="utf-8")
    if damage == "truncated":
        text = text[: len(text) // 2]
    else:
        text = text.replace('"HAS_PHENOTYPE"', '"HAS_PHENOTYP"', 1)
    saved.write_text(text, encoding="utf-8")
    with pytest.raises(MedDiagError, match=r"damaged.*meddiag build --force") as err:
        LocalGraphStore(saved)
    assert str(saved) in str(err.value)
    assert not isinstance(err.value, KnowledgeBaseStale)
