from __future__ import annotations

import json
from pathlib import Path

import pytest

from meddiag.engine.inputs import pubmed_id
from meddiag.errors import InputError
from meddiag.eval.phenopackets import Case, duration_years, load_cases


def packet(
    pid: str = "PMID_1_p1",
    *,
    features: list[tuple[str, str, bool]] | None = None,
    disease: str | None = "OMIM:147791",
    age: str | None = "P6Y",
    sex: str = "FEMALE",
) -> dict:
    feats = (
        features
        if features is not None
        else [("HP:0000348", "High forehead", False), ("HP:0000243", "Trigonocephaly", True)]
    )
    doc: dict = {
        "id": pid,
        "subject": {"id": "p1", "sex": sex},
        "phenotypicFeatures": [
            {"type": {"id": i, "label": label}, **({"excluded": True} if exc else {})}
            for i, label, exc in feats
        ],
        "metaData": {"externalReferences": [{"id": "PMID:15266616", "description": "a cohort"}]},
    }
    if age is not None:
        doc["subject"]["timeAtLastEncounter"] = {"age": {"iso8601duration": age}}
    if disease is not None:
        doc["interpretations"] = [
            {
                "id": "i1",
                "diagnosis": {
                    "disease": {"id": disease, "label": "Jacobsen syndrome"},
                    "genomicInterpretations": [
                        {
                            "subjectOrBiosampleId": "p1",
                            "variantInterpretation": {
                                "variationDescriptor": {"geneContext": {"symbol": "ETS1"}}
                            },
                        }
                    ],
                },
            }
        ]
    return doc


