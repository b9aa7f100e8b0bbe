"""Knowledge base: what is indexed, from which releases; rebuild; add your own documents."""

from __future__ import annotations

import streamlit as st

from meddiag.errors import MedDiagError
from meddiag.ui.kb_panel import build_with_progress, render_attribution, render_manifest
from meddiag.ui.navigation import require_navigation
from meddiag.ui.resources import get_service

require_navigation(__file__)

service = get_service()
status = service.status()
st.title("Knowledge base")
if status.problem:
    st.error(status.problem)
render_manifest(status)
render_attribution(status)

st.subheader("Rebuild")
left, right = st.columns(2)
profile = left.selectbox(
    "Profile", ["demo", "full"], index=1 if status.profile == "full" else 0, key="kb.profile"
)
force = right.checkbox("Rebuild even if nothing changed", key="kb.force")
if st.button("Build knowledge base", key="kb.build") and build_with_progress(
    service, profile=profile, force=force
):
    st.rerun()

st.subheader("Add your own documents")
files = st.file_uploader(
    "Text, Markdown or PDF files", type=["txt", "md", "pdf"], accept_multiple_files=True, key="kb.upload"
)
if st.button("Add to the knowledge base", key="kb.add", disabled=not files):
    try:
        results = service.add_documents([(f.name, f.getvalue()) for f in files or []])
    except MedDiagError as err:
        st.error(str(err))
    else:
        for r in results:
            if r.ok:
                st.success(f"{r.name}: {r.message} ({r.chunks} passages)")
            else:
                st.error(f"{r.name}: {r.message}")
