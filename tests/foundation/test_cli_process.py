"""The ``lanes`` command as a user runs it: real processes, real exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lanes import __version__
from lanes.config import parse_config
from lanes.envelope import lane_run

pytestmark = pytest.mark.integration

# The console script installed next to this interpreter, and `python -m lanes`.
ENTRY_POINTS = {
    "script": [str(Path(sys.executable).with_name("lanes"))],
    "module": [sys.executable, "-m", "lanes"],
}


def _lanes(*args: str, cwd: Path, entry: str = "script") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "LANES_"))}
    return subprocess.run(
        [*ENTRY_POINTS[entry], *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
        check=False,
    )


def _assert_user_error(proc: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    """Exit 2, an `error:` line and a non-empty `hint:` line, no traceback."""
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    hints = [line for line in lines if line.startswith("hint: ")]
    assert len(errors) == 1, proc.stderr
    assert len(hints) == 1, proc.stderr
    assert hints[0].removeprefix("hint: ").strip()
    return errors[0].removeprefix("error: "), hints[0].removeprefix("hint: ")


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_version(tmp_path: Path, entry: str) -> None:
    proc = _lanes("--version", cwd=tmp_path, entry=entry)
    assert (proc.returncode, proc.stdout.strip()) == (0, f"lanes {__version__}")


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_misspelt_key_is_a_did_you_mean_and_exit_2(tmp_path: Path, entry: str) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.lanes.suites.unit]\npaths = ["tests"]\nmax_agee = 60\n', encoding="utf-8"
    )
    error, hint = _assert_user_error(_lanes("config", "show", cwd=tmp_path, entry=entry))
    assert error == "[tool.lanes.suites.unit] unknown key 'max_agee' — did you mean 'max_age'?"
    assert "max_age" in hint


def test_invalid_toml_exit_2(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.lanes\n", encoding="utf-8")
    error, _ = _assert_user_error(_lanes("config", "show", cwd=tmp_path))
    assert "is not valid TOML" in error


def test_missing_config_file_exit_2(tmp_path: Path) -> None:
    error, _ = _assert_user_error(_lanes("config", "show", "--config", "nope.toml", cwd=tmp_path))
    assert "does not exist" in error


def test_config_show(tmp_path: Path) -> None:
    other = tmp_path / "conf" / "pyproject.toml"
    other.parent.mkdir()
    other.write_text('[tool.lanes.suites.unit]\npaths = ["t/u"]\n', encoding="utf-8")
    proc = _lanes("config", "show", "--config", str(other), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)
    assert shown["suites"]["unit"]["command"] == "pytest t/u"
    assert shown["source"] == str(other.resolve())


def test_config_show_defaults(tmp_path: Path) -> None:
    proc = _lanes("config", "show", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert list(json.loads(proc.stdout)["suites"]) == ["tests"]


def test_no_command_prints_help_and_exits_2(tmp_path: Path) -> None:
    proc = _lanes(cwd=tmp_path)
    assert proc.returncode == 2
    assert "usage: lanes" in proc.stderr


def test_unknown_command_exits_2(tmp_path: Path) -> None:
    proc = _lanes("frobnicate", cwd=tmp_path)
    assert proc.returncode == 2
    assert "invalid choice: 'frobnicate'" in proc.stderr


# ------------------------------------------------------------------ envelope validate


def _write_envelope(root: Path, lane: str, **changes: Any) -> Path:
    with lane_run(lane, config=parse_config({}, root=root)) as run:
        run.verdict(passed=True)
    path = root / "envelopes" / f"{lane}.json"
    if changes:
        document = json.loads(path.read_text("utf-8"))
        for key, value in changes.items():
            if value is None:
                del document[key]
            else:
                document[key] = value
        path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_validate_all_valid(tmp_path: Path) -> None:
    paths = [str(_write_envelope(tmp_path, lane)) for lane in ("a", "b")]
    proc = _lanes("envelope", "validate", *paths, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    # Regression: "ok" went to stderr, so `lanes envelope validate F > out`
    # left an empty answer; the verdict is the command's output.
    assert proc.stdout == "".join(f"{path}: ok\n" for path in paths)
    assert proc.stderr == ""


def test_validate_lists_each_problem_per_file(tmp_path: Path) -> None:
    good = _write_envelope(tmp_path, "good")
    no_result = _write_envelope(tmp_path, "noresult", result=None)
    two = _write_envelope(tmp_path, "two", stage="partial", duration_ms=1.5)
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    array = tmp_path / "array.json"
    array.write_text("[]", encoding="utf-8")
    missing = tmp_path / "missing.json"
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000, encoding="utf-8")
    proc = _lanes(
        "envelope",
        "validate",
        *map(str, (good, no_result, two, garbage, array, missing, deep)),
        cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    out = proc.stdout.splitlines()
    assert f"{no_result}: $: 'result' is a required property" in out
    assert f"{two}: $.duration_ms: 1.5 is not of type 'integer'" in out
    assert any(line.startswith(f"{two}: $.stage: 'partial' is not one of") for line in out)
    assert any(line.startswith(f"{garbage}: $:") and "is not valid JSON" in line for line in out)
    assert any(line.startswith(f"{array}: $:") and "JSON object" in line for line in out)
    assert any(line.startswith(f"{missing}: $:") and "does not exist" in line for line in out)
    assert any(line.startswith(f"{deep}: $:") and "nested too deeply" in line for line in out)
    assert [line for line in out if line.startswith(str(good))] == [f"{good}: ok"]


def test_a_crash_in_a_subcommand_is_exit_3_with_the_traceback_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # lanes/exitcodes.py: 3 = could not complete (crash). Python's own unhandled-error
    # status is 1, which callers would read as "the lane's verdict is fail".
    (tmp_path / "crashing_cli.py").write_text(
        "def add_parser(sub):\n"
        "    parser = sub.add_parser('crash')\n"
        "    parser.set_defaults(handler=lambda ns: {}['missing'])\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from lanes import cli  # noqa: PLC0415

    monkeypatch.setattr(cli, "_SUBCOMMANDS", (*cli._SUBCOMMANDS, ("crash", "crashing_cli")))
    assert cli.main(["crash"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err
    assert "error: lanes crash crashed: KeyError: 'missing'" in err
    assert "hint: this is a bug in lanekit" in err


# ------------------------------------------------------------------ a fault after work began

# The suite of the planted project: one passing test that, once it has run,
# puts a directory where `lanes timing --record` must write its baseline. The
# lane read the (absent) baseline before the suite ran, so the fault is real
# and lands exactly between "tests ran" and "the lane wrote its result".
BREAKS_THE_BASELINE = """\
from pathlib import Path


