"""How much of a gold disease rests only on the case's own publications."""

from __future__ import annotations

import pytest

from meddiag.eval.own_facts import PhenotypeFacts, own_share_group
from meddiag.eval.questions import equivalence_map
from meddiag.knowledge.model import Relation


def _fact(disease: str, term: str, *sources: str, frequency: float | None = None) -> Relation:
    return Relation(
        subject=disease, predicate="HAS_PHENOTYPE", object=term, sources=list(sources), frequency=frequency
    )


FACTS = PhenotypeFacts.from_relations(
    [
        _fact("OMIM:1", "HP:0000001", "PMID:1"),
        _fact("OMIM:1", "HP:0000002", "PMID:1", "PMID:2", frequency=0.5),  # also rests on another paper
        _fact("OMIM:1", "HP:0000007", "PMID:1", "OMIM:1"),  # the same, but no frequency to lose
        _fact("OMIM:1", "HP:0000003", "OMIM:1"),
        _fact("ORPHA:9", "HP:0000004", "PMID:1"),  # the same disease's Orphanet entry
        _fact("OMIM:2", "HP:0000005", "PMID:1"),  # another disease: never counted for OMIM:1
        Relation(subject="OMIM:1", predicate="HAS_INHERITANCE", object="HP:0000006", sources=["PMID:1"]),
    ],
    equivalents=equivalence_map([("OMIM:1", "MONDO:1"), ("ORPHA:9", "MONDO:1")]),
)


def test_only_facts_resting_on_the_case_papers_alone_are_its_own() -> None:
    # OMIM:1's four phenotype facts and, through MONDO:1, ORPHA:9's one
    assert FACTS.count(["OMIM:1"], frozenset({"PMID:1"}))[:2] == (2, 5)
    assert FACTS.count(["OMIM:1"], frozenset({"PMID:1", "PMID:2"}))[:2] == (3, 5)
    assert FACTS.count(["OMIM:1"], frozenset())[:2] == (0, 5)
    assert FACTS.count(["OMIM:404"], frozenset({"PMID:1"}))[:2] == (0, 0)


def test_a_visible_fact_whose_frequency_drew_on_the_case_papers_is_thinned() -> None:
    # HP:0000002 keeps PMID:2 but loses the frequency PMID:1 was pooled into; HP:0000007
    # keeps OMIM:1 and has no frequency to lose.
    assert FACTS.count(["OMIM:1"], frozenset({"PMID:1"})).thinned == 1
    assert FACTS.count(["OMIM:1"], frozenset({"PMID:2"})).thinned == 1
    assert FACTS.count(["OMIM:1"], frozenset({"PMID:1", "PMID:2"})).thinned == 0  # hidden, not thinned
    assert FACTS.count(["OMIM:1"], frozenset()).thinned == 0


@pytest.mark.parametrize(
    ("own", "total", "group"),
    [
        (0, 5, "none"),
        (1, 4, "half or fewer"),
        (2, 4, "half or fewer"),
        (3, 4, "more than half"),
        (4, 4, "all"),
    ],
)
def test_groups(own: int, total: int, group: str) -> None:
    assert own_share_group(own, total) == group