def write_jsonl(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_valid_case_keeps_the_fields_the_evaluation_uses(tmp_path: Path) -> None:
    result = load_cases(write_jsonl(tmp_path, [json.dumps(packet())]))
    (case,) = result.cases
    assert [f.id for f in case.observed] == ["HP:0000348"]
    assert [f.label for f in case.excluded] == ["Trigonocephaly"]
    assert case.age_years == pytest.approx(6.0)
    assert case.sex == "female"
    assert case.diseases == ["OMIM:147791"]
    assert case.genes == ["ETS1"]
    assert case.pmids == ["PMID:15266616"]
    assert case.sources == frozenset({"PMID:15266616"})
    assert case.publication == "PMID:15266616"


def test_publications_are_read_in_the_knowledge_base_spelling(tmp_path: Path) -> None:
    # A PMID spelt otherwise than the knowledge base cites it would hide none of its facts.
    assert pubmed_id("pmid: 015266616 ") == "PMID:15266616"
    assert pubmed_id("DOI:10.1002/ajmg.a.1") is None
    assert pubmed_id("PMID:not-a-number") is None
    doc = packet()
    doc["metaData"]["externalReferences"] = [
        {"id": "pmid:15266616"},
        {"id": "PMID: 15266616"},
        {"id": "DOI:10.1002/ajmg.a.1"},
        {"id": "PMID:20301425"},
    ]
    (case,) = load_cases(write_jsonl(tmp_path, [json.dumps(doc)])).cases
    assert case.pmids == ["PMID:15266616", "PMID:20301425"]


def test_a_case_is_grouped_by_its_first_paper_or_else_by_itself() -> None:
    base = {"id": "c1", "observed": [], "diseases": ["OMIM:1"]}
    assert Case(**base, pmids=["PMID:9", "PMID:10"]).publication == "PMID:10"
    assert Case(**base).publication == "c1"


def test_a_feature_listed_twice_counts_once_and_observed_wins_over_excluded(tmp_path: Path) -> None:
    feats = [
        ("HP:0000348", "High forehead", False),
        ("HP:0000243", "Trigonocephaly", True),
        ("HP:0000348", "High forehead", False),
        ("HP:0001250", "Seizure", True),
        ("HP:0000243", "Trigonocephaly", False),
        ("HP:0001250", "Seizure", True),
    ]
    (case,) = load_cases(write_jsonl(tmp_path, [json.dumps(packet(features=feats))])).cases
    assert [f.id for f in case.observed] == ["HP:0000348", "HP:0000243"]
    assert [f.id for f in case.excluded] == ["HP:0001250"]


def test_bad_lines_are_counted_by_reason_and_never_stop_the_load(tmp_path: Path) -> None:
    lines = [
        json.dumps(packet("ok")),
        "{not json",
        json.dumps({"subject": {}}),  # no id: fails validation
        json.dumps(packet("nodx", disease=None)),
        json.dumps(packet("onlyexcluded", features=[("HP:0000243", "Trigonocephaly", True)])),
    ]
    result = load_cases(write_jsonl(tmp_path, lines))
    assert [c.id for c in result.cases] == ["ok"]
    assert result.skipped == {"malformed": 2, "no_diagnosis": 1, "no_observed_feature": 1}


def test_a_line_that_is_not_utf8_is_counted_as_malformed(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    good = json.dumps(packet("ok")).encode()
    path.write_bytes(good + b"\n" + b'{"id": "\xff\xfe"}\n' + json.dumps(packet("ok2")).encode() + b"\n")
    result = load_cases(path)
    assert [c.id for c in result.cases] == ["ok", "ok2"]
    assert result.skipped == {"malformed": 1}


def test_files_saved_with_a_byte_order_mark_load(tmp_path: Path) -> None:
    single = tmp_path / "a.json"
    single.write_bytes(b"\xef\xbb\xbf" + json.dumps(packet("a")).encode())
    assert [c.id for c in load_cases(single).cases] == ["a"]


def test_diseases_block_is_the_fallback_diagnosis(tmp_path: Path) -> None:
    doc = packet(disease=None)
    doc["diseases"] = [{"term": {"id": "OMIM:100800", "label": "Achondroplasia"}}]
    (case,) = load_cases(write_jsonl(tmp_path, [json.dumps(doc)])).cases
    assert case.diseases == ["OMIM:100800"]


def _onset_of(tmp_path: Path, doc: dict) -> tuple[float, float, str] | None:
    (case,) = load_cases(write_jsonl(tmp_path, [json.dumps(doc)])).cases
    return None if case.onset is None else (case.onset.low_years, case.onset.high_years, case.onset.label)


def test_the_onset_is_the_diseases_else_the_earliest_observed_features(tmp_path: Path) -> None:
    assert _onset_of(tmp_path, packet()) is None
    doc = packet(
        features=[
            ("HP:0000348", "High forehead", False),
            ("HP:0001250", "Seizure", False),
            ("HP:0000243", "x", True),
        ]
    )
    doc["phenotypicFeatures"][0]["onset"] = {"age": {"iso8601duration": "P2Y"}}
    doc["phenotypicFeatures"][1]["onset"] = {
        "ontologyClass": {"id": "HP:0003593", "label": "Infantile onset"}
    }
    doc["phenotypicFeatures"][2]["onset"] = {"gestationalAge": {"weeks": 20}}  # excluded: not an onset
    assert _onset_of(tmp_path, doc) == pytest.approx((28 / 365.25, 1.0, "infantile onset"))
    doc["diseases"] = [
        {"term": {"id": "OMIM:147791", "label": "J"}, "onset": {"gestationalAge": {"weeks": 33, "days": 0}}}
    ]
    low, high, label = _onset_of(tmp_path, doc) or (0, 0, "")
    assert low == high == pytest.approx((33 * 7 - 280) / 365.25)
    assert label == "onset at 33 weeks of gestation"
    # an onset class that names no age is no onset
    doc["diseases"][0]["onset"] = {"ontologyClass": {"id": "HP:4000040", "label": "Puerpural onset"}}
    assert _onset_of(tmp_path, doc) == pytest.approx((28 / 365.25, 1.0, "infantile onset"))


def test_directory_and_single_file_load_alike(tmp_path: Path) -> None:
    folder = tmp_path / "packets"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(packet("a")), encoding="utf-8")
    (folder / "b.json").write_text(json.dumps(packet("b", age=None, sex="UNKNOWN_SEX")), encoding="utf-8")
    cases = load_cases(folder).cases
    assert [c.id for c in cases] == ["a", "b"]
    assert cases[1].age_years is None and cases[1].sex == "unknown"
    assert [c.id for c in load_cases(folder / "a.json").cases] == ["a"]


def test_missing_path_raises_a_readable_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="No phenopackets"):
        load_cases(tmp_path / "nowhere.jsonl")


@pytest.mark.parametrize(
    ("iso", "years"),
    [("P6Y", 6.0), ("P3M", 0.25), ("P1Y6M", 1.5), ("P30D", 30 / 365.25), ("P2W", 14 / 365.25), ("P0D", 0.0)],
)
def test_iso_durations_become_years(iso: str, years: float) -> None:
    assert duration_years(iso) == pytest.approx(years)


@pytest.mark.parametrize("iso", ["", "P", "6 years", "PXY"])
def test_unreadable_durations_are_unknown(iso: str) -> None:
    assert duration_years(iso) is None
