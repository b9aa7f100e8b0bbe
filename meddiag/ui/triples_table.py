"""Triples and relations as tables with their provenance."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from meddiag.knowledge.model import Relation
from meddiag.schema import KGTriple

TRIPLE_COLUMNS = ["Subject", "Predicate", "Object", "Frequency", "Weight", "Provenance"]


def triples_frame(triples: Sequence[KGTriple]) -> pd.DataFrame:
    rows = [
        {
            "Subject": t.subject,
            "Predicate": t.predicate + (" (hyperedge)" if t.from_hyperedge else ""),
            "Object": t.object,
            "Frequency": "" if t.frequency is None else f"{t.frequency:.0%}",
            "Weight": t.weight,
            "Provenance": ", ".join(t.provenance),
        }
        for t in triples
    ]
    return pd.DataFrame(rows, columns=TRIPLE_COLUMNS)


def relations_frame(relations: Sequence[Relation], names: Mapping[str, str]) -> pd.DataFrame:
    """Relations with entity names resolved (ids kept for reference)."""
    rows = [
        {
            "Subject": f"{names.get(r.subject, r.subject)} ({r.subject})",
            "Predicate": r.predicate,
            "Object": f"{names.get(r.object, r.object)} ({r.object})",
            "Frequency": r.frequency_label or (f"{r.frequency:.0%}" if r.frequency is not None else ""),
            "Provenance": ", ".join(r.sources) or r.source_file,
        }
        for r in relations
    ]
    return pd.DataFrame(rows, columns=["Subject", "Predicate", "Object", "Frequency", "Provenance"])


def render_triples(triples: Sequence[KGTriple], *, key: str) -> None:
    if not triples:
        st.caption("No triples kept for this hop.")
        return
    st.dataframe(
        triples_frame(triples),
        hide_index=True,
        key=key,
        column_config={
            "Weight": st.column_config.NumberColumn(format="%.2f"),
            "Provenance": st.column_config.TextColumn(
                help="Publications and curation sources (PMIDs as text)"
            ),
        },
    )
