"""Fallbacks as people read them: grouped by reason, not one line per step."""

from __future__ import annotations

from meddiag.export import ask_result_markdown
from meddiag.reasoning.fallback import summarise_fallbacks
from tests.ui.sample_case import sample_result

DOWN = "the language model failed: the endpoint cannot be reached (ConnectError: refused)"


def test_steps_failing_for_one_reason_are_named_once_with_counts() -> None:
    lines = [f"plan_semantic: {DOWN}", f"filter_passages: {DOWN}", f"filter_passages: {DOWN}"]
    lines.append("answer_semantic: the language model failed: the reply is not valid JSON")
    assert summarise_fallbacks(lines) == (
        f"{DOWN} — 3 steps: plan_semantic, filter_passages ×2; "
        "the language model failed: the reply is not valid JSON — 1 step: answer_semantic"
    )


def test_the_exported_answer_states_each_reason_once() -> None:
    result = sample_result()
    result.reasoner.fallbacks = [f"step_{k}: {DOWN}" for k in range(30)]
    text = ask_result_markdown(result)
    assert text.count(DOWN) == 1 and "30 steps" in text