def test_runs_then_blocks_the_baseline():
    (Path("baselines") / "timing.json").mkdir(parents=True, exist_ok=True)
"""

PASSES = "def test_passes():\n    pass\n"


def _timing_project(root: Path, suites: dict[str, str], test: str) -> None:
    # The planted test uses no Hypothesis: its plugin would import the whole
    # package for each run's terminal summary (~0.3 s of CPU a run).
    quiet = "-p no:cacheprovider -p no:hypothesispytest"
    pytest_command = f"{sys.executable} -m pytest tests -q {quiet}"
    table = "".join(
        f"[tool.lanes.suites.{name}]\ncommand = {json.dumps(command or pytest_command)}\n"
        for name, command in suites.items()
    )
    (root / "pyproject.toml").write_text(table, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_planted.py").write_text(test, encoding="utf-8")


# fault -> (suites and their commands, "" for pytest; the planted test; extra
# arguments; the error the envelope must record)
FAULTS: dict[str, tuple[dict[str, str], str, list[str], str]] = {
    # A baseline that cannot be written after every suite was measured.
    "baseline-unwritable": ({"unit": ""}, BREAKS_THE_BASELINE, ["--record"], "StateError"),
    # The first suite ran; the second one's command cannot start.
    "second-suite-cannot-start": (
        {"unit": "", "broken": "no-such-command-for-lanes-timing tests"},
        PASSES,
        [],
        "SuiteStartError",
    ),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_fault_after_tests_ran_is_exit_3_not_nothing_ran(tmp_path: Path, fault: str) -> None:
    # A fault injected after tests ran exits with the documented 'lane crashed'
    # status, never 'nothing ran': work was done (lanes/exitcodes.py: a
    # LanesError after work began is 3, reported as error/hint, no traceback).
    suites, test, args, error_type = FAULTS[fault]
    _timing_project(tmp_path, suites, test)
    selected = [arg for name in suites for arg in ("--suite", name)]
    proc = _lanes("timing", "--workers", "0", "--repeat", "1", *selected, *args, cwd=tmp_path)
    assert "timing: unit run-1: wall" in proc.stderr, proc.stderr  # the tests did run
    assert proc.returncode == 3, (fault, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len([line for line in lines if line.startswith("error: ")]) == 1, proc.stderr
    hints = [line.removeprefix("hint: ") for line in lines if line.startswith("hint: ")]
    assert len(hints) == 1, proc.stderr
    assert hints[0].strip()
    envelope = json.loads((tmp_path / "envelopes" / "timing.json").read_text("utf-8"))
    assert (envelope["stage"], envelope["result"]) == ("error", "fail")
    assert envelope["error"]["type"] == error_type
    assert envelope["error"]["message"]
