"""`lanes slow check`: the pin list may only shrink (real git repositories in tmp_path)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from lanes.cli import main
from tests.slow.slow_helpers import BAND, PYPROJECT, SLOW, THREE_TESTS
from tests.support.git import git

if TYPE_CHECKING:
    from pathlib import Path

# The collection subprocess does not need Hypothesis's plugin (seconds of import).
COLLECT = ["--", "-p", "no:hypothesispytest", "-p", "no:cacheprovider"]


def _pin(nodeid: str, **fields: Any) -> dict[str, Any]:
    base = {
        "tier": "unit",
        "ceiling": 1.0,
        "reason": "sleeps",
        "tracking": "#1",
        "added": "2026-01-01",
    }
    return {"nodeid": nodeid, **base, **fields}


def _write_pins(root: Path, *pins: dict[str, Any]) -> None:
    path = root / "baselines" / "slow-tests.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"format": "lanekit.slow-pins", "version": 1, "pins": list(pins)}))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed project whose base pin list holds one justified pin."""
    tmp_path.joinpath("pyproject.toml").write_text(PYPROJECT.replace("{enabled}", ""))
    tmp_path.joinpath("tests").mkdir()
    tmp_path.joinpath("tests", "test_three.py").write_text(THREE_TESTS)
    _write_pins(tmp_path, _pin(SLOW))
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def _check(repo: Path, *extra: str) -> int:
    config = str(repo / "pyproject.toml")
    return main(["slow", "check", "--base", "HEAD", "--config", config, *extra, *COLLECT])


@pytest.mark.integration
def test_a_new_pin_without_reason_fails(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write_pins(repo, _pin(SLOW), _pin(BAND, reason="", tracking=""))
    assert _check(repo) == 1
    out = capsys.readouterr().out
    assert f"FAIL unjustified pin {BAND}: reason '', tracking ''" in out
    assert f"fix: lanes slow pin {BAND} --reason '<why it is slow>' --tracking '<issue>'" in out
    assert "lanes slow check FAILED: baselines/slow-tests.json against HEAD:" in out
    assert f"unjustified pin {SLOW}" not in out  # the base's pin is not new


@pytest.mark.integration
def test_a_pin_for_a_test_that_is_gone_fails(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The test is deleted; its pin stays behind.
    repo.joinpath("tests", "test_three.py").write_text("def test_fast():\n    pass\n")
    assert _check(repo) == 1
    out = capsys.readouterr().out
    assert f"FAIL stale pin {SLOW}: no such test is collected any more" in out
    assert f"fix: lanes slow unpin {SLOW}" in out


@pytest.mark.integration
def test_justified_growth_and_shrinking_pass_and_removable_is_reported(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_pins(repo, _pin(BAND, reason="waits for a socket", tracking="#9"))
    envelope = {"data": {"pins": [{"nodeid": BAND, "state": "removable", "ms": 3}]}}
    repo.joinpath("envelopes").mkdir()
    repo.joinpath("envelopes", "slow.json").write_text(json.dumps(envelope))
    assert _check(repo) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out
    assert (
        f"removable pin {BAND}: the last slow runs measured it within its tier budget 20 ms "
        "(3 in a row, last 3 ms)" in out
    )
    assert (
        "lanes slow check passed: baselines/slow-tests.json against HEAD: 1 added, 1 removed" in out
    )


@pytest.mark.integration
def test_a_changed_pin_that_drops_its_reason_fails(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_pins(repo, _pin(SLOW, reason=" ", ceiling=2.0))
    assert _check(repo) == 1
    out = capsys.readouterr().out
    assert f"FAIL unjustified pin {SLOW}: reason ' '" in out
    assert f"note: {SLOW}'s ceiling was raised to 2 s" in out


def test_an_unknown_base_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["slow", "check", "--base", "origin/nope", "--config", str(repo / "pyproject.toml")]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "error: base revision 'origin/nope' does not exist" in err
    assert "hint: pass --base REF" in err


def test_a_base_without_a_pin_file_means_every_pin_is_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path.joinpath("pyproject.toml").write_text(PYPROJECT.replace("{enabled}", ""))
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "no pins yet")
    # No pins in the working tree either: nothing to collect, nothing to judge.
    assert _check(tmp_path) == 0
    assert "0 added, 0 removed" in capsys.readouterr().out
