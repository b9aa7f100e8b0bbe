import pytest

from meddiag.errors import InputError
from meddiag.ui.annotations import ERROR_TYPES, ErrorTag, ErrorTagStore, default_tag_file


def test_tags_survive_a_new_store_and_summarise_per_case(tmp_path):
    path = default_tag_file(tmp_path)
    store = ErrorTagStore(path)
    store.add(ErrorTag(case_id="PMID_1_case", error_type="retrieval miss", comment="gold passage absent"))
    store.add(ErrorTag(case_id="PMID_1_case", error_type="retrieval miss", comment="again"))
    store.add(ErrorTag(case_id="PMID_2_case", error_type="synthesis error"))
    reread = ErrorTagStore(path)
    assert [t.comment for t in reread.for_case("PMID_1_case")] == ["gold passage absent", "again"]
    summary = reread.summary()
    assert set(summary) == set(ERROR_TYPES)
    assert summary["retrieval miss"] == 1
    assert summary["synthesis error"] == 1
    assert summary["spurious triple"] == 0


def test_unknown_error_type_is_rejected():
    with pytest.raises(ValueError):
        ErrorTag(case_id="x", error_type="typo")  # type: ignore[arg-type]


def test_damaged_line_is_reported_not_skipped(tmp_path):
    path = tmp_path / "tags.jsonl"
    path.write_text('{"case_id": "a", "error_type": "retrieval miss"}\n{"case_id": "b", "err\n')
    with pytest.raises(InputError, match="Line 2"):
        ErrorTagStore(path).all()


def test_missing_file_means_no_tags(tmp_path):
    assert ErrorTagStore(tmp_path / "none.jsonl").all() == []
