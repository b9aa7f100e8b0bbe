"""Fixtures of the context tests; the sample data lives in `context_samples`."""

from __future__ import annotations

import pytest

from tests.context.context_samples import Retrieval, marfan_retrieval


@pytest.fixture
def marfan() -> Retrieval:
    return marfan_retrieval()
