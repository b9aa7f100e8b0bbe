from __future__ import annotations

from meddiag.diagnosis.text_scoring import disease_of_doc, score_passages
from meddiag.schema import TextEvidence


def passage(doc_id: str, text: str) -> TextEvidence:
    return TextEvidence(ref_id=doc_id, doc_id=doc_id, text=text)


PASSAGES = [
    passage(
        "mondo/MONDO:0007947",
        "Marfan syndrome is marked by arachnodactyly, ectopia lentis and aortic dilatation.",
    ),
    passage(
        "profile/OMIM:147791",
        "Jacobsen syndrome features trigonocephaly, thrombocytopenia and heart defects.",
    ),
    passage("hpo/HP:0001166", "Arachnodactyly: abnormally long and slender fingers."),
]


def test_doc_ids_name_their_disease() -> None:
    assert disease_of_doc("profile/OMIM:147791") == "OMIM:147791"
    assert disease_of_doc("mondo/MONDO:0007947#2") == "MONDO:0007947"
    assert disease_of_doc("hpo/HP:0001166") is None


def test_passage_naming_the_findings_scores_its_disease_highest() -> None:
    scores = score_passages(["Arachnodactyly", "Ectopia lentis"], PASSAGES)
    assert set(scores) == {"MONDO:0007947", "OMIM:147791"}  # the HPO definition is no disease
    assert scores["MONDO:0007947"] > scores["OMIM:147791"]


def test_equivalent_ids_receive_the_passage_score() -> None:
    scores = score_passages(["Trigonocephaly"], PASSAGES, equivalents={"OMIM:147791": ["ORPHA:2308"]})
    assert scores["ORPHA:2308"] == scores["OMIM:147791"] > 0


def test_no_findings_or_passages_give_no_scores() -> None:
    assert score_passages([], PASSAGES) == {}
    assert score_passages(["Trigonocephaly"], []) == {}
