"""Leaving a publication out hides exactly the evidence that rests on it alone, also in generated text."""

from __future__ import annotations

import pytest

from meddiag.backends.base import Backend, KnowledgeBaseView
from meddiag.backends.registry import get_backend
from meddiag.schema import BACKENDS, ParsedContext
from tests.backends.conftest import ask, links

QUESTION = "Arachnodactyly, ectopia lentis, tall stature and aortic root aneurysm. What is the diagnosis?"
WITHOUT_PMID1 = frozenset({"PMID:1"})
# Facts of the hand KB that rest on PMID:1 alone.
ONLY_PMID1 = {
    ("Marfan syndrome", "HAS_PHENOTYPE", "Ectopia lentis"),
    ("Homocystinuria due to cystathionine beta-synthase deficiency", "HAS_PHENOTYPE", "Arachnodactyly"),
}
# A fact PMID:1 shares with OMIM:154700: its curated frequency is pooled over both.
SHARED_WITH_PMID1 = ("Marfan syndrome", "HAS_PHENOTYPE", "Arachnodactyly")


def _cites(parsed: ParsedContext, source: str) -> list[str]:
    """Every row whose provenance consists of `source` only."""
    rows = [t.key for t in parsed.kg.triples if t.provenance == [source]]
    rows += [h.text for h in parsed.kg.hyperedges if h.provenance == [source]]
    rows += [p.text for p in parsed.text if p.provenance == [source]]
    return rows


def test_excluding_a_publication_removes_exactly_the_facts_resting_only_on_it(backend: Backend) -> None:
    before = links(ask(backend, QUESTION, mode="relational"))
    after_parsed = ask(backend, QUESTION, mode="relational", exclude_sources=WITHOUT_PMID1)
    after = links(after_parsed)
    assert ONLY_PMID1 & before, "the question must reach the facts that rest on PMID:1"
    assert not ONLY_PMID1 & after
    assert not _cites(after_parsed, "PMID:1")


# HyperGraphRAG states features in frequency-band hyperedges, which leave such a fact out
# (test_hyperedges_are_restated_without_the_excluded_facts).
@pytest.mark.parametrize("name", [b for b in BACKENDS if b != "hypergraphrag"])
def test_a_fact_sharing_an_excluded_source_stays_without_its_pooled_frequency(
    name: str, store_kb: KnowledgeBaseView
) -> None:
    backend = get_backend(name, store_kb)
    before = ask(backend, QUESTION, mode="relational")
    after = ask(backend, QUESTION, mode="relational", exclude_sources=WITHOUT_PMID1)
    shared_before = [t for t in before.kg.triples if (t.subject, t.predicate, t.object) == SHARED_WITH_PMID1]
    shared_after = [t for t in after.kg.triples if (t.subject, t.predicate, t.object) == SHARED_WITH_PMID1]
    assert shared_before and shared_before[0].frequency is not None
    assert "frequency" in shared_before[0].description
    assert shared_after, "a fact that PMID:1 shares with another source stays"
    assert shared_after[0].frequency is None and "frequency" not in shared_after[0].description
    assert "PMID:1" not in shared_after[0].provenance


def test_no_row_rests_only_on_an_excluded_source(backend: Backend) -> None:
    parsed = ask(backend, QUESTION, exclude_sources=WITHOUT_PMID1)
    for t in parsed.kg.triples:
        assert set(t.provenance) - WITHOUT_PMID1 or not t.provenance, t
    for p in parsed.text:
        assert set(p.provenance) - WITHOUT_PMID1 or not p.provenance, p.doc_id


def test_generated_profiles_are_rerendered_without_the_excluded_facts(backend: Backend) -> None:
    query = "Marfan syndrome profile: ectopia lentis and arachnodactyly"
    before = ask(backend, query, mode="semantic")
    after = ask(backend, query, mode="semantic", exclude_sources=WITHOUT_PMID1)
    marfan_before = [p for p in before.text if p.doc_id == "profile/OMIM:154700"]
    marfan_after = [p for p in after.text if p.doc_id == "profile/OMIM:154700"]
    assert marfan_before and "Ectopia lentis" in marfan_before[0].text
    assert marfan_after, "the profile still states facts resting on other sources"
    assert "Ectopia lentis" not in marfan_after[0].text
    # also rests on OMIM, but its band would state a frequency PMID:1 was pooled into
    assert "reported without a frequency: Arachnodactyly" not in marfan_before[0].text
    assert "reported without a frequency: Arachnodactyly" in marfan_after[0].text
    assert "PMID:1" not in marfan_after[0].provenance


def test_hyperedges_are_restated_without_the_excluded_facts(kb) -> None:  # type: ignore[no-untyped-def]
    from meddiag.backends.registry import get_backend

    backend = get_backend("hypergraphrag", kb)
    parsed = ask(backend, QUESTION, mode="relational", exclude_sources=WITHOUT_PMID1)
    texts = [h.text for h in parsed.kg.hyperedges]
    assert texts
    assert not any("Marfan" in t and "Ectopia lentis" in t for t in texts)
    # homocystinuria's unbanded features mix PMID:4 (tall stature) and PMID:1 (arachnodactyly)
    assert any("Homocystinuria" in t and "Tall stature" in t for t in texts)
    assert not any("Homocystinuria" in t and "Arachnodactyly" in t for t in texts)
    # Marfan's arachnodactyly also rests on OMIM, but its band drew on PMID:1's frequency
    assert not any("Marfan" in t and "Arachnodactyly" in t for t in texts)
    assert any("Marfan" in t and "Tall stature" in t for t in texts)
