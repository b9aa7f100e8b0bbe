from __future__ import annotations

import math

import numpy as np
import pytest

from meddiag.diagnosis.index import MatchCache, PhenotypeIndex
from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Relation
from tests.diagnosis.conftest import (
    ATAXIA,
    CATARACT,
    EYE,
    GTC_SEIZURE,
    ID,
    NAMES,
    NERVOUS,
    ROOT,
    SEIZURE,
    has,
    relations,
)


def ic(index: PhenotypeIndex, term: str) -> float:
    return float(index.ic[index.term_index[term]])


def test_ic_counts_diseases_having_the_term_or_a_descendant(tiny_index: PhenotypeIndex) -> None:
    # 4 diseases carry phenotypes: OMIM:1, OMIM:2, OMIM:3, ORPHA:10
    assert tiny_index.n_annotated == 4
    assert ic(tiny_index, ROOT) == pytest.approx(0.0)
    assert ic(tiny_index, SEIZURE) == pytest.approx(
        math.log(4 / 2)
    )  # OMIM:1 directly, OMIM:3 via GTC seizure
    assert ic(tiny_index, GTC_SEIZURE) == pytest.approx(math.log(4))
    assert ic(tiny_index, NERVOUS) == pytest.approx(math.log(4 / 3))
    assert ic(tiny_index, CATARACT) == pytest.approx(math.log(4 / 2))  # OMIM:1 and ORPHA:10


def test_never_annotated_term_is_as_rare_as_one_disease(tiny_index: PhenotypeIndex) -> None:
    assert ic(tiny_index, ATAXIA) == pytest.approx(math.log(4))


def test_candidates_are_omim_diseases_with_phenotypes(tiny_index: PhenotypeIndex) -> None:
    assert tiny_index.profiles == ["OMIM:1", "OMIM:2", "OMIM:3"]


def test_equivalent_diseases_share_one_profile(
    tiny_index: PhenotypeIndex, tiny_unpooled: PhenotypeIndex
) -> None:
    assert tiny_index.members[tiny_index.profile_index["OMIM:3"]] == ["OMIM:3", "ORPHA:10"]
    assert tiny_unpooled.members[tiny_unpooled.profile_index["OMIM:3"]] == ["OMIM:3"]
    closure = tiny_index.matrices.closure.toarray()
    assert closure[tiny_index.profile_index["OMIM:3"], tiny_index.term_index[CATARACT]] == pytest.approx(0.1)
    assert tiny_unpooled.matrices.closure.toarray()[
        tiny_unpooled.profile_index["OMIM:3"], tiny_unpooled.term_index[EYE]
    ] == (
        pytest.approx(0.2)  # only its own nystagmus
    )


def test_two_omim_entries_of_one_mondo_class_are_one_profile(tiny_ontology: Ontology) -> None:
    # OMIM:4 is a second number for OMIM:3's disease (both linked to MONDO:0000010), curated
    # with fewer facts: one row, under the better-curated entry, the other as its member.
    extra = [
        has("OMIM:4", GTC_SEIZURE, None, "OMIM:4"),
        Relation(subject="OMIM:4", predicate="EQUIVALENT_TO", object="MONDO:0000010", sources=["MONDO"]),
    ]
    index = PhenotypeIndex(tiny_ontology, relations() + extra, NAMES)
    assert index.profiles == ["OMIM:1", "OMIM:2", "OMIM:3"]
    three = index.profile_index["OMIM:3"]
    assert index.members[three] == ["OMIM:3", "OMIM:4", "ORPHA:10"]
    assert index.profile_of["OMIM:4"] == three
    unpooled = PhenotypeIndex(tiny_ontology, relations() + extra, NAMES, pool_equivalents=False)
    assert unpooled.profiles == ["OMIM:1", "OMIM:2", "OMIM:3", "OMIM:4"]


def test_hidden_relations_rest_only_on_excluded_sources(tiny_index: PhenotypeIndex) -> None:
    def hidden(*sources: str) -> set[tuple[str, str]]:
        return {
            (tiny_index.diseases[tiny_index.rel_disease[r]], tiny_index.terms[tiny_index.rel_term[r]])
            for r in tiny_index.hidden_relations(frozenset(sources))
        }

    assert hidden("PMID:1") == {("OMIM:1", SEIZURE)}  # ID is also supported by PMID:2
    assert hidden("PMID:1", "PMID:2") == {("OMIM:1", SEIZURE), ("OMIM:1", ID)}
    assert hidden("PMID:404") == set()


def test_thinned_relations_cite_an_excluded_source_beside_others_and_carry_a_frequency(
    tiny_index: PhenotypeIndex,
) -> None:
    def thinned(*sources: str) -> set[tuple[str, str]]:
        return {
            (tiny_index.diseases[tiny_index.rel_disease[r]], tiny_index.terms[tiny_index.rel_term[r]])
            for r in tiny_index.thinned_relations(frozenset(sources))
        }

    assert thinned("PMID:1") == {("OMIM:1", ID)}  # 0.9, pooled over PMID:1 and PMID:2
    assert thinned("PMID:1", "PMID:2") == set()  # hidden, not thinned
    assert thinned("OMIM:2") == set()  # resting on OMIM:2 alone


def test_a_thinned_relation_takes_the_unknown_frequency(tiny_index: PhenotypeIndex) -> None:
    one = tiny_index.profile_index["OMIM:1"]
    exclude = frozenset({"PMID:1"})
    sub = tiny_index.profile_matrices(
        [one], tiny_index.hidden_relations(exclude), tiny_index.thinned_relations(exclude)
    )
    row = sub.closure.toarray()[0]
    assert row[tiny_index.term_index[ID]] == pytest.approx(tiny_index.unknown_frequency)
    assert row[tiny_index.term_index[SEIZURE]] == 0.0  # hidden
    assert row[tiny_index.term_index[CATARACT]] == pytest.approx(0.9)  # untouched


def test_closure_keeps_highest_frequency_below_each_term(tiny_index: PhenotypeIndex) -> None:
    closure = tiny_index.matrices.closure.toarray()
    row = closure[tiny_index.profile_index["OMIM:1"]]
    assert row[tiny_index.term_index[NERVOUS]] == pytest.approx(0.9)  # max(seizure 0.5, ID 0.9)
    assert row[tiny_index.term_index[SEIZURE]] == pytest.approx(0.5)
    assert row[tiny_index.term_index[GTC_SEIZURE]] == 0.0


def test_unknown_frequency_takes_the_configured_default(tiny_index: PhenotypeIndex) -> None:
    direct = tiny_index.matrices.direct.toarray()
    assert direct[tiny_index.profile_index["OMIM:2"], tiny_index.term_index[ID]] == pytest.approx(0.5)


def test_obsolete_ids_resolve_to_their_replacement(tiny_index: PhenotypeIndex) -> None:
    assert tiny_index.term("HP:0009999") == tiny_index.term_index[SEIZURE]
    assert tiny_index.term("HP:1234567") is None


def test_match_cache_keeps_only_the_most_recent_rows() -> None:
    cache = MatchCache(2)
    cache.put((1, 0.0), np.zeros(1))
    cache.put((2, 0.0), np.ones(1))
    assert cache.get((1, 0.0)) is not None  # touch 1: 2 becomes the oldest
    cache.put((3, 0.0), np.ones(1))
    assert cache.get((2, 0.0)) is None
    assert len(cache) == 2
