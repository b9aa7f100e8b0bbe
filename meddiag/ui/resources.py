"""The process's `MedDiagService` (cached) and this session's defaults."""

from __future__ import annotations

import json

import streamlit as st

from meddiag.config import load_settings
from meddiag.service import MedDiagService
from meddiag.ui.state import SESSION_DEFAULTS, SessionDefaults


def _release(service: MedDiagService) -> None:
    # A Milvus Lite file admits one opener: close the old service before another opens it.
    service.close()


@st.cache_resource(show_spinner=False, max_entries=1, on_release=_release)
def _service(overrides_json: str) -> MedDiagService:
    overrides = json.loads(overrides_json)
    base = load_settings()
    if not overrides:
        return MedDiagService(base)
    return MedDiagService(load_settings(**{**base.model_dump(), **overrides}))


def session_defaults() -> SessionDefaults:
    """This session's saved defaults, seeded from the process settings on first use."""
    if SESSION_DEFAULTS not in st.session_state:
        st.session_state[SESSION_DEFAULTS] = SessionDefaults.from_settings(load_settings())
    return st.session_state[SESSION_DEFAULTS]


def get_service() -> MedDiagService:
    """One service per process; a session whose connections differ from the environment gets its own."""
    defaults = session_defaults()
    base = SessionDefaults.from_settings(load_settings()).settings_overrides()
    wanted = defaults.settings_overrides()
    overrides = {k: v for k, v in wanted.items() if base.get(k) != v}
    return _service(json.dumps(overrides, sort_keys=True))
