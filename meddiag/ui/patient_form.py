"""The structured patient form: HPO findings searchable by label and synonym, age, sex, onset, genes."""

from __future__ import annotations

import re

import streamlit as st

from meddiag.diagnosis.onset import ONSET_CLASSES, onset_of_class
from meddiag.errors import MedDiagError
from meddiag.schema import PatientInput
from meddiag.service import MedDiagService
from meddiag.ui.state import ASK_EXCLUDED, ASK_OBSERVED, ASK_TERM_OPTIONS

SEXES = ["unknown", "female", "male", "other"]
# HPO's onset classes, broad ones before their subclasses, in the order of life ("unknown": not given).
ONSETS: dict[str, str] = {"unknown": ""} | {
    label[:1].upper() + label[1:]: hpo_id for hpo_id, (label, _, _) in ONSET_CLASSES.items()
}


def term_option(hpo_id: str, label: str) -> str:
    return f"{label} · {hpo_id}"


def term_id(option: str) -> str:
    return option.rsplit(" · ", 1)[-1]


def _options(service: MedDiagService, query: str) -> list[str]:
    """Search hits plus whatever is already chosen (a multiselect drops unknown values)."""
    known: list[str] = st.session_state.setdefault(ASK_TERM_OPTIONS, [])
    if query.strip():
        try:
            hits = [term_option(i, label) for i, label in service.search_terms(query, limit=25)]
        except MedDiagError as err:
            st.error(str(err))
            hits = []
        if not hits:
            st.caption(f"No HPO term matches “{query}”.")
        known = list(dict.fromkeys([*hits, *known]))
    chosen = [*st.session_state.get(ASK_OBSERVED, []), *st.session_state.get(ASK_EXCLUDED, [])]
    known = list(dict.fromkeys([*known, *chosen]))
    st.session_state[ASK_TERM_OPTIONS] = known
    return known


def render_patient_form(service: MedDiagService) -> PatientInput | None:
    """The form's patient, or None when nothing was entered."""
    query = st.text_input(
        "Search HPO terms (label or synonym)", key="ask.term_query", placeholder="e.g. long fingers"
    )
    options = _options(service, query)
    observed = st.multiselect("Observed findings", options, key=ASK_OBSERVED)
    excluded = st.multiselect("Excluded findings (checked and absent)", options, key=ASK_EXCLUDED)
    left, middle, right = st.columns(3)
    age = left.number_input(
        "Age (years)", min_value=0.0, max_value=120.0, value=None, step=1.0, key="ask.age"
    )
    sex = middle.selectbox("Sex", SEXES, key="ask.sex")
    onset = right.selectbox(
        "Onset",
        list(ONSETS),
        key="ask.onset",
        help="When the illness began; diseases whose curated onset lies far from it are lowered.",
    )
    genes = st.text_input(
        "Genes with a reported variant (optional)",
        key="ask.genes",
        placeholder="e.g. FBN1, TGFBR2",
        help="The diseases associated with these genes are ranked first, by how well they fit the findings.",
    )
    named = [g for g in re.split(r"[\s,;]+", genes.strip()) if g]
    if not observed and not excluded and not named:
        return None
    return PatientInput(
        observed=[term_id(o) for o in observed],
        excluded=[term_id(o) for o in excluded],
        age_years=age,
        sex=None if sex == "unknown" else sex,
        onset=onset_of_class(ONSETS[onset]) if ONSETS[onset] else None,
        genes=named,
    )
