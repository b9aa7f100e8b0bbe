"""A case exported as JSON and Markdown says what the page says."""

from __future__ import annotations

from meddiag.export import ask_result_json, ask_result_markdown
from meddiag.schema import AskResult
from tests.ui.sample_case import sample_result, tied_sample_result


def test_the_json_export_reads_back_as_the_same_case() -> None:
    result = sample_result()
    assert AskResult.model_validate_json(ask_result_json(result)) == result


def test_the_markdown_export_states_how_the_question_was_read() -> None:
    text = ask_result_markdown(sample_result())
    assert "Laboratory values read: sodium 140 — within 135–145 mmol/L" in text
    assert "Onset: infantile onset (28 days to 1 year)" in text
    assert "## Differential" in text and "Marfan syndrome" in text


def test_the_markdown_export_numbers_tied_rows_alike() -> None:
    text = ask_result_markdown(tied_sample_result())
    rows = [line for line in text.splitlines() if line.startswith("| 1 |")]
    assert len(rows) == 2 and "| 2 |" not in text


def test_the_markdown_export_names_a_rows_other_catalogue_ids() -> None:
    result = sample_result()
    first, second = result.synthesis.differential
    pooled = first.model_copy(update={"aliases": ["ORPHA:558"]})
    synthesis = result.synthesis.model_copy(update={"differential": [pooled, second]})
    text = ask_result_markdown(result.model_copy(update={"synthesis": synthesis}))
    assert "| 1 | Marfan syndrome (OMIM:154700, ORPHA:558) |" in text
    assert "| 2 | Homocystinuria (OMIM:236200) |" in text
