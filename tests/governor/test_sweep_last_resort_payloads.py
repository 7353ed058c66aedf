"""The last resort judges what a payload really asks, however it arrives.

When the hook's full path faults, :func:`last_resort` applies the full-sweep
rule alone to whatever command it can find: from the parsed payload, or —
past the hook's size cap, where nothing is parsed — from a byte scan. These
tests call it in the test process (the hook-process tests in
``test_sweep_faults.py`` show the same end to end) with payloads a user could
send: a command given as a list, a command isolated from an oversized payload,
escapes, bytes that are not UTF-8, keys that repeat.
"""

from __future__ import annotations

import json

import pytest

from lanes.governor.payload import MAX_PAYLOAD
from lanes.governor.policy.sweep import last_resort

NOTE = "so it applied the default full-sweep rule; other checks were skipped.)"
# Pads a payload past the cap in a key the scan never reads.
PAD = b"x" * (MAX_PAYLOAD + 1024)


def _payload(command: object, *, tool: str = "Bash", event: object = "PreToolUse") -> bytes:
    return json.dumps(
        {"hook_event_name": event, "tool_name": tool, "tool_input": {"command": command}}
    ).encode()


def _oversized(*fields: bytes) -> bytes:
    """A payload past the cap: ``fields`` (raw ``"key": value`` bytes) and a pad."""
    return b"{" + b", ".join([*fields, b'"description": "' + PAD + b'"']) + b"}"


def test_a_full_sweep_is_blocked_with_the_note_that_says_why() -> None:
    message = last_resort(_payload("pytest"), {}, "the config cache would not parse")
    assert message is not None
    assert message.startswith("full sweep blocked: `pytest` runs the whole suite")
    assert message.endswith(
        "\n(The governor could not read this call normally — the config cache would not "
        "parse — " + NOTE
    )


def test_a_focused_run_is_let_through() -> None:
    # Judged with the default sweep_min_paths: two files are not a sweep.
    command = "pytest tests/unit/test_a.py tests/unit/test_b.py"
    assert last_resort(_payload(command), {}, "fault") is None


def test_a_command_the_classifier_gives_up_on_is_judged_by_its_text() -> None:
    opaque = "pytest; : " + "word " * 60_000  # longer than the classifier lexes
    message = last_resort(_payload(opaque), {}, "fault")
    assert message is not None
    assert "could not read it through" in message
    assert last_resort(_payload("echo hi; : " + "word " * 60_000), {}, "fault") is None


def test_a_command_given_as_a_list_is_judged_as_its_words() -> None:
    assert last_resort(_payload(["pytest", "-q"]), {}, "fault") is not None
    assert last_resort(_payload(["pytest", "tests/unit/test_a.py"]), {}, "fault") is None


@pytest.mark.parametrize(
    "raw",
    [
        _payload(5),  # a command that is no text
        json.dumps(
            {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": ["pytest"]}
        ).encode(),
        _payload("pytest", event="PostToolUse"),  # only a PreToolUse can be blocked
        _payload("pytest", event=7),
    ],
)
def test_what_names_no_command_or_no_blocking_event_is_let_through(raw: bytes) -> None:
    assert last_resort(raw, {}, "fault") is None


def test_a_tool_that_is_no_shell_is_never_judged_even_with_a_command_key() -> None:
    raw = _payload("pytest", tool="Write")
    assert last_resort(raw, {}, "fault") is None
    # At exactly the cap it is still parsed, so still known to be no shell call.
    padded = raw[:-1] + b', "pad": "' + b"x" * (MAX_PAYLOAD - len(raw) - 11) + b'"}'
    assert len(padded) == MAX_PAYLOAD
    assert last_resort(padded, {}, "fault") is None


def test_an_oversized_payload_is_judged_by_its_isolated_command() -> None:
    event = b'"hook_event_name": "PreToolUse"'
    sweep = _oversized(event, b'"command": "pytest"')
    assert last_resort(sweep, {}, "fault") is not None
    # The pad mentions no runner, the description below does: only the
    # command is judged when the scan can isolate it.
    harmless = _oversized(event, b'"command": "echo hi"', b'"summary": "then pytest runs"')
    assert last_resort(harmless, {}, "fault") is None


def test_an_escaped_command_in_an_oversized_payload_is_unescaped_first() -> None:
    event = b'"hook_event_name": "PreToolUse"'
    assert last_resort(_oversized(event, b'"command": "\\u0070ytest"'), {}, "fault") is not None
    # An escape JSON does not know, and a byte that is not UTF-8: taken as text.
    broken = _oversized(event, b'"command": "\\q\xff; pytest"')
    assert last_resort(broken, {}, "fault") is not None


def test_an_oversized_payload_of_another_event_is_let_through() -> None:
    # "PreToolUse" appears in the command, but the event key says PostToolUse.
    post = _oversized(b'"hook_event_name": "PostToolUse"', b'"command": "pytest # PreToolUse"')
    assert last_resort(post, {}, "fault") is None
    not_utf8 = _oversized(b'"hook_event_name": "Post\xff"', b'"command": "pytest # PreToolUse"')
    assert last_resort(not_utf8, {}, "fault") is None


def test_an_oversized_payload_whose_event_cannot_be_told_is_taken_as_blocking() -> None:
    twice = _oversized(
        b'"hook_event_name": "PreToolUse"',
        b'"hook_event_name": "PostToolUse"',
        b'"command": "pytest"',
    )
    assert last_resort(twice, {}, "fault") is not None
    unnamed = _oversized(b'"event": "PreToolUse"', b'"command": "pytest"')
    assert last_resort(unnamed, {}, "fault") is not None
    neither = _oversized(b'"event": "Other"', b'"command": "pytest"')
    assert last_resort(neither, {}, "fault") is None


@pytest.mark.parametrize(
    "fields",
    [
        # Two commands: the scan cannot tell which one runs, so the whole
        # payload's text is judged (one byte of it not UTF-8).
        (b'"command": "echo \xff"', b'"command": "pytest"'),
        # A command that is no plain string (a list): the whole text again.
        (b'"command": ["pytest"]',),
    ],
)
def test_an_oversized_payload_whose_command_cannot_be_isolated_is_judged_whole(
    fields: tuple[bytes, ...],
) -> None:
    raw = _oversized(b'"hook_event_name": "PreToolUse"', *fields)
    assert last_resort(raw, {}, "fault") is not None
