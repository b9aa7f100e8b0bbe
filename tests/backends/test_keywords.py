"""Offline dual-level keywords: entities named in the query, and the question's themes."""

from __future__ import annotations

from meddiag.backends.keywords import _linkable_by, extract_keywords, phrases
from meddiag.knowledge.model import Entity
from tests.backends.fakes import FakeKB, load
from tests.backends.hand_kb import ARACHNO, ECTOPIA, MARFAN, TALL, hand_kb


def test_phrases_drop_filler_but_keep_disease_nouns() -> None:
    assert phrases("What is the diagnosis for a 3 year old boy with arachnodactyly, ectopia lentis?") == [
        "arachnodactyly",
        "ectopia lentis",
    ]
    assert "gaucher disease" in phrases("Could it be Gaucher disease?")


def test_low_level_keywords_link_names_and_synonyms(kb: FakeKB) -> None:
    kw = extract_keywords("Long slender fingers, dislocated lens and tall stature; what is it?", kb)
    assert {ARACHNO, ECTOPIA, TALL} <= set(kw.entity_ids)
    assert "Arachnodactyly" in kw.low
    assert kw.answer_type == "Disease"


def test_a_phrase_naming_nothing_stays_a_low_level_keyword(kb: FakeKB) -> None:
    kw = extract_keywords("Arachnodactyly and a strange purple rash", kb)
    assert kw.entity_ids == [ARACHNO]
    assert "strange purple rash" in kw.low


def test_high_level_keywords_and_answer_type_follow_the_question(kb: FakeKB) -> None:
    genes = extract_keywords("Which genes cause Marfan syndrome?", kb)
    assert "genes" in genes.high and "ASSOCIATED_GENE" in genes.predicates
    assert genes.answer_type == "Gene"
    assert MARFAN in genes.entity_ids
    inheritance = extract_keywords("How is Marfan syndrome inherited?", kb)
    assert inheritance.answer_type == "Inheritance"
    features = extract_keywords("Marfan syndrome", kb)
    assert features.answer_type == "Phenotype"


def test_phrases_that_are_exact_names_link_without_a_name_vector_search() -> None:
    kb = load(hand_kb())  # its own stores: nothing remembered from other tests
    kw = extract_keywords("Arachnodactyly, ectopia lentis, tall stature and a strange purple rash", kb)
    assert {ARACHNO, ECTOPIA, TALL} <= set(kw.entity_ids)
    # Only the phrase that names nothing exactly was searched among the name vectors.
    assert [(c, n) for c, n in kb.vectors.calls if c.endswith("entity_names")] == [
        (kb.collection("entity_names"), 1)
    ]


def test_a_disease_class_links_by_its_own_name_only() -> None:
    group = Entity(id="MONDO:1", type="DiseaseClass", name="Seizure disorder", synonyms=["Seizure"])
    disease = Entity(id="OMIM:1", type="Disease", name="Some syndrome", synonyms=["Seizure"])
    assert _linkable_by(group, "seizure disorder") and not _linkable_by(group, "Seizure")
    assert _linkable_by(disease, "Seizure")


def test_negated_findings_do_not_steer_retrieval(kb: FakeKB) -> None:
    kw = extract_keywords(
        "A 6-year-old boy with arachnodactyly. He has no ectopia lentis and no tall stature.", kb
    )
    assert kw.entity_ids == [ARACHNO]
    assert kw.negated == ["ectopia lentis", "tall stature"]
    assert not any("year" in k for k in kw.low)


def test_remembered_name_lookups_give_the_same_keywords_and_skip_the_store(kb: FakeKB) -> None:
    query = "Joint hypermobility, hypertelorism and a strange purple rash"
    first = extract_keywords(query, kb)
    before = len(kb.vectors.calls)
    again = extract_keywords(query, kb)
    assert again == first
    assert "entity_names" not in [collection for collection, _ in kb.vectors.calls[before:]]


def test_question_words_around_a_disease_name_are_filler() -> None:
    for question in (
        "What are the characteristic features of Marfan syndrome?",
        "Which genes and inheritance are reported for Marfan syndrome?",
    ):
        assert "marfan syndrome" in phrases(question), question


def test_a_comparison_names_both_diseases_but_from_inside_a_name_stays() -> None:
    assert phrases("What distinguishes Marfan syndrome from Loeys-Dietz syndrome?") == [
        "marfan syndrome",
        "loeys-dietz syndrome",
    ]
    assert phrases("Marfan syndrome versus Loeys-Dietz syndrome") == [
        "marfan syndrome",
        "loeys-dietz syndrome",
    ]
    assert phrases("Anomalous origin of left coronary artery from the pulmonary artery") == [
        "anomalous origin of left coronary artery from the pulmonary artery"
    ]


def test_the_number_of_a_disease_type_is_kept_but_an_age_is_not() -> None:
    assert phrases("What are the features of Gaucher disease type 1?") == ["gaucher disease type 1"]
    assert phrases("A 6-year-old boy aged 6 with seizures") == ["seizures"]
