"""Shell handling: segmentation, quotes, heredocs, comments, inline env and
``bash -c`` recursion — what runs is classified, what is data is not."""

from __future__ import annotations

import pytest

from lanes.governor.classify.classifier import classify


def _runs(command: str) -> list[tuple[str, str]]:
    return [(inv.runner, inv.scope) for inv in classify(command).invocations]


def _argvs(command: str) -> list[tuple[str, ...]]:
    return [segment.argv for segment in classify(command).segments]


@pytest.mark.parametrize(
    "command",
    [
        'echo "pytest"',
        "echo pytest",
        "echo 'go test ./...'",
        "printf '%s\\n' 'npm test'",
        'git commit -m "run pytest"',
        "git commit -m 'fix: make `pytest` green'",
        'git commit -m "$(printf "run the tests")"',
        "grep -r pytest .",
        "rg 'cargo test' docs/",
        "cat <<EOF\npytest\nEOF",
        "cat <<'EOF'\npytest tests\ngo test ./...\nEOF",
        "cat <<-EOF\n\tpytest\n\tEOF",
        'cat > run.sh <<"END"\nnpm test\nEND',
        "python - <<'PY'\nimport subprocess; subprocess.run(['pytest'])\nPY",
        "# pytest",
        "ls  # then pytest",
        "echo done # && pytest",
        "true \\# pytest",
        "echo a#pytest",
        "x='pytest'",
        'PYTEST_ADDOPTS="-x" ',
        "echo $'pytest\\n'",
        "read -r line <<< 'pytest'",
        "man pytest",
        "vim tests/test_a.py",
        "code pytest.ini",
        "gh run list --limit 3",
        "",
        "   ",
        ";;",
    ],
)
def test_data_is_never_a_test_run(command: str) -> None:
    assert classify(command).scope == "none"


@pytest.mark.parametrize(
    ("command", "runs"),
    [
        ("ruff check . && pytest", [("pytest", "full")]),
        ("pytest tests/a.py; go test ./...", [("pytest", "filtered"), ("go", "full")]),
        ("make build || pytest", [("pytest", "full")]),
        ("pytest -q | tee log.txt", [("pytest", "full")]),
        ("pytest -q |& tee log.txt", [("pytest", "full")]),
        ("pytest -q 2>&1 | tail -5", [("pytest", "full")]),
        ("pytest > out.txt 2>&1", [("pytest", "full")]),
        ("pytest &> out.txt", [("pytest", "full")]),
        ("pytest -q & wait", [("pytest", "full")]),
        ("pip install -e .\npytest -q", [("pytest", "full")]),
        ("(cd sub && pytest)", [("pytest", "full")]),
        ("{ pytest -q; go test ./...; }", [("pytest", "full"), ("go", "full")]),
        ("if pytest -q; then echo ok; fi", [("pytest", "full")]),
        ("while ! pytest -x; do sleep 1; done", [("pytest", "full")]),
        ("for f in a b; do pytest tests/$f; done", [("pytest", "full")]),
        ("case $x in a) pytest tests/a.py;; *) echo no;; esac", [("pytest", "filtered")]),
        ("bash -c 'pytest tests/a.py'", [("pytest", "filtered")]),
        ('sh -c "cd x && go test ./..."', [("go", "full")]),
        ("bash -lc 'npm test'", [("npm", "full")]),
        ("bash -euo pipefail -c 'pytest'", [("pytest", "full")]),
        ("zsh -c \"bash -c 'pytest -q'\"", [("pytest", "full")]),
        ("eval 'pytest -q'", [("pytest", "full")]),
        ("out=$(pytest -q)", [("pytest", "full")]),
        ("echo $(go test ./...)", [("go", "full")]),
        ('echo "`pytest -q`"', [("pytest", "full")]),
        ("diff <(pytest -q) expected.txt", [("pytest", "full")]),
        ("bash <<'EOF'\npytest -q\nEOF", [("pytest", "full")]),
        ("sh -s <<< 'go test ./...'", [("go", "full")]),
        ("pytest \\\n  tests/a.py \\\n  -q", [("pytest", "filtered")]),
        ("pytest -q \\\n&& go test ./...", [("pytest", "full"), ("go", "full")]),
        ("cat <<EOF > x\npytest\nEOF\npytest tests/a.py", [("pytest", "filtered")]),
        ('pytest "tests/a b.py"', [("pytest", "filtered")]),
        ("pytest 'tests/a.py::test_x[1-2]'", [("pytest", "filtered")]),
        ("pytest -k 'a or b' # run the smoke set", [("pytest", "filtered")]),
    ],
)
def test_what_runs_is_classified(command: str, runs: list[tuple[str, str]]) -> None:
    assert _runs(command) == runs


def test_quoted_selector_keeps_its_spaces() -> None:
    (invocation,) = classify('pytest "tests/a b.py" -k "x and y"').invocations
    assert invocation.paths == ("tests/a b.py",)
    assert invocation.name_filters == ("x and y",)


