"""Every page on the real service and the demo knowledge base."""

from __future__ import annotations

import html
import json

import pytest

from meddiag.ui.state import ASK_RESULT, COMPARE_RESULTS

from .conftest import open_app
from .vis_html import vis_node_labels

pytestmark = pytest.mark.timeout(1800)

# A whole question through both channels can take minutes on a busy two-core machine.
RUN_TIMEOUT = 900

QUESTION = "A tall boy with arachnodactyly, ectopia lentis and aortic root dilatation. What is the diagnosis?"


def _marfan_phenopacket(case_id: str) -> dict:
    features = [
        ("HP:0001166", "Arachnodactyly"),
        ("HP:0001083", "Ectopia lentis"),
        ("HP:0002616", "Aortic root aneurysm"),
        ("HP:0000098", "Tall stature"),
    ]
    return {
        "id": case_id,
        "subject": {"id": "P1", "sex": "MALE", "timeAtLastEncounter": {"age": {"iso8601duration": "P12Y"}}},
        "phenotypicFeatures": [{"type": {"id": i, "label": label}} for i, label in features],
        "interpretations": [
            {"diagnosis": {"disease": {"id": "OMIM:154700", "label": "Marfan syndrome"}}},
        ],
        "metaData": {"externalReferences": [{"id": "PMID:00000001"}]},
    }


def test_ask_on_the_demo_kb_renders_hops_synthesis_citations_and_subgraphs(real_service):
    at = open_app(timeout=RUN_TIMEOUT)
    at.text_area(key="ask.question").input(QUESTION).run()
    at.button(key="ask.submit").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    result = at.session_state[ASK_RESULT]
    assert result.synthesis.differential, "the demo KB should support at least one candidate"
    markdown = " ".join(m.value for m in at.markdown)
    assert "Semantic · hop 1" in markdown and "Relational · hop 1" in markdown
    assert result.synthesis.answer.splitlines()[0] in markdown
    citation_labels = [e.label for e in at.expander if e.label.startswith("[")]
    assert len(citation_labels) == len(result.synthesis.citations) > 0
    frames = [f.value for f in at.dataframe if "Score" in f.value.columns]
    assert list(frames[0]["ID"]) == [d.id for d in result.synthesis.differential]
    # each drawn subgraph holds the labels of its hop's triples
    hops_with_triples = [h for h in result.relational.hops if h.triples]
    iframes = at.get("iframe")
    assert len(iframes) == len(hops_with_triples) > 0
    for hop, frame in zip(hops_with_triples, iframes, strict=True):
        labels = set(vis_node_labels(frame.proto.srcdoc))
        names = {html.escape(t.subject) for t in hop.triples} | {html.escape(t.object) for t in hop.triples}
        assert names == labels
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {"semantic", "relational"} <= {trace["name"] for trace in spec["data"]}


def test_a_gene_named_in_the_form_ranks_its_disease_first_and_says_so(real_service):
    at = open_app(timeout=RUN_TIMEOUT)
    at.text_area(key="ask.question").input(
        "A 14-year-old boy presents with tall stature, arachnodactyly and aortic root aneurysm."
    ).run()
    at.text_input(key="ask.genes").input("TGFBR2").run()  # the form's only entry
    at.button(key="ask.submit").click().run()
    assert not at.exception, at.exception
    result = at.session_state[ASK_RESULT]
    top = result.synthesis.differential[0]
    assert (top.name, top.genes) == ("Loeys-Dietz syndrome 2", ["TGFBR2"])
    assert "Genes with a reported variant: TGFBR2 (the diseases linked to them are ranked first)" in [
        c.value for c in at.caption
    ]
    frames = [f.value for f in at.dataframe if "Score" in f.value.columns]
    assert frames[0]["Findings for"][0].startswith("named gene TGFBR2")


def test_a_features_question_lists_the_diseases_features_and_no_differential(real_service):
    at = open_app(timeout=RUN_TIMEOUT)
    at.text_area(key="ask.question").input("What are the characteristic features of Marfan syndrome?").run()
    at.button(key="ask.submit").click().run()
    assert not at.exception, at.exception
    result = at.session_state[ASK_RESULT]
    assert result.parsed.kind == "features" and not result.synthesis.differential
    assert "Annotated features of Marfan syndrome:" in result.synthesis.answer
    assert not [f for f in at.dataframe if "Score" in f.value.columns]
    assert not [i.value for i in at.info if "No candidate diagnosis" in i.value]
    captions = [c.value for c in at.caption]
    assert "Understood as a question about the features of Marfan syndrome." in captions
    assert not [c for c in captions if c.startswith("Understood findings")]
    # the text channel read Marfan syndrome's own text, not another disease's
    first = result.semantic.hops[0]
    assert first.passages and first.passages[0].doc_id.endswith(":154700")
    assert first.sub_answer.startswith("Features the passages describe for Marfan syndrome")


