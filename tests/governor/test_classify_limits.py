"""Where the classifier stops reading, and how it says so: a command past
its length cap or its word budget is reported opaque with the reason (the
sweep rule then judges its text), never quietly classified as "no test run";
up to the cap it is read as usual. Wrapper forms are parsed on first use."""

from __future__ import annotations

from lanes.governor.classify.classifier import MAX_CLASSIFIED, classify
from lanes.governor.classify.shell_lexer import MAX_TOKENS


def test_a_command_up_to_the_cap_is_read_and_one_past_it_is_opaque() -> None:
    at_cap = "pytest; : " + "w" * (MAX_CLASSIFIED - 10)
    assert len(at_cap) == MAX_CLASSIFIED
    read = classify(at_cap)
    assert read.opaque is None
    assert [run.runner for run in read.invocations] == ["pytest"]
    past = classify(at_cap + "w")
    assert past.opaque == (
        f"the command is {MAX_CLASSIFIED + 1} characters, more than {MAX_CLASSIFIED}"
    )
    assert past.invocations == ()


def test_a_command_past_the_word_budget_is_opaque_with_the_reason() -> None:
    result = classify("pytest; : " + "w " * (MAX_TOKENS + 10))
    assert result.opaque == "the command has more shell words than the classifier reads"


def test_test_command_forms_never_seen_before_are_parsed_on_first_use() -> None:
    forms = ("  ", "make check-selfproof-limits")  # a blank form is skipped
    assert [
        run.runner
        for run in classify("make check-selfproof-limits", test_commands=forms).invocations
    ] == ["make"]
    assert classify("make other", test_commands=forms).invocations == ()
