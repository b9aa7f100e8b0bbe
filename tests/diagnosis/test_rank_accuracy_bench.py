"""bench/rank_accuracy.py groups cases by how much of the gold disease leave-publication-out hides."""

from __future__ import annotations

import pytest

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.eval.phenopackets import Case, Feature
from tests.bench_scripts import load_bench
from tests.diagnosis.conftest import CATARACT


@pytest.mark.parametrize(
    ("gold", "left_out", "group"),
    [
        # OMIM:1: cataract (OMIM:1), seizure (PMID:1 alone), ID (PMID:1 and PMID:2)
        ("OMIM:1", ["PMID:9"], "none"),
        ("OMIM:1", ["PMID:1"], "half or fewer"),
        ("OMIM:1", ["PMID:1", "PMID:2"], "more than half"),
        ("OMIM:1", ["PMID:1", "PMID:2", "OMIM:1"], "all"),
        ("OMIM:2", ["PMID:1"], "none"),
    ],
)
def test_cases_are_grouped_by_the_share_of_gold_facts_their_publications_alone_carry(
    tiny_index: PhenotypeIndex, gold: str, left_out: list[str], group: str
) -> None:
    bench = load_bench("rank_accuracy")
    case = Case(id="c", observed=[Feature(id=CATARACT, label="Cataract")], diseases=[gold], pmids=left_out)
    prepared = bench.Prepared(case, [tiny_index.profile_index[gold]], True)
    assert bench.hidden_share_group(tiny_index, prepared) == group
