"""How much of a gold disease rests only on the case's own publications."""

from __future__ import annotations

import pytest

from meddiag.eval.own_facts import PhenotypeFacts, own_share_group
from meddiag.eval.questions import equivalence_map
from meddiag.knowledge.model import Relation


def _fact(disease: str, term: str, *sources: str) -> Relation:
    return Relation(subject=disease, predicate="HAS_PHENOTYPE", object=term, sources=list(sources))


FACTS = PhenotypeFacts.from_relations(
    [
        _fact("OMIM:1", "HP:0000001", "PMID:1"),
        _fact("OMIM:1", "HP:0000002", "PMID:1", "PMID:2"),  # also rests on another paper
        _fact("OMIM:1", "HP:0000003", "OMIM:1"),
        _fact("ORPHA:9", "HP:0000004", "PMID:1"),  # the same disease's Orphanet entry
        _fact("OMIM:2", "HP:0000005", "PMID:1"),  # another disease: never counted for OMIM:1
        Relation(subject="OMIM:1", predicate="HAS_INHERITANCE", object="HP:0000006", sources=["PMID:1"]),
    ],
    equivalents=equivalence_map([("OMIM:1", "MONDO:1"), ("ORPHA:9", "MONDO:1")]),
)


def test_only_facts_resting_on_the_case_papers_alone_are_its_own() -> None:
    # OMIM:1's three phenotype facts and, through MONDO:1, ORPHA:9's one
    assert FACTS.count(["OMIM:1"], frozenset({"PMID:1"})) == (2, 4)
    assert FACTS.count(["OMIM:1"], frozenset({"PMID:1", "PMID:2"})) == (3, 4)
    assert FACTS.count(["OMIM:1"], frozenset()) == (0, 4)
    assert FACTS.count(["OMIM:404"], frozenset({"PMID:1"})) == (0, 0)


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
