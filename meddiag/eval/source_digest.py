"""A digest of the code that answers: a resumed evaluation reuses only what the same code answered."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

# What decides an answer: the code and the data files shipped beside it (laboratory limits).
_SUFFIXES = (".py", ".csv")


def source_digest(root: Path) -> str:
    """Digest of the source files under `root`, by relative path and content (compiled
    caches and other files ignored), so that an edited ranker or reasoner reads as new code."""
    h = hashlib.sha1()
    for path in sorted(p for p in root.rglob("*") if p.suffix in _SUFFIXES and p.is_file()):
        if "__pycache__" in path.parts:
            continue
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:12]


@cache
def meddiag_digest() -> str:
    """The installed `meddiag` package's digest, read once per process."""
    return source_digest(Path(__file__).resolve().parents[1])
