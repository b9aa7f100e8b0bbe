"""Error tags from the Evaluation page, kept in a local JSONL file under `MEDDIAG_HOME`.

Append-only JSON lines: a reviewer's tags survive restarts, are easy to diff and to read
back into pandas, and a half-written last line (a crash mid-write) is reported, not hidden.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, Field, ValidationError

from meddiag.errors import InputError

ErrorType = Literal[
    "retrieval miss",
    "wrong term link",
    "spurious triple",
    "synthesis error",
    "gold not in knowledge base",
]
ERROR_TYPES: tuple[ErrorType, ...] = get_args(ErrorType)


class ErrorTag(BaseModel):
    case_id: str
    error_type: ErrorType
    comment: str = ""
    backend: str = ""
    gold: list[str] = Field(default_factory=list)
    gold_rank: int | None = None
    created: datetime = Field(default_factory=lambda: datetime.now(UTC))


def default_tag_file(home: Path) -> Path:
    return home / "annotations" / "error_tags.jsonl"


class ErrorTagStore:
    """Reads and appends error tags; summaries count each case once per error type."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def add(self, tag: ErrorTag) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(tag.model_dump_json() + "\n")

    def all(self) -> list[ErrorTag]:
        if not self.path.exists():
            return []
        tags: list[ErrorTag] = []
        with self.path.open(encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    tags.append(ErrorTag.model_validate(json.loads(line)))
                except (json.JSONDecodeError, ValidationError) as err:
                    raise InputError(
                        f"Line {number} of the error-tag file {self.path.name} is damaged; "
                        "fix or remove that line to see the tags again."
                    ) from err
        return tags

    def for_case(self, case_id: str) -> list[ErrorTag]:
        return [t for t in self.all() if t.case_id == case_id]

    def summary(self) -> dict[str, int]:
        """How many cases carry each error type (a case tagged twice with one type counts once)."""
        latest = {(t.case_id, t.error_type) for t in self.all()}
        counts = Counter(error_type for _, error_type in latest)
        return {e: counts.get(e, 0) for e in ERROR_TYPES}
