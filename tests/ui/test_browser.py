"""End to end in headless Chromium: a real `streamlit run` on the demo knowledge base.

Asks a question, waits for the synthesis, checks that a hop's vis-network canvas holds
nodes, opens a citation, and saves a screenshot of every page to `test-artifacts/`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.ports import free_port

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUESTION = "Child with arachnodactyly, ectopia lentis and aortic root dilatation. What is the differential diagnosis?"


@pytest.fixture(scope="module")
def server(demo_kb_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _running_app(demo_kb_home, tmp_path_factory) as url:
        yield url


@contextmanager
def _running_app(demo_kb_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on a free port, on its own copy of the demo KB (a Milvus Lite file admits one process)."""
    home = tmp_path_factory.mktemp("browser-home")
    shutil.copytree(demo_kb_home, home, dirs_exist_ok=True)
    port = free_port()
    env = {**os.environ, "MEDDIAG_HOME": str(home)}
    log = (tmp_path_factory.mktemp("browser-log") / "streamlit.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited early; see {log.name}")
            time.sleep(0.5)
        else:
            pytest.fail("streamlit did not become healthy within 90 s")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


@pytest.fixture(scope="module")
def browser_page(server: str) -> Iterator:
    if not CHROMIUM.exists():
        pytest.skip("Debian's Chromium is not installed at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(server, wait_until="networkidle")  # a cold server needs one load first
        page.goto(server, wait_until="networkidle")
        yield page
        browser.close()


def _shoot(page, name: str) -> None:
    """A screenshot of the whole page: Streamlit scrolls inside its main block, not the window."""
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=stMain], [data-testid=stMainBlockContainer]')]"
        ".map(e => e.scrollHeight), window.innerHeight)"
    )
    page.set_viewport_size({"width": 1500, "height": min(int(height) + 100, 12_000)})
    page.wait_for_timeout(1_500)
    page.screenshot(path=str(ARTIFACTS / name))
    page.set_viewport_size({"width": 1500, "height": 1000})


def _vis_node_counts(page) -> list[int]:
    """Nodes drawn by each vis-network iframe; a frame that Streamlit re-renders while it is
    read counts as not drawn yet (the callers poll until a deadline)."""
    from playwright.sync_api import Error as PlaywrightError

    counts = []
    for frame in page.frames:
        try:
            n = frame.evaluate("() => (typeof network === 'undefined') ? -1 : network.body.data.nodes.length")
        except PlaywrightError:  # "Execution context was destroyed": the frame was replaced
            continue
        if n >= 0:
            counts.append(n)
    return counts


def test_a_page_opened_by_its_own_address_on_a_fresh_server_runs_inside_the_app(
    demo_kb_home, tmp_path_factory
):
    """Until `st.navigation` has run once, Streamlit treats the `pages/` folder as its legacy
    multipage mode: without the hand-over in `meddiag.ui.navigation`, a fresh server's first
    visitor of a bookmark or shared link got the page alone (file names as navigation, no
    knowledge-base status, no gate)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's Chromium is not installed at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    with _running_app(demo_kb_home, tmp_path_factory) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(f"{url}/graph_explorer", wait_until="networkidle")
        page.get_by_role("heading", name="Knowledge graph explorer").first.wait_for(timeout=120_000)
        sidebar = page.locator("[data-testid='stSidebar']")
        sidebar.get_by_text("Knowledge base: demo").wait_for(timeout=60_000)
        assert sidebar.get_by_text("Evaluation & error inspection").count() == 1  # the app's titles
        assert "/graph_explorer" in page.url
        browser.close()


def test_the_ask_pages_own_address_opens_it_without_a_not_found_dialog(browser_page, server):
    """The Ask page is the default page, served at the root; its file's address ("/ask", which
    a fresh server's first visit and old links use) is a hidden alias, not "Page not found"."""
    page = browser_page.context.browser.new_page()  # the shared page stays where the other tests expect it
    try:
        page.goto(f"{server}/ask?q=seizures", wait_until="networkidle")
        page.get_by_role("heading", name="Ask").first.wait_for(timeout=60_000)
        page.wait_for_timeout(2_000)
        assert page.get_by_text("Page not found").count() == 0
        assert page.get_by_role("textbox", name="Question", exact=True).input_value() == "seizures"
    finally:
        page.close()


def test_ask_draws_hops_synthesis_graph_and_citations(browser_page, server):
    page = browser_page
    page.get_by_role("heading", name="Ask").wait_for(timeout=60_000)
    _shoot(page, "01-ask-empty.png")
    page.get_by_role("textbox", name="Question", exact=True).fill(QUESTION)
    page.get_by_role("button", name="Ask", exact=True).click()
    page.get_by_role("heading", name="Synthesis").wait_for(timeout=240_000)
    page.wait_for_timeout(2_000)  # let the iframes and charts draw
    assert page.get_by_text("Semantic · hop 1").count() >= 1
    assert page.get_by_text("Relational · hop 1").count() >= 1
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(n > 0 for n in _vis_node_counts(page)):
        page.wait_for_timeout(500)
    assert any(n > 0 for n in _vis_node_counts(page)), "no hop subgraph drew any node"
    # the timeline chart renders asynchronously after the page's other elements: wait for it
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    assert page.locator(".js-plotly-plot").count() >= 1
    _shoot(page, "02-ask-answer.png")

    citation = page.locator("[data-testid='stExpander']").filter(
        has=page.locator("summary", has_text=re.compile(r"\[1\] (passage|triple)"))
    )
    citation.locator("summary").click()
    citation.get_by_text("Provenance:").wait_for(timeout=10_000)
    citation.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "03-ask-citation.png"))
    assert "q=" in page.url and "backend=" in page.url


@pytest.mark.parametrize(
    ("path", "heading", "shot"),
    [
        ("graph_explorer", "Knowledge graph explorer", "04-explorer.png"),
        ("compare_backends", "Compare backends", "05-compare.png"),
        ("evaluation", "Evaluation & error inspection", "06-evaluation.png"),
        ("knowledge_base", "Knowledge base", "07-knowledge-base.png"),
        ("settings", "Settings", "08-settings.png"),
    ],
)
def test_every_page_opens(browser_page, server, path, heading, shot):
    page = browser_page
    page.goto(f"{server}/{path}", wait_until="networkidle")
    page.get_by_role("heading", name=heading).first.wait_for(timeout=60_000)
    if path == "graph_explorer":
        page.get_by_label("Entity name or id").fill("Marfan")
        page.keyboard.press("Enter")
        page.get_by_role("button", name="Show neighbourhood").click()
        page.get_by_text("relations").first.wait_for(timeout=60_000)
        page.wait_for_timeout(3_000)
        assert any(n > 0 for n in _vis_node_counts(page))
    assert page.locator("[data-testid='stException']").count() == 0
    _shoot(page, shot)