def test_explorer_walks_from_marfan_to_a_neighbour(real_service):
    at = open_app("pages/graph_explorer.py", timeout=RUN_TIMEOUT)
    at.text_input(key="explorer.query").input("Marfan syndrome").run()
    assert any("OMIM:154700" in o for o in at.selectbox(key="explorer.match").options)
    at.selectbox(key="explorer.match").select("OMIM:154700").run()
    at.button(key="explorer.show").click().run()
    assert not at.exception, at.exception
    labels = vis_node_labels(at.get("iframe")[0].proto.srcdoc)
    assert "Marfan syndrome" in labels and len(labels) > 1
    neighbour = at.selectbox(key="explorer.next").value
    at.button(key="explorer.go").click().run()
    assert not at.exception
    assert at.session_state["explorer.entity"] == neighbour
    assert at.subheader[0].value.endswith(f" · {neighbour}")
    assert "Marfan syndrome" in vis_node_labels(at.get("iframe")[0].proto.srcdoc)


def test_compare_runs_all_four_backends(real_service):
    at = open_app("pages/compare_backends.py", timeout=RUN_TIMEOUT)
    at.text_area(key="compare.question").input(QUESTION).run()
    at.button(key="compare.run").click().run()
    assert not at.exception, at.exception
    runs = at.session_state[COMPARE_RESULTS]
    assert [r.backend for r in runs] == ["lightrag", "minirag", "pathrag", "hypergraphrag"]
    assert all(not r.error for r in runs), [r.error for r in runs]
    assert [h.value for h in at.subheader] == ["lightrag", "minirag", "pathrag", "hypergraphrag"]
    assert len([e for e in at.expander if e.label == "Raw context"]) == 4


def test_a_knowledge_base_from_an_older_version_gets_a_message_not_a_traceback(private_real_service):
    from meddiag.knowledge.manifest import MANIFEST_FILE, SCHEMA_VERSION

    path = private_real_service / "kb" / "demo" / MANIFEST_FILE
    older = json.loads(path.read_text())
    older["schema_version"] = SCHEMA_VERSION - 1
    path.write_text(json.dumps(older))
    at = open_app(timeout=RUN_TIMEOUT)
    at.text_area(key="ask.question").input(QUESTION).run()
    at.button(key="ask.submit").click().run()
    assert not at.exception, at.exception
    assert any("build it again on the Knowledge base page" in e.value for e in at.error)


def test_knowledge_base_page_shows_manifest_and_attribution(real_service):
    at = open_app("pages/knowledge_base.py", timeout=RUN_TIMEOUT)
    assert not at.exception, at.exception
    assert [m.label for m in at.metric][:2] == ["Profile", "HPO release"]
    assert at.metric[0].value == "demo"
    captions = " ".join(c.value for c in at.caption)
    assert "This product uses the Human Phenotype Ontology" in captions and "CC BY 4.0" in captions
    sources = at.dataframe[0].value
    assert len(sources) >= 2


def test_uploading_documents_reports_each_file(private_real_service):
    at = open_app("pages/knowledge_base.py", timeout=RUN_TIMEOUT)
    at.get("file_uploader")[0].set_value(
        [
            (
                "loeys-notes.md",
                b"# Loeys-Dietz notes\n\nArterial tortuosity and bifid uvula suggest Loeys-Dietz.",
                "text/markdown",
            ),
            ("broken.pdf", b"this is not a pdf", "application/pdf"),
        ]
    )
    at.run()
    at.button(key="kb.add").click().run()
    assert not at.exception, at.exception
    assert [s.value.split(":")[0] for s in at.success] == ["loeys-notes.md"]
    assert [e.value.split(":")[0] for e in at.error] == ["broken.pdf"]


def test_evaluation_runs_on_a_small_phenopacket_file(real_service, tmp_path):
    lines = "\n".join(json.dumps(_marfan_phenopacket(f"case-{i}")) for i in range(2)) + "\n"
    at = open_app("pages/evaluation.py", timeout=RUN_TIMEOUT)
    at.get("file_uploader")[0].set_value(("cases.jsonl", lines.encode(), "application/json"))
    at.run()
    at.number_input(key="eval.limit").set_value(2).run()
    at.button(key="eval.run").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    table = next(f.value for f in at.dataframe if "Gold rank" in f.value.columns)
    assert sorted(table["Case"]) == ["case-0", "case-1"]
    assert "Semantic · hop 1" in " ".join(m.value for m in at.markdown)


def test_settings_checks_the_local_milvus_file(real_service):
    at = open_app("pages/settings.py", timeout=RUN_TIMEOUT)
    next(b for b in at.button if b.label == "Check Milvus").click().run()
    assert not at.exception, at.exception
    assert at.success or at.error
