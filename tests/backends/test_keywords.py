"""Offline dual-level keywords: entities named in the query, and the question's themes."""

from __future__ import annotations

import time

from meddiag.backends.keywords import extract_keywords, phrases
from tests.backends.fakes import FakeKB
from tests.backends.hand_kb import ARACHNO, ECTOPIA, MARFAN, TALL


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


def test_keyword_extraction_is_fast(kb: FakeKB) -> None:
    extract_keywords("warm-up", kb)
    start = time.perf_counter()
    extract_keywords("Arachnodactyly, ectopia lentis, tall stature and aortic root aneurysm in a boy", kb)
    assert time.perf_counter() - start < 0.5  # generous: the bench measures the real number


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
