"""Backends by name. Creating one is cheap (it only keeps the knowledge-base handle and its
budgets), and it holds no per-query state, so the engine's two channels may share one."""

from __future__ import annotations

from meddiag.backends.base import Backend, KnowledgeBaseView, TokenBudgets
from meddiag.backends.hypergraphrag import HyperGraphRAG
from meddiag.backends.lightrag import LightRAG
from meddiag.backends.minirag import MiniRAG
from meddiag.backends.pathrag import PathRAG
from meddiag.errors import InputError
from meddiag.schema import BACKENDS

BACKEND_CLASSES: dict[str, type[Backend]] = {
    cls.name: cls for cls in (LightRAG, MiniRAG, PathRAG, HyperGraphRAG)
}
assert set(BACKEND_CLASSES) == set(BACKENDS), "every backend named in the schema needs a class"


def get_backend(name: str, kb: KnowledgeBaseView, budgets: TokenBudgets | None = None) -> Backend:
    """The backend called `name` (case-insensitive) over the knowledge base `kb`."""
    key = name.strip().lower() if isinstance(name, str) else ""
    cls = BACKEND_CLASSES.get(key)
    if cls is None:
        raise InputError(f"Unknown retrieval backend {name!r}; choose one of {', '.join(BACKENDS)}.")
    return cls(kb, budgets)
