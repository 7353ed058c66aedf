"""The block message an agent reads when the full-sweep rule stops a command,
and what text the rule treats as able to hide a gated runner."""

from __future__ import annotations

from lanes.governor.classify.classifier import classify
from lanes.governor.policy.sweep import MIN_REASON, could_hide_sweep, judge, last_resort, message

WHY = "no path selector, or only the whole test root"


def test_the_block_message_says_what_ran_why_and_how_to_override() -> None:
    assert message("pytest   -q\n  -x", WHY, None, None) == "\n".join(
        [
            f"full sweep blocked: `pytest -q -x` runs the whole suite ({WHY}).",
            (
                "Mid-task, run the tests for what you changed (e.g. `pytest tests/unit/test_x.py`);"
                " the full suite runs once before push and in CI."
            ),
            (
                "If a full run is really needed now, prefix it: LANES_FULL_SWEEP_OK=1 "
                'LANES_OVERRIDE_REASON="<why, 15+ characters>" (audited), and run it under `nice -n 19`.'
            ),
        ]
    )


def test_a_long_command_is_shown_cut_to_160_characters() -> None:
    exact = "pytest " + "x" * 153  # 160 characters: shown whole
    assert f"`{exact}`" in message(exact, WHY, None, None)
    longer = exact + "y"
    assert f"`{longer[:157]}...`" in message(longer, WHY, None, None)


def test_a_short_reason_is_named_with_its_length() -> None:
    short = message("pytest", WHY, " too short ", "1")
    assert "LANES_OVERRIDE_REASON is 9 characters; at least 15 are required." in short
    assert "characters; at least" not in message("pytest", WHY, "x" * MIN_REASON, "1")
    assert "characters; at least" not in message("pytest", WHY, "short", None)


def test_quotes_and_backslashes_cannot_split_a_runner_name() -> None:
    for text in ("py\\test", 'py"test"', "py'test'", "PY.TEST", "python manage.py test"):
        assert could_hide_sweep(text, ("pytest", "unittest")), text
    assert not could_hide_sweep("echo done", ("pytest", "unittest"))
    assert could_hide_sweep("echo $X", ("pytest",))  # an expansion could build one


def test_a_configured_runner_without_spellings_is_found_by_its_own_name() -> None:
    assert could_hide_sweep("tox -e py311", ("tox",))
    assert not could_hide_sweep("nox -s lint", ("tox",))


def test_the_last_resort_reads_a_split_runner_name_in_text_it_cannot_parse() -> None:
    padding = "; : " + "word " * 60_000  # longer than the classifier lexes
    raw = (
        '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": '
        '"p\\\\ytest' + padding + '"}}'
    ).encode()
    assert last_resort(raw, {}, "fault") is not None


def _why(command: str) -> str:
    verdict = judge(classify(command), command, ("pytest", "unittest"), 4, {})
    assert verdict.message is not None
    return verdict.message.splitlines()[0]


def test_the_message_says_why_the_command_is_a_sweep() -> None:
    assert _why("pytest").endswith("(no path selector, or only the whole test root).")
    assert _why("pytest a.py b.py c.py d.py::t d.py::u").endswith(
        "(4 path selectors (sweep_min_paths = 4; node ids of one file count once))."
    )
    assert _why("$RUNNER -q").endswith(
        "(its program `$RUNNER` is computed at run time and could be pytest, which would run "
        "no path selector, or only the whole test root)."
    )
