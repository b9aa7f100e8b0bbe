"""MedDiag Explorer: the Streamlit entry point (`streamlit run app.py`).

Routes to the pages, shows the knowledge-base status in the sidebar, and when no
knowledge base exists yet offers to build the demo one (pages that need it wait).
"""

from __future__ import annotations

import streamlit as st

from meddiag.errors import SettingsError
from meddiag.ui.kb_panel import NOTICE, render_build_prompt, render_status_line
from meddiag.ui.navigation import (
    DEFAULT_PAGE_RESERVED_PATH,
    default_page_alias,
    follow_requested_page,
    mark_navigated,
)
from meddiag.ui.resources import get_service

st.set_page_config(page_title="MedDiag Explorer", page_icon=":material/stethoscope:", layout="wide")

PAGES = {  # by file name, which is how a page opened by its own address asks for itself
    "ask": st.Page(
        "pages/ask.py", title="Ask", icon=":material/help:", default=True, url_path=DEFAULT_PAGE_RESERVED_PATH
    ),
    "graph_explorer": st.Page(
        "pages/graph_explorer.py", title="Knowledge graph explorer", icon=":material/hub:"
    ),
    "compare_backends": st.Page(
        "pages/compare_backends.py", title="Compare backends", icon=":material/compare_arrows:"
    ),
    "evaluation": st.Page(
        "pages/evaluation.py", title="Evaluation & error inspection", icon=":material/analytics:"
    ),
    "knowledge_base": st.Page(
        "pages/knowledge_base.py", title="Knowledge base", icon=":material/library_books:"
    ),
    "settings": st.Page("pages/settings.py", title="Settings", icon=":material/settings:"),
}
# These pages work (and help) before any knowledge base exists.
WITHOUT_KB = {"knowledge_base", "settings"}

page = st.navigation([*PAGES.values(), default_page_alias(PAGES["ask"], "ask")])
mark_navigated()
follow_requested_page(PAGES, page)
try:
    service = get_service()
except SettingsError as err:  # a mistyped MEDDIAG_* variable: say which, run nothing else
    st.error(str(err))
    st.stop()
status = service.status()
with st.sidebar:
    render_status_line(status)
    st.caption(NOTICE)

if not status.built and page.url_path not in WITHOUT_KB:
    render_build_prompt(service, status)
    st.stop()
page.run()
