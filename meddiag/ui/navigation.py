"""Pages run inside `app.py`'s navigation, also when opened by their own address.

Streamlit treats a `pages/` folder beside the entry script as its legacy multipage mode
until `st.navigation` has run once in the server process. So the first visitor of a
freshly started server who opens a page's own address (a bookmark, a shared link) would
get that page run on its own: no sidebar status, no knowledge-base gate, no wide layout.
Each page checks that `app.py` ran in this session and otherwise hands over to it,
carrying the address's query and the page asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import streamlit as st
from streamlit.navigation.page import StreamlitPage

NAVIGATED = "meddiag.navigated"
PAGE_PARAM = "page"


def mark_navigated() -> None:
    """Called by `app.py` once `st.navigation` has chosen the page."""
    st.session_state[NAVIGATED] = True


def require_navigation(page_file: str) -> None:
    """First line of every page: hand a page run on its own over to `app.py`."""
    if st.session_state.get(NAVIGATED):
        return
    params = {**st.query_params.to_dict(), PAGE_PARAM: Path(page_file).stem}
    st.switch_page("app.py", query_params=params)


def follow_requested_page(pages: Mapping[str, StreamlitPage], current: StreamlitPage) -> None:
    """In `app.py`: go on to the page a handed-over address asked for (by its file name)."""
    wanted = st.query_params.get(PAGE_PARAM)
    if wanted is None:
        return
    del st.query_params[PAGE_PARAM]
    target = pages.get(wanted)
    if target is not None and target is not current:
        st.switch_page(target, query_params=st.query_params.to_dict())


# The default page is served at the root address but still reserves a path of its own, and
# Streamlit answers that path with a "Page not found" dialog over the app. So the default page
# reserves this unused path, and its file's address ("/ask") is a hidden alias that goes on to it.
DEFAULT_PAGE_RESERVED_PATH = "home"


def default_page_alias(default: StreamlitPage, url_path: str) -> StreamlitPage:
    """A hidden page at the default page's file address that goes on to the default page,
    carrying the query (a link such as ``/ask?q=...``)."""

    def go_on() -> None:
        st.switch_page(default, query_params=st.query_params.to_dict())

    return st.Page(go_on, title=default.title, url_path=url_path, visibility="hidden")
