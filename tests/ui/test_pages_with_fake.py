"""Page behaviour that needs no knowledge base: widgets, error messages, first-start build."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from meddiag.ui.state import ASK_HIDDEN_SOURCES, ASK_RESULT

from . import fake_service as fake_service_module
from .conftest import APP, open_app
from .sample_case import near_tie_sample_result
from .vis_html import vis_node_labels

pytestmark = pytest.mark.timeout(120)


def errors(at) -> list[str]:
    return [e.value for e in at.error]


def test_no_kb_shows_the_build_prompt_and_builds_with_progress(fake_service):
    fake_service.built = False
    at = open_app()
    assert not at.exception
    assert [b.label for b in at.button] == ["Build the demo knowledge base now"]
    assert not at.text_area, "the Ask page must wait for a knowledge base"
    at.button(key="landing.build").click().run()
    assert not at.exception
    assert fake_service.builds == ["demo"]
    assert "Build the demo knowledge base now" not in [b.label for b in at.button]
    assert at.text_area(key="ask.question")


def test_a_mistyped_environment_variable_is_named_on_the_page(fake_service, monkeypatch):
    monkeypatch.setenv("MEDDIAG_BACKEND", "graphrag")
    at = open_app()
    assert not at.exception
    assert any("MEDDIAG_BACKEND='graphrag'" in e for e in errors(at))
    assert not at.text_area, "nothing runs on settings it cannot use"


def test_settings_and_kb_pages_open_without_a_kb(fake_service):
    fake_service.built = False
    for page in ("pages/settings.py", "pages/knowledge_base.py"):
        at = open_app(page)
        assert not at.exception
        assert "Build the demo knowledge base now" not in [b.label for b in at.button]


def test_ask_page_has_its_widgets(fake_service):
    at = open_app()
    assert at.text_area(key="ask.question")
    assert at.selectbox(key="ask.backend").options == ["lightrag", "minirag", "pathrag", "hypergraphrag"]
    assert at.slider(key="ask.max_hops").value == 4
    assert at.multiselect(key="ask.observed") is not None
    assert at.number_input(key="ask.age").value is None
    assert any("not for clinical decisions" in w.value for w in at.warning)


def test_empty_question_gives_a_message_not_a_traceback(fake_service):
    at = open_app()
    at.button(key="ask.submit").click().run()
    assert not at.exception
    assert errors(at) == ["Please type a question or choose findings in the patient form."]
    assert fake_service.asked == []


def test_patient_form_searches_terms_by_synonym_and_sends_ids(fake_service):
    at = open_app()
    at.text_input(key="ask.term_query").input("long fingers").run()
    options = at.multiselect(key="ask.observed").options
    assert "Arachnodactyly · HP:0001166" in options
    at.multiselect(key="ask.observed").select("Arachnodactyly · HP:0001166").run()
    at.selectbox(key="ask.sex").select("male").run()
    at.selectbox(key="ask.onset").select("Infantile onset").run()
    at.text_input(key="ask.genes").input(" FBN1, TGFBR2 ;").run()
    at.button(key="ask.submit").click().run()
    assert not at.exception
    patient = fake_service.asked[0]["patient"]
    assert patient.observed == ["HP:0001166"]
    assert patient.sex == "male"
    assert patient.onset is not None and patient.onset.hpo_id == "HP:0003593"
    assert patient.genes == ["FBN1", "TGFBR2"]


def test_ask_renders_hops_synthesis_citations_graph_and_timeline(fake_service):
    at = open_app()
    at.text_area(key="ask.question").input("Tall boy with long fingers").run()
    at.selectbox(key="ask.backend").select("pathrag").run()
    at.button(key="ask.submit").click().run()
    assert not at.exception
    assert fake_service.asked[0]["backend"] == "pathrag"
    assert at.query_params["q"] == "Tall boy with long fingers"
    assert at.query_params["backend"] == "pathrag"
    markdown = " ".join(m.value for m in at.markdown)
    assert "Semantic · hop 1" in markdown and "Relational · hop 2" in markdown
    assert "Marfan syndrome is the leading diagnosis" in markdown
    captions = [c.value for c in at.caption]
    assert "Understood findings: Arachnodactyly (HP:0001166)" in captions
    assert "Understood as absent: Intellectual disability (HP:0001249)" in captions
    assert "Laboratory values read: sodium 140 — within 135–145 mmol/L" in captions
    assert (
        "Onset: infantile onset (28 days to 1 year) (diseases whose curated onset lies far from it are lowered)"
        in captions
    )
    labels = [e.label for e in at.expander]
    assert any(label.startswith("[1] passage profile/OMIM:154700") for label in labels)
    assert any(label.startswith("[3] triple (Homocystinuria <CBS>") for label in labels)
    frames = [f for f in at.dataframe if "Score" in f.value.columns]
    assert list(frames[0].value["Disease"]) == ["Marfan syndrome", "Homocystinuria"]
    assert not any("practically level" in c for c in captions)  # 0.91 against 0.42
    iframes = at.get("iframe")
    assert len(iframes) == 2  # one per relational hop with triples
    assert "Arachnodactyly" in vis_node_labels(iframes[0].proto.srcdoc)
    assert "FBN1" in vis_node_labels(iframes[1].proto.srcdoc)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {"semantic", "relational"} <= {trace["name"] for trace in spec["data"]}
    assert [b.proto.label for b in at.get("download_button")] == [
        "Export case (JSON)",
        "Export case (Markdown)",
    ]


def test_rows_closer_than_the_table_shows_are_named_under_it(fake_service, monkeypatch):
    monkeypatch.setattr(fake_service_module, "sample_result", near_tie_sample_result)
    at = open_app()
    at.text_area(key="ask.question").input("Tall boy with long fingers").run()
    at.button(key="ask.submit").click().run()
    assert not at.exception
    assert (
        "Places 1 and 2 differ by less than 0.01 in score: practically level on this evidence, "
        "so their order is no preference." in [c.value for c in at.caption]
    )


def _open_at_address(**query: str) -> AppTest:
    """The app as a browser opens it at an address carrying `query`."""
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def test_a_shared_link_reproduces_the_case(fake_service):
    at = _open_at_address(q="Tall boy with long fingers", backend="minirag")
    assert not at.exception
    assert at.text_area(key="ask.question").value == "Tall boy with long fingers"
    assert fake_service.asked[0]["backend"] == "minirag"
    assert at.session_state[ASK_RESULT] is not None
    at.run()  # a rerun of the same link does not ask again
    assert len(fake_service.asked) == 1


def test_left_out_sources_reach_the_engine_and_the_link(fake_service):
    at = open_app()
    at.text_area(key="ask.question").input("Tall boy with long fingers")
    at.text_input(key=ASK_HIDDEN_SOURCES).input("pmid:31021519, 558")
    at.button(key="ask.submit").click().run()
    assert not at.exception and not errors(at)
    assert fake_service.asked[-1]["exclude_sources"] == {"PMID:31021519", "PMID:558"}
    assert at.query_params["exclude"] == "PMID:31021519, PMID:558"


def test_a_link_with_left_out_sources_reproduces_them(fake_service):
    at = _open_at_address(q="Tall boy with long fingers", exclude="PMID:4")
    assert not at.exception
    assert at.text_input(key=ASK_HIDDEN_SOURCES).value == "PMID:4"
    assert fake_service.asked[0]["exclude_sources"] == {"PMID:4"}
    assert any("sources left out: PMID:4" in c.value for c in at.caption)


def test_a_source_that_is_not_an_id_is_refused_before_asking(fake_service):
    at = open_app()
    at.text_area(key="ask.question").input("Tall boy with long fingers")
    at.text_input(key=ASK_HIDDEN_SOURCES).input("the Smith paper")
    at.button(key="ask.submit").click().run()
    assert not at.exception
    assert any("Not a source id" in e for e in errors(at))
    assert fake_service.asked == []


def test_a_handed_over_address_opens_the_page_it_asked_for(fake_service):
    """What `require_navigation` sends when a page ran without the app: the app goes on to it."""
    at = _open_at_address(page="settings", keep="this")
    assert not at.exception
    assert [t.value for t in at.title] == ["Settings"]
    assert dict(at.query_params) == {"keep": "this"}


def test_settings_saves_session_defaults_and_reports_health(fake_service):
    at = open_app("pages/settings.py")
    assert not at.exception
    at.radio(key="settings.reasoner").set_value("llm").run()
    at.text_input(key="settings.llm_base_url").input("http://localhost:9/v1").run()
    at.button[0].click().run()  # Test connection
    assert any("Cannot reach http://localhost:9/v1" in e for e in errors(at))
    at.selectbox(key="settings.backend").select("minirag").run()
    at.slider(key="settings.max_hops").set_value(2).run()
    at.button(key="settings.save").click().run()
    saved = at.session_state["settings.defaults"]
    assert (saved.backend, saved.max_hops, saved.reasoner) == ("minirag", 2, "llm")


def test_settings_refuses_an_address_it_could_not_use_and_keeps_the_old_ones(fake_service):
    at = open_app("pages/settings.py")
    at.text_input(key="settings.milvus_uri").input("localhost:19530").run()
    at.button(key="settings.save").click().run()
    assert not at.exception
    assert any("Not saved. Milvus URI: write it as http://host:19530" in e for e in errors(at))
    assert at.session_state["settings.defaults"].milvus_uri == ""
    at.switch_page("pages/ask.py").run()  # the session still works
    assert not at.exception and at.text_area(key="ask.question")


def test_explorer_finds_an_entity_and_draws_its_neighbourhood(fake_service):
    at = open_app("pages/graph_explorer.py")
    at.text_input(key="explorer.query").input("marfan").run()
    at.button(key="explorer.show").click().run()
    assert not at.exception
    labels = vis_node_labels(at.get("iframe")[0].proto.srcdoc)
    assert set(labels) == {"Marfan syndrome", "Arachnodactyly"}
    assert at.selectbox(key="explorer.next").options == ["Arachnodactyly · HP:0001166 (Phenotype)"]


def test_compare_needs_a_question(fake_service):
    at = open_app("pages/compare_backends.py")
    at.button(key="compare.run").click().run()
    assert errors(at) == ["Please type a question to compare."]


def test_evaluation_needs_a_file_and_shows_tag_summary(fake_service):
    at = open_app("pages/evaluation.py")
    assert not at.exception
    at.button(key="eval.run").click().run()
    assert errors(at) == ["Please upload a phenopacket file or type its path."]
    summary = at.dataframe[-1].value
    assert list(summary["Cases"]) == [0, 0, 0, 0, 0]


def test_evaluation_cases_can_be_narrowed_to_the_misses(fake_service, tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text("{}\n")
    at = open_app("pages/evaluation.py")
    at.text_input(key="eval.path").input(str(cases)).run()
    at.button(key="eval.run").click().run()
    at.segmented_control(key="eval.case_filter").set_value("not ranked first").run()
    assert not at.exception
    table = next(f.value for f in at.dataframe if "Gold rank" in f.value.columns)
    assert list(table["Case"]) == ["PMID_2_Other"]
    assert at.selectbox(key="eval.case").options == ["PMID_2_Other"]  # the drill-down follows
    at.segmented_control(key="eval.case_filter").set_value("with an error").run()
    assert not at.exception
    assert "No case to inspect." in [i.value for i in at.info]


def test_evaluation_runs_charts_drills_into_a_case_and_saves_a_tag(fake_service, tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text("{}\n")
    at = open_app("pages/evaluation.py")
    at.text_input(key="eval.path").input(str(cases)).run()
    at.number_input(key="eval.limit").set_value(2).run()
    at.button(key="eval.run").click().run()
    assert not at.exception, at.exception
    assert fake_service.evaluated[0]["limit"] == 2
    assert fake_service.evaluated[0]["input_form"] == "text"
    titles = {json.loads(c.proto.spec)["layout"].get("title", {}).get("text") for c in at.get("plotly_chart")}
    assert {"Top-k accuracy", "Rank of the correct diagnosis", "Latency per case"} <= titles
    table = next(f.value for f in at.dataframe if "Gold rank" in f.value.columns)
    assert list(table["Case"]) == ["PMID_1_Marfan", "PMID_2_Other"]
    assert table["Gold facts from own paper (%)"].iloc[0] == 25  # 2 of the disease's 8 facts
    assert table["Gold facts also from own paper (%)"].iloc[0] == 50  # 4 more share other sources
    assert list(table["Top 3"]) == ["Marfan syndrome; Homocystinuria", "OMIM:154700"]  # names when known
    assert any(
        "2 of the diagnosis' 8 phenotype facts rest only on this case's own publications (hidden" in c.value
        for c in at.caption
    )
    assert any(
        "4 more rest on them and on other sources, and were seen without the frequency" in c.value
        for c in at.caption
    )
    # drill-down shows the first case's hops, reusing the Ask page's renderers
    assert "Semantic · hop 1" in " ".join(m.value for m in at.markdown)
    assert len(at.get("iframe")) == 2
    # a form sends its widgets' values together with the submit click
    at.selectbox(key="eval.tag_type").select("spurious triple")
    at.text_area(key="eval.tag_comment").input("Homocystinuria triple is off-topic")
    at.button[-1].click().run()
    assert not at.exception
    summary = at.dataframe[-1].value
    assert dict(zip(summary["Error type"], summary["Cases"], strict=True))["spurious triple"] == 1
    saved = (tmp_path / "annotations" / "error_tags.jsonl").read_text()
    assert "PMID_1_Marfan" in saved and "off-topic" in saved


@pytest.mark.parametrize(
    ("checkbox", "asked", "label"),
    [
        ("eval.structured", {"input_form": "structured", "genes": False}, "lightrag · both · patient form"),
        ("eval.genes", {"input_form": "text", "genes": True}, "lightrag · both · genes named"),
    ],
)
def test_evaluation_options_reach_the_run_and_label_it(fake_service, tmp_path, checkbox, asked, label):
    cases = tmp_path / "cases.jsonl"
    cases.write_text("{}\n")
    at = open_app("pages/evaluation.py")
    at.text_input(key="eval.path").input(str(cases)).run()
    at.checkbox(key=checkbox).check().run()
    at.button(key="eval.run").click().run()
    assert not at.exception, at.exception
    assert {k: fake_service.evaluated[-1][k] for k in asked} == asked
    assert any(f"Latest run: {label}" in h.value for h in at.subheader)


def test_evaluation_reports_a_missing_file(fake_service, tmp_path):
    at = open_app("pages/evaluation.py")
    at.text_input(key="eval.path").input(str(tmp_path / "nope.jsonl")).run()
    at.button(key="eval.run").click().run()
    assert not at.exception
    assert errors(at) == [f"No phenopacket file or folder at {tmp_path / 'nope.jsonl'}."]