def test_leading_assignments_are_the_invocations_env() -> None:
    (invocation,) = classify("LANES_TEST_FORCE=1 CI='' pytest -q").invocations
    assert invocation.env == {"LANES_TEST_FORCE": "1", "CI": ""}
    assert invocation.segment.argv == ("pytest", "-q")
    assert invocation.segment.text == "LANES_TEST_FORCE=1 CI='' pytest -q"


def test_env_reaches_into_bash_c_and_wrappers() -> None:
    (invocation,) = classify("A=1 env B=2 bash -c 'C=3 timeout 9 pytest'").invocations
    assert invocation.env == {"A": "1", "B": "2", "C": "3"}
    assert invocation.segment.text == "C=3 timeout 9 pytest"


def test_a_quoted_assignment_is_a_command_not_env() -> None:
    result = classify("'A=1' pytest")
    assert result.scope == "none"
    assert _argvs("'A=1' pytest") == [("A=1", "pytest")]


def test_segments_hold_every_simple_command_run() -> None:
    command = "cd x && LANES_TEST_FORCE=1 make verify | tee log; uv run pytest -q && echo 'a && b'"
    assert _argvs(command) == [
        ("cd", "x"),
        ("make", "verify"),
        ("tee", "log"),
        ("pytest", "-q"),
        ("echo", "a && b"),
    ]
    segments = classify(command).segments
    assert segments[1].env == {"LANES_TEST_FORCE": "1"}
    assert segments[1].text == "LANES_TEST_FORCE=1 make verify"


def test_a_bare_assignment_runs_nothing() -> None:
    assert _argvs("X=1; Y=2") == []


def test_redirections_are_dropped_from_argv() -> None:
    assert _argvs("pytest -q >out.txt 2>&1 <in.txt") == [("pytest", "-q")]
    assert _argvs("make verify 2> err.log") == [("make", "verify")]


def test_backslash_newline_joins_words_across_lines() -> None:
    assert _argvs("make \\\nverify") == [("make", "verify")]
    assert _argvs("ma\\\nke verify") == [("make", "verify")]


def test_heredoc_body_is_skipped_and_the_next_line_runs() -> None:
    command = "cat <<EOF >notes.txt\npytest\nEOF\nmake verify"
    assert _argvs(command) == [("cat",), ("make", "verify")]


def test_two_heredocs_on_one_line() -> None:
    command = "cat <<A <<-B\npytest\nA\n\tgo test ./...\n\tB\nnpm test"
    assert _runs(command) == [("npm", "full")]


def test_unterminated_input_still_classifies() -> None:
    assert _runs("pytest 'tests/a.py") == [("pytest", "filtered")]
    assert _runs('pytest "tests/a') == [("pytest", "filtered")]
    assert classify("cat <<EOF\npytest").scope == "none"
    assert _runs("(pytest") == [("pytest", "full")]
    assert classify("echo $(pytest").scope == "full"


@pytest.mark.parametrize(
    "command",
    [
        "\x00\x01\x02pytest",
        "pytest \udcff",
        "((((((((((((((((((((pytest",
        "$($($($($($($($($($($($($($($($($($(pytest",
        "`" * 101,
        "'" * 1001,
        '"' * 1001,
        "\\" * 1001,
        "bash -c " * 300 + "pytest",
        "env " * 500 + "pytest",
        "a=(pytest) ; ${x:-$(pytest)} ; $((1+2))",
        "<<",
        "<<<",
        "| | && ;; & ( ) { } ! if then fi",
        "\u202epytest\u202c tests",
        "\uff50\uff59\uff54\uff45\uff53\uff54",  # fullwidth letters: not the program
    ],
)
def test_hostile_input_never_raises(command: str) -> None:
    result = classify(command)
    assert result.scope in ("none", "filtered", "full")


def test_non_string_input_is_no_test_run() -> None:
    assert classify(None).scope == "none"  # type: ignore[arg-type]  # the hook may pass junk
    assert classify(b"pytest").scope == "none"  # type: ignore[arg-type]  # bytes are not text


def test_array_assignment_is_not_a_subshell() -> None:
    assert classify("args=(pytest -q)").scope == "none"


def test_exported_variables_reach_later_commands() -> None:
    result = classify("export LANES_TEST_FORCE=1 CI=1; pytest; unset CI && make verify")
    assert result.invocations[0].env == {"LANES_TEST_FORCE": "1", "CI": "1"}
    assert result.segments[-1].argv == ("make", "verify")
    assert result.segments[-1].env == {"LANES_TEST_FORCE": "1"}


def test_commands_after_esac_run() -> None:
    assert _runs("case x in a) echo;; esac; pytest") == [("pytest", "full")]
    command = "case $1 in\n  unit) pytest tests/unit ;;\n  *) echo ;;\nesac\ngo test ./..."
    assert _runs(command) == [("pytest", "filtered"), ("go", "full")]
