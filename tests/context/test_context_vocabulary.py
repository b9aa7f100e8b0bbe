"""The shared vocabulary of the formats: predicate words and section routing."""

from __future__ import annotations

import pytest

from meddiag.backends import formats
from meddiag.context_filter import ROUTING
from meddiag.knowledge.model import PREDICATES
from meddiag.schema import TextEvidence


def test_every_kb_predicate_has_words_that_map_back() -> None:
    assert set(formats.PREDICATE_WORDS) == set(PREDICATES)
    for predicate in PREDICATES:
        assert formats.predicate_from_words(formats.predicate_words(predicate)) == predicate


@pytest.mark.parametrize(
    ("words", "predicate"),
    [
        ("Has  Phenotype", "HAS_PHENOTYPE"),
        ("associated gene", "ASSOCIATED_GENE"),
        ("HAS_ONSET", "HAS_ONSET"),
        ("genetic cause, causal gene", formats.FALLBACK_PREDICATE),
        ("", formats.FALLBACK_PREDICATE),
    ],
)
def test_keywords_map_to_predicates(words: str, predicate: str) -> None:
    assert formats.predicate_from_words(words) == predicate


def test_every_section_feeds_exactly_one_channel() -> None:
    for backend, sections in formats.SECTIONS.items():
        routed = [s for channel in ("semantic", "relational") for s in ROUTING[backend][channel]]
        assert sorted(routed) == sorted(sections), backend


def test_lightrag_references_number_sources_by_frequency_then_first_appearance() -> None:
    docs = ["hpo/HP:0001166", "profile/OMIM:154700", "", "profile/OMIM:154700", "mondo/MONDO:0007947"]
    passages = [TextEvidence(ref_id=str(i), doc_id=d, text="t") for i, d in enumerate(docs)]
    assert formats.lightrag_references(passages) == {
        "profile/OMIM:154700": "1",
        "hpo/HP:0001166": "2",
        "mondo/MONDO:0007947": "3",
    }
