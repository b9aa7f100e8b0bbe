"""Settings: reasoner, stores and this session's defaults."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from meddiag.errors import MedDiagError
from meddiag.schema import BACKENDS
from meddiag.service import Health
from meddiag.ui.navigation import require_navigation
from meddiag.ui.resources import get_service, session_defaults
from meddiag.ui.state import SESSION_DEFAULTS, SessionDefaults

require_navigation(__file__)

service = get_service()
saved = session_defaults()
st.title("Settings")
st.caption(
    "Saved for this browser session only; the environment (MEDDIAG_* variables) sets the starting values."
)


def show(check: Health) -> None:
    (st.success if check.ok else st.error)(check.message)


def run_check(label: str, call: Callable[[], Health]) -> None:
    if st.button(label):
        try:
            show(call())
        except MedDiagError as err:
            st.error(str(err))


st.subheader("Reasoner")
kinds = ["offline", "llm"]
reasoner = st.radio(
    "Reasoner",
    kinds,
    index=kinds.index(saved.reasoner),
    horizontal=True,
    key="settings.reasoner",
    format_func={"offline": "Offline (built in)", "llm": "OpenAI-compatible endpoint"}.__getitem__,
)
base_url = st.text_input(
    "Endpoint base URL",
    saved.llm_base_url,
    key="settings.llm_base_url",
    placeholder="http://localhost:11434/v1",
    disabled=reasoner == "offline",
)
model = st.text_input("Model", saved.llm_model, key="settings.llm_model", disabled=reasoner == "offline")
api_key = st.text_input(
    "API key", saved.llm_api_key, type="password", key="settings.llm_api_key", disabled=reasoner == "offline"
)
if reasoner == "llm":
    run_check("Test connection", lambda: service.check_llm(base_url, model, api_key))

st.subheader("Stores")
milvus_uri = st.text_input(
    "Milvus URI (empty: the local Milvus Lite file)", saved.milvus_uri, key="settings.milvus_uri"
)
run_check("Check Milvus", lambda: service.check_milvus(milvus_uri))
neo4j_uri = st.text_input(
    "Neo4j URI (empty: the local graph directory)", saved.neo4j_uri, key="settings.neo4j_uri"
)
c1, c2 = st.columns(2)
neo4j_user = c1.text_input("Neo4j user", saved.neo4j_user, key="settings.neo4j_user")
neo4j_password = c2.text_input(
    "Neo4j password", saved.neo4j_password, type="password", key="settings.neo4j_password"
)
if neo4j_uri:
    run_check("Check Neo4j", lambda: service.check_neo4j(neo4j_uri, neo4j_user, neo4j_password))

st.subheader("Defaults for the Ask page")
c1, c2, c3 = st.columns(3)
backend = c1.selectbox("Backend", BACKENDS, index=BACKENDS.index(saved.backend), key="settings.backend")
channel_options = ["both", "semantic", "relational"]
channels = c2.selectbox(
    "Channels", channel_options, index=channel_options.index(saved.channels), key="settings.channels"
)
max_hops = c3.slider("Hop limit", 1, 8, saved.max_hops, key="settings.max_hops")

if st.button("Save for this session", type="primary", key="settings.save"):
    try:
        st.session_state[SESSION_DEFAULTS] = SessionDefaults.from_form(
            backend=backend,
            channels=channels,
            max_hops=max_hops,
            reasoner=reasoner,
            llm_base_url=base_url,
            llm_model=model,
            llm_api_key=api_key,
            milvus_uri=milvus_uri,
            neo4j_uri=neo4j_uri,
            neo4j_user=neo4j_user,
            neo4j_password=neo4j_password,
        )
    except MedDiagError as err:
        st.error(str(err))
    else:
        st.success("Saved. New questions in this session use these settings.")
