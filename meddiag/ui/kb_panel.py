"""Knowledge-base status, manifest, attribution and the build-with-progress flow."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from meddiag.errors import MedDiagError
from meddiag.service import KBStatus, MedDiagService
from meddiag.ui.background import run_with_updates

NOTICE = "Research and education tool — not for clinical decisions."
HPO_ATTRIBUTION = (
    "This product uses the Human Phenotype Ontology (version {version}). "
    "Find out more at http://www.human-phenotype-ontology.org. "
    "Disease descriptions come from the Mondo Disease Ontology (MONDO), licensed CC BY 4.0."
)


def render_notice() -> None:
    st.warning(NOTICE, icon=":material/warning:")


def render_attribution(status: KBStatus) -> None:
    st.caption(HPO_ATTRIBUTION.format(version=status.hpo_version or "unknown"))


def _flatten_counts(counts: dict[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name, value in counts.items():
        label = f"{prefix}{name}"
        if isinstance(value, dict):
            rows.extend(_flatten_counts(value, prefix=f"{label} · "))
        else:
            rows.append({"What": label, "Count": value})
    return rows


def manifest_tables(manifest: dict[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(sources with versions, counts) from a manifest dict."""
    sources = manifest.get("sources", {})
    if isinstance(sources, dict):
        source_rows = [{"Source": k, "Version": v} for k, v in sources.items()]
    else:
        source_rows = [{"Source": s.get("name", ""), "Version": s.get("version", "")} for s in sources]
    return pd.DataFrame(source_rows, columns=["Source", "Version"]), pd.DataFrame(
        _flatten_counts(manifest.get("counts", {})), columns=["What", "Count"]
    )


def render_status_line(status: KBStatus) -> None:
    """A compact status for the sidebar of every page."""
    if status.built and status.manifest:
        embedder = status.manifest.get("embedder", {})
        name = embedder.get("name", "") if isinstance(embedder, dict) else str(embedder)
        st.caption(f"Knowledge base: **{status.profile}** · HPO {status.hpo_version} · embedder {name}")
    elif status.problem:
        st.caption(f"Knowledge base problem: {status.problem}")
    else:
        st.caption("No knowledge base built yet.")


def render_manifest(status: KBStatus) -> None:
    if not status.built or not status.manifest:
        st.info("No knowledge base is built yet.")
        return
    m = status.manifest
    sources, counts = manifest_tables(m)
    embedder = m.get("embedder", {})
    cols = st.columns(3)
    cols[0].metric("Profile", str(m.get("profile", status.profile)))
    cols[1].metric("HPO release", status.hpo_version or "unknown")
    cols[2].metric("Embedder", embedder.get("name", "?") if isinstance(embedder, dict) else str(embedder))
    left, right = st.columns(2)
    left.markdown("**Sources**")
    left.dataframe(sources, hide_index=True)
    right.markdown("**Counts**")
    right.dataframe(counts, hide_index=True)
    details: dict[str, object] = {
        k: m[k] for k in ("build_id", "created", "vector_store", "graph_store", "build_seconds") if k in m
    }
    if isinstance(embedder, dict):
        details.update({f"embedder {k}": v for k, v in embedder.items() if k != "name"})
    if details:
        st.caption(" · ".join(f"{k}: {v}" for k, v in details.items()))


def build_with_progress(service: MedDiagService, *, profile: str | None = None, force: bool = False) -> bool:
    """Build the knowledge base, drawing each stage on a progress bar; False (and a message) on failure."""
    bar = st.progress(0.0, text="Starting the build…")

    def show(update: tuple[str, float]) -> None:
        stage, fraction = update
        bar.progress(min(max(float(fraction), 0.0), 1.0), text=stage)

    try:
        manifest = run_with_updates(
            lambda emit: service.build(profile=profile, force=force, progress=lambda s, f: emit((s, f))),
            show,
        )
    except MedDiagError as err:
        bar.empty()
        st.error(str(err))
        return False
    bar.progress(1.0, text="Knowledge base ready.")
    st.success(f"Built the {manifest.profile} knowledge base.")
    return True


def render_build_prompt(service: MedDiagService, status: KBStatus) -> None:
    """The first-start flow: explain, then build the demo knowledge base visibly."""
    st.title("MedDiag Explorer")
    render_notice()
    if status.problem:
        st.error(status.problem)
    st.markdown(
        "No knowledge base is built yet. The demo knowledge base is assembled from the Human "
        "Phenotype Ontology and MONDO files installed with the app — no internet needed."
    )
    clicked = st.button("Build the demo knowledge base now", type="primary", key="landing.build")
    if clicked and build_with_progress(service, profile="demo"):
        st.rerun()
    render_attribution(status)
