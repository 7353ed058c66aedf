"""``lanes hook`` I/O: the output shape, silence on bad payloads, the fast
path's imports, and the pre-screen's one promise — it never drops a command
the classifier counts."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lanes.governor.classify.classifier import classify
from lanes.governor.classify.runners.table import PROGRAMS
from lanes.governor.config_cache import refresh_words
from lanes.governor.screen import prescreen
from tests.support.git import git_repo
from tests.support.hooks import advice, clean_env, payload, run_hook
from tests.support.processes import lanes_command

FORBIDDEN_KEYS = {"decision", "permissionDecision", "continue", "stopReason"}
CORPUS_DIR = Path(__file__).parent / "corpus"


def _raw(
    command: str | list[str], cwd: Path, *, ascii_only: bool = False, **extra: object
) -> bytes:
    data = payload(command, cwd=cwd)
    data.update(extra)
    return json.dumps(data, ensure_ascii=ascii_only).encode()


# --------------------------------------------------------------------------- output


@pytest.mark.parametrize("event", ["PostToolUse", "PostToolUseFailure"])
def test_advice_has_exactly_the_hook_specific_shape(tmp_path: Path, event: str) -> None:
    project = git_repo(tmp_path / "p")
    extra = {"error": "Exit code 1\nfailed"} if event == "PostToolUseFailure" else {}
    proc = run_hook(
        payload("pytest", cwd=project, event=event, **extra),
        xdg=tmp_path / "s",
        env={"LANES_MAX_FULL": "0"},
    )
    text = advice(proc)  # checks {"hookSpecificOutput": {hookEventName, additionalContext}}
    assert text is not None
    assert json.loads(proc.stdout)["hookSpecificOutput"]["hookEventName"] == event
    assert proc.stderr == ""


@pytest.mark.integration
def test_no_path_ever_prints_a_decision(tmp_path: Path) -> None:
    project = git_repo(tmp_path / "p")
    commands = ["pytest", "pytest tests/a.py", "ls -la", "make verify", "python -m unittest"]
    for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        for command in commands:
            proc = run_hook(
                payload(command, cwd=project, event=event),
                xdg=tmp_path / "s",
                env={"LANES_MAX_FULL": "0"},
            )
            # PreToolUse may block (exit 2, reason on stderr); nothing else may.
            assert proc.returncode in ((0, 2) if event == "PreToolUse" else (0,))
            if proc.stdout:
                output = json.loads(proc.stdout)
                assert set(output) == {"hookSpecificOutput"}
                assert not FORBIDDEN_KEYS & set(output["hookSpecificOutput"])


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json at all",
        b"\xff\xfe\x00garbage",
        b"[1, 2, 3]",
        b'"pytest"',
        b"null",
        b'{"hook_event_name": "PostToolUse"}',
        b'{"hook_event_name": "Stop", "tool_name": "Bash", "tool_input": {"command": "pytest"}}',
        b'{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": {"command": "pytest"}}',
        b'{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": 7}}',
        b'{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": "pytest"}',
        b'{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "pytest"',
    ],
)
def test_invalid_payloads_exit_0_silently(tmp_path: Path, raw: bytes) -> None:
    proc = run_hook(raw, xdg=tmp_path / "s", env={"LANES_MAX_FULL": "0"})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_codex_argv_payload_is_counted(tmp_path: Path) -> None:
    project = git_repo(tmp_path / "p")
    data = payload(["pytest", "-q"], cwd=project)
    proc = run_hook(
        data, xdg=tmp_path / "s", args=("--agent", "codex"), env={"LANES_MAX_FULL": "0"}
    )
    assert advice(proc) is not None


# --------------------------------------------------------------------------- the fast path


def test_the_fast_path_imports_nothing_heavy(tmp_path: Path) -> None:
    # Modules the hook adds to a bare interpreter on a non-test command. Not a
    # timing: the import list is what makes the latency ratio (bench lane).
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from lanes.cli import main\n"
        "code = main(['hook'])\n"
        "print(repr(sorted(set(sys.modules) - before)))\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        input=_raw("ls -la", git_repo(tmp_path / "p")),
        capture_output=True,
        env=clean_env(tmp_path / "s"),
        check=True,
    )
    added = set(ast.literal_eval(proc.stdout.decode()))
    assert added <= {
        "lanes",
        "lanes.cli",
        "lanes.governor",
        "lanes.governor.hook",
        # Layer packages: empty __init__ files, a file lookup each.
        "lanes.governor.screen",
        "lanes.governor.screen.prescreen",
        "lanes.governor.state",
        "lanes.governor.state.debug",
        "__future__",
    }, added


def test_screen_reads_only_the_command(tmp_path: Path) -> None:
    # The payload mentions tests everywhere except in the command.
    raw = _raw(
        "ls -la",
        tmp_path,
        transcript_path="/home/u/pytest-project/t.jsonl",
        tool_response={"stdout": "tests\npytest.ini\n", "command": "ls -la"},
    )
    assert prescreen.screen(raw) == "no runner word, no pyproject.toml"


@pytest.mark.parametrize(
    "command",
    [
        "pytest",
        "PYTEST -q",
        "py'test'",
        'p"y"test',
        "\\pytest",
        "pyt\\\nest",
        "npm t",
        "./mvnw verify",
        "./gradlew build",
        "vendor/bin/phpunit",
        "npx jest",
        "$'\\x70ytest'",
        "echo héllo; pytest",
    ],
)
def test_screen_passes_anything_that_may_run_tests(tmp_path: Path, command: str) -> None:
    assert prescreen.screen(_raw(command, tmp_path)) is None
    assert prescreen.screen(_raw(command, tmp_path, ascii_only=True)) is None


@pytest.mark.parametrize(
    "raw",
    [
        b'{"hook_event_name": "PostToolUse", "tool_input": {"command": "ls"}}',  # no cwd
        b'{"cwd": "relative/dir", "tool_input": {"command": "ls"}}',
        b'{"cwd": "/tmp", "tool_input": {"command": ["ls", "-la"]}}',  # argv: parse it
        b'{"cwd": "/tmp", "tool_input": {"command": "ls \\u0070ytest"}}',
        b'{"cwd": "/tmp", "tool_input": {}}',
    ],
)
def test_screen_passes_what_it_cannot_read(raw: bytes) -> None:
    assert prescreen.screen(raw) is None


def test_configured_suite_words_pass_and_a_config_edit_is_noticed(
    tmp_path: Path, xdg: Path
) -> None:
    del xdg  # the suite-word cache lives there
    project = git_repo(tmp_path / "p")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        '[tool.lanes.suites.verify]\nrunner = "command"\ncommand = "just verify"\n',
        encoding="utf-8",
    )
    # (`just`, not `make`: `make` is a default test_commands program, which
    # always reaches the full path.)
    # No cache row yet: everything goes to the full path, which refreshes it.
    assert prescreen.screen(_raw("ls -la", project)) is None
    refresh_words(str(project))
    assert prescreen.screen(_raw("ls -la", project)) is not None
    assert prescreen.screen(_raw("just verify", project)) is None
    assert prescreen.screen(_raw("LANES_TEST_FORCE=1 just 'verify'", project)) is None
    # An edit changes the stamp: the row is stale until the next refresh.
    time.sleep(0.01)
    pyproject.write_text(
        '[tool.lanes.suites.docs]\nrunner = "command"\ncommand = "tox -e docs"\n',
        encoding="utf-8",
    )
    os.utime(pyproject, ns=(time.time_ns(), time.time_ns() + 10_000_000))
    assert prescreen.screen(_raw("tox -e docs", project)) is None
    refresh_words(str(project))
    assert prescreen.screen(_raw("tox -e docs", project)) is None
    assert prescreen.screen(_raw("just verify", project)) is not None


def test_a_broken_config_passes_everything(tmp_path: Path, xdg: Path) -> None:
    del xdg
    (tmp_path / "pyproject.toml").write_text("[tool.lanes]\nbogus = 1\n", encoding="utf-8")
    refresh_words(str(tmp_path))
    assert prescreen.screen(_raw("ls -la", tmp_path)) is None


@pytest.mark.integration
def test_a_configured_suite_reaches_the_full_path_through_lanes_hook(tmp_path: Path) -> None:
    project = git_repo(tmp_path / "p")
    (project / "pyproject.toml").write_text(
        '[tool.lanes.suites.verify]\nrunner = "command"\ncommand = "make verify"\n',
        encoding="utf-8",
    )
    state = tmp_path / "s"
    for command in ("ls -la", "make verify", "ls -la"):
        run_hook(payload(command, cwd=project), xdg=state, env={"LANES_DEBUG": "1"})
    records = [
        json.loads(line)
        for line in (state / "lanekit" / "debug.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    screened = [r["reason"] for r in records if r.get("reason", "").startswith("pre-screen")]
    # First `ls`: no cache row, full path (which writes it); `make verify`: full
    # path; second `ls`: screened out.
    assert screened == ["pre-screen: no runner word, no configured suite word"]
    assert lanes_command()  # the same executable the agents run


# --------------------------------------------------------------------------- the promise


def _corpus_commands() -> list[str]:
    commands: list[str] = []
    for path in sorted(CORPUS_DIR.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                command = item.get("command") if isinstance(item, dict) else item
                if isinstance(command, str):
                    commands.append(command)
    return commands


RUNNER_FORMS = [
    "pytest",
    "py.test",
    "python -m pytest",
    "python3 -m unittest",
    "go test ./...",
    "cargo test",
    "npm test",
    "npm t",
    "npm run test",
    "yarn test",
    "pnpm test",
    "bun test",
    "jest",
    "vitest run",
    "playwright test",
    "dotnet test",
    "mvn test",
    "./mvnw verify",
    "gradle check",
    "./gradlew build",
    "mix test",
    "phpunit",
    "vendor/bin/phpunit",
    "rake test",
    "bin/rails test",
    "swift test",
]
WRAPPERS = ["", "timeout 60 ", "uv run ", "env A=1 ", "nice -n 5 ", "LANES_TEST_FORCE=1 ", "time "]
HAZARDS = ["", " -q", " tests/", " -k 'a or b'", ' "$X"', " é", " \\\n  -x", " # pytest"]


@st.composite
def hazardous_commands(draw: st.DrawFn) -> str:
    runner = draw(st.sampled_from(RUNNER_FORMS))
    # Quote-split the runner word the way a shell would still run it.
    if draw(st.booleans()):
        cut = draw(st.integers(0, len(runner.split()[0])))
        quote = draw(st.sampled_from(["'", '"']))
        word = runner.split()[0]
        runner = runner.replace(word, f"{word[:cut]}{quote}{word[cut:]}{quote}", 1)
    command = draw(st.sampled_from(WRAPPERS)) + runner + draw(st.sampled_from(HAZARDS))
    shape = draw(st.sampled_from(["{}", "cd x && {}", "bash -c '{}'", "{} | tee log", "({})"]))
    if "'" in command and shape.startswith("bash"):
        shape = 'bash -c "{}"'
    return shape.format(command)


def _assert_never_dropped(command: str, root: Path) -> None:
    if classify(command, root).scope == "none":
        return
    for ascii_only in (False, True):
        raw = _raw(command, root, ascii_only=ascii_only)
        assert prescreen.screen(raw) is None, (command, raw)


SUBCOMMANDS = ["", "t", "tst", "test", "tests", "test:unit", "run t", "run test", "build", "check"]
SUBCOMMANDS += ["verify", "package", "install", "deploy", "spec", "unit", "ci", "nextest run", "x"]


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_every_program_of_the_classifier_with_every_alias_is_screened(
    program: str, tmp_path: Path
) -> None:
    counted = 0
    for prefix in ("", "./", "npx ", "python -m "):
        for sub in SUBCOMMANDS:
            command = f"{prefix}{program} {sub}".strip()
            _assert_never_dropped(command, tmp_path)
            counted += classify(command, tmp_path).scope != "none"
    # unittest only runs as `python -m unittest`; lanes only as `lanes affected --run`.
    assert counted or program in ("unittest", "lanes")


def test_the_screen_never_drops_a_corpus_command_the_classifier_counts(tmp_path: Path) -> None:
    commands = _corpus_commands() + [f"{w}{r}" for w in WRAPPERS for r in RUNNER_FORMS]
    counted = 0
    for command in commands:
        _assert_never_dropped(command, tmp_path)
        counted += classify(command, tmp_path).scope != "none"
    assert counted >= len(RUNNER_FORMS) // 4  # the check above really ran


@settings(max_examples=300, deadline=None)
@given(command=hazardous_commands())
@example(command="py'test' -q")
def test_the_screen_never_drops_a_hazardous_command_the_classifier_counts(command: str) -> None:
    _assert_never_dropped(command, Path("/nonexistent-lanekit-root"))


@settings(max_examples=300, deadline=None)
@given(command=st.text(max_size=80))
def test_the_screen_never_drops_any_text_the_classifier_counts(command: str) -> None:
    _assert_never_dropped(command, Path("/nonexistent-lanekit-root"))
