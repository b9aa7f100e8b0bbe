"""Fixtures for the app's page tests: a fake service for error paths, a real demo KB for the rest."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit.testing.v1.app_test as app_test_module
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

import meddiag.ui.resources as resources

from .fake_service import FakeService


class _NavigationPagesManager(PagesManager):
    """What a real server does once `st.navigation` has run: ignore the `pages/` folder.

    AppTest resets the class flag before each run, and a `pages/` folder next to the
    script then flips it to the legacy multipage mode, which reruns a page without
    `app.py` (streamlit issue 9446 was fixed only for apps without that folder).
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        PagesManager.uses_pages_directory = False


@pytest.fixture(autouse=True)
def _navigation_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_test_module, "PagesManager", _NavigationPagesManager)


APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_app(page: str | None = None, *, timeout: float = 120) -> AppTest:
    """Run the app once, then (optionally) switch to a page such as ``pages/ask.py``."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    if page is not None:
        at.switch_page(page)
        at.run()
    return at


@pytest.fixture(scope="session")
def demo_kb_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A MEDDIAG_HOME holding the demo knowledge base, built once per test session."""
    from meddiag.config import Settings
    from meddiag.knowledge.build import build_knowledge_base

    home = tmp_path_factory.mktemp("meddiag-home")
    # Optional: a folder kept between sessions, where an unchanged build is skipped.
    cache = os.environ.get("MEDDIAG_TEST_KB_CACHE")
    if cache:
        build_knowledge_base(Settings(home=Path(cache), profile="demo"), profile="demo")
        shutil.copytree(cache, home, dirs_exist_ok=True)
    else:
        build_knowledge_base(Settings(home=home, profile="demo"), profile="demo")
    return home


@pytest.fixture
def real_service(monkeypatch: pytest.MonkeyPatch, demo_kb_home: Path) -> Iterator[Path]:
    """Pages use the real service on the demo KB; it is closed afterwards to free the Milvus Lite file."""
    monkeypatch.setenv("MEDDIAG_HOME", str(demo_kb_home))
    monkeypatch.setenv("MEDDIAG_PROFILE", "demo")
    resources._service.clear()
    yield demo_kb_home
    resources._service.clear()


@pytest.fixture
def private_real_service(
    monkeypatch: pytest.MonkeyPatch, demo_kb_home: Path, tmp_path: Path
) -> Iterator[Path]:
    """Like `real_service`, on a copy of the demo KB that the test may change (uploads)."""
    home = tmp_path / "home"
    shutil.copytree(demo_kb_home, home)
    monkeypatch.setenv("MEDDIAG_HOME", str(home))
    monkeypatch.setenv("MEDDIAG_PROFILE", "demo")
    resources._service.clear()
    yield home
    resources._service.clear()


@pytest.fixture
def fake_service(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeService]:
    """Every page gets this fake (one per test) instead of the real service."""
    monkeypatch.setenv("MEDDIAG_HOME", str(tmp_path))
    fake = FakeService()
    monkeypatch.setattr(resources, "MedDiagService", lambda settings=None: fake)
    resources._service.clear()
    yield fake
    resources._service.clear()
