"""The one lane driver: options, envelope, verdict → exit code, crash → stage error + exit 3."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, ClassVar

import pytest

from lanes.config import parse_config
from lanes.errors import UsageError
from lanes.exitcodes import ExitCode, exit_rule
from lanes.lane import choose, drive
from tests.support.documents import read_envelope

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.config import Config
    from lanes.envelope import LaneRun, Seed


class ProbeLane:
    """A lane whose behaviour the namespace decides: pass, fail, crash or a usage error."""

    name: ClassVar[str] = "probe"

    def resolve(self, ns: argparse.Namespace, config: Config) -> str:
        if ns.mode == "bad-option":
            msg = f"--mode got {ns.mode!r}"
            raise UsageError(msg, hint="pass --mode pass")
        return str(choose(ns.mode, "pass"))

    def config_hash(self, options: str, config: Config) -> str:
        return config.section_hash("torture")

    def seed(self, options: str) -> Seed:
        return {"start": 3, "count": 2}

    def run(self, options: str, config: Config, run: LaneRun) -> None:
        run.data["mode"] = options
        if options == "crash":
            msg = "planted crash"
            raise RuntimeError(msg)
        if options == "user-error":
            msg = "the lane found bad input mid-run"
            raise UsageError(msg, hint="fix the input")
        run.verdict(passed=options == "pass")


def _drive(tmp_path: Path, mode: str | None) -> tuple[ExitCode, Path]:
    config = parse_config({}, root=tmp_path)
    ns = argparse.Namespace(mode=mode)
    code = drive(ProbeLane(), ns, config=config)
    return code, config.envelope_path("probe")


def _envelope(path: Path) -> dict[str, object]:
    return read_envelope(path)


@pytest.mark.parametrize(
    ("mode", "code", "result"),
    [("pass", ExitCode.OK, "pass"), (None, ExitCode.OK, "pass"), ("fail", ExitCode.FAIL, "fail")],
)
def test_verdict_decides_exit_code_and_result(
    tmp_path: Path, mode: str | None, code: ExitCode, result: str
) -> None:
    got, path = _drive(tmp_path, mode)
    envelope = _envelope(path)
    assert got == code
    assert envelope["result"] == result
    assert envelope["stage"] == "complete"
    assert envelope["seed"] == {"start": 3, "count": 2}
    assert envelope["data"] == {"mode": mode or "pass"}


def test_crash_is_exit_3_with_stage_error_and_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    got, path = _drive(tmp_path, "crash")
    envelope = _envelope(path)
    assert got == ExitCode.CRASH
    assert envelope["stage"] == "error"
    assert envelope["error"] == {"type": "RuntimeError", "message": "planted crash"}
    err = capsys.readouterr().err
    assert "Traceback" in err
    assert "error: the probe lane crashed: RuntimeError: planted crash" in err
    assert "hint: " in err


def test_bad_option_raises_before_any_envelope_as_nothing_ran(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--mode") as caught:
        _drive(tmp_path, "bad-option")
    assert not (tmp_path / "envelopes").exists()
    assert exit_rule(caught.value).code == ExitCode.USAGE


def test_user_error_mid_run_reaches_the_cli_as_could_not_complete_and_is_recorded(
    tmp_path: Path,
) -> None:
    with pytest.raises(UsageError, match="bad input") as caught:
        _drive(tmp_path, "user-error")
    # The envelope was open: the lane began, so the CLI exits 3, not 2 ("nothing ran").
    assert caught.value.work_began
    assert exit_rule(caught.value).code == ExitCode.CRASH
    envelope = _envelope(tmp_path / "envelopes" / "probe.json")
    assert envelope["stage"] == "error"
    assert envelope["error"] == {
        "type": "UsageError",
        "message": "the lane found bad input mid-run",
    }


def test_choose_prefers_the_command_line_even_when_falsy() -> None:
    assert choose(None, 5) == 5
    assert choose(0, 5) == 0
    assert choose(False, True) is False
