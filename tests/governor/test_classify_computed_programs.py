"""Program names known only at run time, and the shell state the classifier
carries from one simple command to the next.

A name the command itself resolves (``p=pytest; $p``, ``$(echo pytest)``) is
a real run, written out; a name it cannot resolve (``$RUNNER``) is judged by
what it could be — a *possible* run anchored to the command as written, so
messages and inline overrides see what the agent typed. ``export`` and
``unset`` carry variables to later commands as the shell does, and a shell
reads its script from stdin only when no script file is named.
"""

from __future__ import annotations

from lanes.governor.classify.classifier import classify


def _runs(command: str) -> list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]:
    result = classify(command)
    assert result.opaque is None, result.opaque
    return [(i.runner, i.scope, i.segment.argv, i.paths) for i in result.invocations]


def test_a_program_the_command_resolves_is_a_real_run_written_out() -> None:
    command = "p=pytest; $p -q tests/unit/test_a.py"
    assert _runs(command) == [
        ("pytest", "filtered", ("pytest", "-q", "tests/unit/test_a.py"), ("tests/unit/test_a.py",))
    ]
    segment = classify(command).segments[0]
    assert segment.text == "$p -q tests/unit/test_a.py"
    assert classify(command).possible == ()


def test_an_expansion_after_a_resolved_program_still_cannot_narrow_it() -> None:
    # "$F" is only known at run time: it may select everything.
    assert _runs('p=pytest; $p "$F"') == [("pytest", "full", ("pytest", "$F"), ())]


def test_a_resolved_program_that_runs_no_tests_is_nothing() -> None:
    result = classify("p=echo; $p hi")
    assert (result.opaque, result.invocations, result.possible) == (None, (), ())


def test_a_resolved_shell_runs_its_script() -> None:
    assert _runs("s=sh; $s -c 'pytest -q'") == [("pytest", "full", ("pytest", "-q"), ())]


def test_a_resolved_program_keeps_the_inline_environment() -> None:
    result = classify("p=pytest; LANES_FULL_SWEEP_OK=1 $p -q")
    assert result.invocations[0].segment.env == {"LANES_FULL_SWEEP_OK": "1"}


def test_an_unknown_program_is_a_possible_run_anchored_to_the_command_as_written() -> None:
    result = classify("X=1 $RUNNER -q")
    assert result.opaque is None
    assert result.invocations == ()
    assert [(i.runner, i.scope) for i in result.possible] == [("pytest", "full")]
    (segment,) = result.segments  # one segment, however many stand-ins are tried
    assert segment.argv == ("$RUNNER", "-q")
    assert segment.env == {"X": "1"}
    assert segment.text == "X=1 $RUNNER -q"
    assert all(run.segment is segment for run in result.possible)


def test_an_unknown_program_with_an_unknown_argument_is_judged_once() -> None:
    result = classify("$A $B")
    assert result.opaque is None
    assert len(result.segments) == 1
    assert [(i.runner, i.scope, i.segment.argv) for i in result.possible] == [
        ("pytest", "full", ("$A", "$B"))
    ]


def test_an_expansion_a_wrapper_took_for_assignments_is_a_possible_program() -> None:
    named = classify("env A=1 $(command -v pytest) -q")
    assert named.invocations == ()
    assert [(i.runner, i.scope, i.segment.argv) for i in named.possible] == [
        ("pytest", "full", ("pytest", "-q"))
    ]
    assert named.possible[0].segment.env == {"A": "1"}
    for command, scope, paths in (
        (
            "env A=1 $(command -v pytest) tests/unit/test_a.py",
            "filtered",
            ("tests/unit/test_a.py",),
        ),
        ("env A=1 $(command -v sh) -c 'pytest -q'", "full", ()),
    ):
        result = classify(command)
        assert result.opaque is None, command
        assert [(i.runner, i.scope, i.paths) for i in result.possible] == [
            ("pytest", scope, paths)
        ], command
    selector = classify('env A=1 $(command -v pytest) "$F"')  # "$F" may select all
    assert selector.opaque is None
    assert {(i.runner, i.scope) for i in selector.possible} == {("pytest", "full")}
    unknown = classify('env A=1 "$PY" -m pytest')
    assert {(i.runner, i.scope) for i in unknown.possible} == {("pytest", "full")}
    assert all(i.segment.argv == ("$PY", "-m", "pytest") for i in unknown.possible)
    # Followed by a program, the expansion stays a list of assignments.
    listed = classify("env $(cat .env | xargs) npm test")
    assert listed.possible == ()
    assert [(i.runner, i.segment.argv) for i in listed.invocations] == [("npm", ("npm", "test"))]


def test_export_carries_values_to_later_commands_as_the_shell_does() -> None:
    result = classify("export -- A=1 9B=2; export A; unset NEVER_SET; pytest")
    assert result.opaque is None
    assert result.segments[-1].env == {"A": "1"}  # `export A` keeps the value
    gone = classify("export A=1; unset -v A; pytest")
    assert gone.segments[-1].env == {}


def test_a_shell_reads_its_script_from_stdin_only_without_a_script_file() -> None:
    assert _runs("bash +x <<'EOF'\npytest\nEOF") == [("pytest", "full", ("pytest",), ())]
    assert _runs("bash -e <<'EOF'\npytest\nEOF") == [("pytest", "full", ("pytest",), ())]
    assert _runs("bash run.sh <<'EOF'\npytest\nEOF") == []
    assert _runs("bash -e run.sh <<'EOF'\npytest\nEOF") == []


def test_a_test_command_form_matches_its_parametrised_spellings_only() -> None:
    forms = ("tox -e tests",)
    for env in ("tests", "tests-3.12", "tests(python='3.12')"):
        assert [i.runner for i in classify(f"tox -e {env}", test_commands=forms).invocations] == [
            "tox"
        ], env
    assert classify("tox -e testsX", test_commands=forms).invocations == ()
