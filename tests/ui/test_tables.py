import pandas as pd

from meddiag.schema import near_ties
from meddiag.ui.differential_table import differential_frame, near_tie_note
from meddiag.ui.kb_panel import manifest_tables
from meddiag.ui.triples_table import triples_frame

from .sample_case import marfan_triples, sample_result


def test_triples_table_keeps_provenance_per_row():
    frame = triples_frame(marfan_triples())
    assert list(frame["Object"]) == ["Arachnodactyly", "FBN1", "Ectopia lentis"]
    assert frame.loc[0, "Provenance"] == "PMID:111, OMIM:154700"


def test_differential_table_is_ranked_with_findings_and_citations():
    frame = differential_frame(sample_result().synthesis.differential)
    assert list(frame["Rank"]) == [1, 2]
    assert frame.loc[0, "Findings for"] == "Arachnodactyly; Ectopia lentis"
    assert frame.loc[1, "Findings against"] == "Intellectual disability absent"
    assert frame.loc[0, "Citations"] == "[1] [2]"
    assert "Graph score" not in frame.columns  # nothing recorded, nothing shown


def test_differential_table_shows_each_channels_own_score():
    entries = sample_result().synthesis.differential
    first, second = entries[0].id, entries[1].id
    frame = differential_frame(entries, {"relational": {first: 2.5}, "semantic": {first: 0.8, second: 0.4}})
    assert frame.loc[0, "Graph score"] == 2.5 and frame.loc[0, "Text score"] == 0.8
    assert pd.isna(frame.loc[1, "Graph score"]) and frame.loc[1, "Text score"] == 0.4


def test_manifest_tables_flatten_nested_counts():
    sources, counts = manifest_tables(
        {
            "sources": [{"name": "hpo", "version": "2025-05-06"}],
            "counts": {"documents": 10, "entities": {"Disease": 3, "Phenotype": 7}},
        }
    )
    assert sources.to_dict("records") == [{"Source": "hpo", "Version": "2025-05-06"}]
    assert dict(zip(counts["What"], counts["Count"], strict=True)) == {
        "documents": 10,
        "entities · Disease": 3,
        "entities · Phenotype": 7,
    }


def test_differential_table_names_the_gene_that_ranked_a_row_first():
    first, second = sample_result().synthesis.differential
    frame = differential_frame([first.model_copy(update={"genes": ["FBN1"]}), second])
    assert frame.loc[0, "Findings for"] == "named gene FBN1; Arachnodactyly; Ectopia lentis"
    assert frame.loc[1, "Findings for"] == "; ".join(second.for_)


def test_rows_with_exactly_the_same_score_share_their_place():
    first, second = sample_result().synthesis.differential
    third = second.model_copy(update={"id": "OMIM:000003"})
    rows = [
        first,
        second.model_copy(update={"tied_with": [third.id]}),
        third.model_copy(update={"tied_with": [second.id]}),
        first.model_copy(update={"id": "OMIM:000004"}),
    ]
    assert list(differential_frame(rows)["Rank"]) == [1, 2, 2, 4]


def test_a_row_names_the_other_catalogue_ids_it_pools():
    first, second = sample_result().synthesis.differential
    frame = differential_frame([first.model_copy(update={"aliases": ["ORPHA:558", "MONDO:0007947"]}), second])
    assert frame.loc[0, "Other ids"] == "ORPHA:558, MONDO:0007947"
    assert frame.loc[1, "Other ids"] == ""
    assert list(frame.columns[:5]) == ["Rank", "Disease", "ID", "Other ids", "Score"]


def test_rows_closer_than_the_table_shows_are_named_as_practically_level():
    first, second = sample_result().synthesis.differential  # 0.91 and 0.42
    rows = [
        first,
        second.model_copy(update={"score": 0.905}),
        first.model_copy(update={"id": "OMIM:000003", "score": 0.9}),  # 0.005 below: level again
        first.model_copy(update={"id": "OMIM:000004", "score": 0.85}),
    ]
    assert near_ties(rows) == [False, True, True, False]
    assert near_tie_note(rows) == (
        "Places 1 and 2, 2 and 3 differ by less than 0.01 in score: "
        "practically level on this evidence, so their order is no preference."
    )
    assert near_tie_note([first, second]) == ""
    # An exact tie already shares its place, so it is no near tie.
    tied = [
        first.model_copy(update={"tied_with": [second.id]}),
        second.model_copy(update={"score": 0.91, "tied_with": [first.id]}),
    ]
    assert near_ties(tied) == [False, False] and near_tie_note(tied) == ""


def test_a_row_scored_through_its_series_says_so_beside_what_its_name_matches():
    first, _ = sample_result().synthesis.differential
    series = {"series": "X (OMIM:1)", "series_role": "scored_by"}
    row = first.model_copy(update={"for_": ["Arachnodactyly ~ Arachnodactyly (in its name)"], **series})
    assert differential_frame([row]).loc[0, "Findings for"] == (
        "Arachnodactyly ~ Arachnodactyly (in its name); "
        "no curated feature of its own visible: scored as its series member X (OMIM:1)"
    )
    alone = first.model_copy(update={"for_": [], **series})
    assert differential_frame([alone]).loc[0, "Findings for"] == (
        "no curated feature of its own visible: scored as its series member X (OMIM:1)"
    )


def test_a_row_shrunk_toward_its_series_says_its_own_features_match_nothing():
    first, _ = sample_result().synthesis.differential
    row = first.model_copy(update={"for_": [], "series": "X (OMIM:1)", "series_role": "shrunk_toward"})
    assert differential_frame([row]).loc[0, "Findings for"] == (
        "its own curated features match no finding: placed through its series member X (OMIM:1)"
    )
    # A row recorded before the role was kept still names its series member.
    old = row.model_copy(update={"series_role": None})
    assert differential_frame([old]).loc[0, "Findings for"] == "scored through its series: X (OMIM:1)"
    assert differential_frame([row.model_copy(update={"series": ""})]).loc[0, "Findings for"] == ""
    # The class the two share tells a phenotypic series from a class as broad as "hereditary disease".
    broad = row.model_copy(update={"series_class": "hereditary disease (MONDO:0003847)"})
    assert differential_frame([broad]).loc[0, "Findings for"] == (
        "its own curated features match no finding: placed through its series member X (OMIM:1), "
        "of the same MONDO class hereditary disease (MONDO:0003847)"
    )
