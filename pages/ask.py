"""Ask: a question or a patient, both channels hop by hop, then the synthesis."""

from __future__ import annotations

import streamlit as st

from meddiag.engine.inputs import source_ids
from meddiag.errors import InputError
from meddiag.schema import BACKENDS
from meddiag.ui.case_view import render_case
from meddiag.ui.kb_panel import render_notice
from meddiag.ui.live_progress import ask_with_progress
from meddiag.ui.navigation import require_navigation
from meddiag.ui.patient_form import render_patient_form
from meddiag.ui.resources import get_service, session_defaults
from meddiag.ui.state import ASK_FROM_LINK, ASK_HIDDEN_SOURCES, ASK_QUESTION, ASK_RESULT

require_navigation(__file__)

CHANNELS = ["both", "semantic", "relational"]

service = get_service()
defaults = session_defaults()
st.title("Ask")
render_notice()

# A shared link (?q=…&backend=…&exclude=…) fills the form once and runs the case.
link_question = st.query_params.get("q", "")
link_backend = st.query_params.get("backend", "")
link_exclude = st.query_params.get("exclude", "")
link = (link_question, link_backend, link_exclude)
run_link = bool(link_question) and st.session_state.get(ASK_FROM_LINK) != link
if run_link:
    st.session_state[ASK_FROM_LINK] = link
    st.session_state[ASK_QUESTION] = link_question
    st.session_state[ASK_HIDDEN_SOURCES] = link_exclude
    if link_backend in BACKENDS:
        st.session_state["ask.backend"] = link_backend

question = st.text_area(
    "Question",
    key=ASK_QUESTION,
    placeholder="e.g. A 6-year-old boy with arachnodactyly, ectopia lentis and aortic root dilatation. Differential?",
    help='Describe a patient for a differential diagnosis, or ask about a disease ("What are the '
    'features of Marfan syndrome?", "How is Marfan syndrome inherited?", "When does Huntington '
    'disease start?"), a gene ("Which diseases are associated with FBN1?") or two diseases '
    '("How do Marfan syndrome and Loeys-Dietz syndrome differ?").',
)
with st.expander("Structured patient (optional)"):
    patient = render_patient_form(service)

left, mid, right = st.columns([3, 4, 3])  # the channel buttons need the room
backend = left.selectbox("Backend", BACKENDS, index=BACKENDS.index(defaults.backend), key="ask.backend")
channels = (
    mid.segmented_control("Channels", CHANNELS, default=defaults.channels, key="ask.channels") or "both"
)
max_hops = right.slider("Hop limit", 1, 8, defaults.max_hops, key="ask.max_hops")
exclude_text = st.text_input(
    "Leave out sources (optional)",
    key=ASK_HIDDEN_SOURCES,
    placeholder="PMID:12345678, ORPHA:558",
    help="Facts, passages and triples resting only on these publications or resources are hidden "
    "from both channels while the question is answered: what would the knowledge base say "
    "without this paper? A fact they share with other sources stays, without a frequency "
    "they helped to curate. The evaluation's leave-publication-out protocol uses the same option.",
)

hidden: frozenset[str] | None = None
hidden_error = ""
try:
    hidden = source_ids(exclude_text)
except InputError as err:
    hidden_error = str(err)

if st.button("Ask", type="primary", key="ask.submit") or run_link:
    if not question.strip() and patient is None:
        st.error("Please type a question or choose findings in the patient form.")
    elif hidden is None:
        st.error(hidden_error)
    else:
        exclude_param = ", ".join(sorted(hidden))
        st.query_params.update({"q": question.strip(), "backend": backend})
        if exclude_param:
            st.query_params["exclude"] = exclude_param
        else:
            st.query_params.pop("exclude", None)
        st.session_state[ASK_FROM_LINK] = (question.strip(), backend, exclude_param)
        st.session_state[ASK_RESULT] = ask_with_progress(
            lambda on_event: service.ask(
                question.strip() or None,
                patient=patient,
                backend=backend,
                channels=channels,
                max_hops=max_hops,
                exclude_sources=hidden,
                on_event=on_event,
            )
        )

result = st.session_state.get(ASK_RESULT)
if result is not None:
    render_case(result, key="ask")
