from __future__ import annotations

import pytest

from meddiag.diagnosis.fusion import exact_ties, fuse_scores, zscores
from meddiag.errors import InputError


def test_zscores_are_centred_and_scaled() -> None:
    z = zscores({"a": 1.0, "b": 3.0})
    assert z == pytest.approx({"a": -1.0, "b": 1.0})


def test_constant_scores_give_zero() -> None:
    assert zscores({"a": 2.0, "b": 2.0}) == {"a": 0.0, "b": 0.0}


def test_fusion_ignores_the_scale_of_each_channel() -> None:
    rel = {"a": 10.0, "b": 20.0, "c": 30.0}
    sem = {"a": 0.3, "b": 0.2, "c": 0.1}
    small = fuse_scores(rel, sem, 0.5)
    scaled = fuse_scores({k: 1000 * v for k, v in rel.items()}, sem, 0.5)
    assert small == pytest.approx(scaled)
    assert small["b"] == pytest.approx(0.0)


def test_weight_zero_keeps_the_relational_order_and_one_the_semantic() -> None:
    rel = {"a": 3.0, "b": 2.0, "c": 1.0}
    sem = {"c": 0.9, "b": 0.5, "a": 0.1}
    assert sorted(fuse_scores(rel, sem, 0.0), key=lambda k: -fuse_scores(rel, sem, 0.0)[k]) == ["a", "b", "c"]
    assert sorted(fuse_scores(rel, sem, 1.0), key=lambda k: -fuse_scores(rel, sem, 1.0)[k]) == ["c", "b", "a"]


def test_disease_only_the_text_scored_ranks_below_every_graph_candidate() -> None:
    fused = fuse_scores({"a": 1.0, "b": 0.0}, {"a": 1.0, "b": 0.0, "x": 5.0, "y": 4.0}, 0.5)
    assert set(fused) == {"a", "b", "x", "y"}
    assert sorted(fused, key=lambda k: -fused[k]) == ["a", "b", "x", "y"]


def test_disease_the_text_did_not_score_gets_the_texts_floor() -> None:
    fused = fuse_scores({"a": 1.0, "b": 1.0}, {"a": 0.0, "x": 1.0}, 0.5)
    assert fused["a"] == pytest.approx(fused["b"])


def test_semantic_channel_alone_orders_by_text() -> None:
    fused = fuse_scores({}, {"x": 0.2, "y": 0.9}, 0.0)
    assert sorted(fused, key=lambda k: -fused[k]) == ["y", "x"]


def test_weight_outside_unit_interval_is_rejected() -> None:
    with pytest.raises(InputError):
        fuse_scores({"a": 1.0}, {}, 1.5)


def test_exact_ties_name_the_other_rows_with_the_same_score() -> None:
    fused = {"A": 1.0, "B": 0.5, "C": 0.5, "D": 0.5 - 1e-9, "E": 0.5}
    ties = exact_ties(fused, ["A", "B", "C", "D"])  # E is not listed
    assert ties == {"A": [], "B": ["C"], "C": ["B"], "D": []}
