"""`lanes slow run|pin|unpin`: the envelope on every path, and the pin workflow."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from lanes.slow.selfcheck import EXPECTED, run_self_check
from tests.slow.slow_helpers import SLOW, make_project, write_pins
from tests.support.documents import read_envelope

if TYPE_CHECKING:
    from pathlib import Path

# The child pytest does not need Hypothesis's plugin (seconds of import).
PYTEST = ["--", "-p", "no:hypothesispytest", "-p", "no:cacheprovider", "-q"]


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_project(pytester)
    monkeypatch.chdir(pytester.path)
    return pytester.path


def _envelope(project: Path) -> dict[str, object]:
    return read_envelope(project / "envelopes" / "slow.json")


@pytest.mark.integration
def test_fails_then_passes_once_pinned_with_the_measured_ceiling(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["slow", "run", *PYTEST]) == 1
    envelope = _envelope(project)
    assert (envelope["result"], envelope["stage"]) == ("fail", "complete")
    data = envelope["data"]
    assert isinstance(data, dict)
    assert [o["nodeid"] for o in data["offenders"]] == [SLOW]
    assert data["pytest_exit"] == 1

    # No --ceiling: the last envelope's measurement, rounded up.
    assert main(["slow", "pin", SLOW, "--reason", "sleeps on purpose", "--tracking", "#7"]) == 0
    assert f"pinned {SLOW} (tier 'unit', ceiling 0." in capsys.readouterr().out
    pins = json.loads((project / "baselines" / "slow-tests.json").read_text())["pins"]
    assert [(p["nodeid"], p["reason"], p["tracking"]) for p in pins] == [
        (SLOW, "sleeps on purpose", "#7")
    ]
    assert pins[0]["ceiling"] >= 0.3

    assert main(["slow", "run", *PYTEST]) == 0
    envelope = _envelope(project)
    assert envelope["result"] == "pass"
    pin_states = [(p["nodeid"], p["state"]) for p in envelope["data"]["pins"]]  # type: ignore[index]
    assert pin_states == [(SLOW, "holding")]


@pytest.mark.integration
def test_a_pytest_usage_error_still_leaves_an_envelope(
    pytester: pytest.Pytester, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_pins(pytester, {"nodeid": SLOW, "ceiling": -1})
    assert main(["slow", "run", *PYTEST]) == 2
    assert "error: pytest exited 4: a usage or configuration error" in capsys.readouterr().err
    envelope = _envelope(project)
    assert (envelope["result"], envelope["stage"]) == ("fail", "error")
    assert envelope["error"] == {
        # A SlowRunError of its own class: lanes/exitcodes.py maps it to 2 (pytest ran no test).
        "type": "PytestUsageError",
        "message": "pytest exited 4: a usage or configuration error",
    }


def test_pin_without_a_measurement_needs_a_ceiling(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["slow", "pin", SLOW, "--reason", "sleeps on purpose", "--tracking", "#1"]) == 2
    err = capsys.readouterr().err
    assert f"error: no measured duration for {SLOW!r}" in err
    assert "hint: pass --ceiling SECONDS" in err
    assert not (project / "baselines").exists()


def test_pin_then_unpin(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "slow",
        "pin",
        SLOW,
        "--reason",
        "sleeps on purpose",
        "--tracking",
        "#1",
        "--ceiling",
        "2",
    ]
    assert main([*argv, "--tier", "integration"]) == 0
    assert (
        f"pinned {SLOW} (tier 'integration', ceiling 2 s, fails past 18 s)"
        in capsys.readouterr().out
    )
    assert main(["slow", "unpin", SLOW]) == 0
    assert f"unpinned {SLOW}" in capsys.readouterr().out
    assert json.loads((project / "baselines" / "slow-tests.json").read_text())["pins"] == []
    assert main(["slow", "unpin", SLOW]) == 2
    assert "is not pinned" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("ceiling", "message"),
    [("soon", "expected a number of seconds, got 'soon'"), ("0", "expected seconds > 0, got '0'")],
)
@pytest.mark.usefixtures("project")
def test_pin_rejects_a_bad_ceiling(
    capsys: pytest.CaptureFixture[str], ceiling: str, message: str
) -> None:
    with pytest.raises(SystemExit) as info:
        main(
            [
                "slow",
                "pin",
                SLOW,
                "--reason",
                "sleeps on purpose",
                "--tracking",
                "#1",
                "--ceiling",
                ceiling,
            ]
        )
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_pin_rejects_an_unknown_tier(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "slow",
        "pin",
        SLOW,
        "--reason",
        "sleeps on purpose",
        "--tracking",
        "#1",
        "--tier",
        "nightly",
    ]
    assert main([*argv, "--ceiling", "1"]) == 2
    err = capsys.readouterr().err
    assert "error: --tier 'nightly' is not a configured tier" in err
    assert "hint: use one of: unit, integration" in err
    assert not (project / "baselines").exists()


@pytest.mark.integration
def test_self_check_passes_with_a_working_ratchet(project: Path) -> None:
    assert main(["slow", "run", "--self-check", *PYTEST]) == 1  # the planted project's suite fails
    data = _envelope(project)["data"]
    assert isinstance(data, dict)
    assert data["self_check"] == {
        "passed": True,
        "expected": EXPECTED,
        "observed": EXPECTED,
        "planted": [
            {
                "fault": "partial marking that forgets a run stopped early by -x / --maxfail",
                "expected": "partial: stopped early",
                "real": "partial: stopped early",
                "planted": "not partial",
                "caught": True,
            }
        ],
    }


@pytest.mark.integration
def test_self_check_goes_red_when_the_ratchet_forgets_an_early_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The fault the self-check plants, now in the ratchet itself: a run
    # stopped by -x is no longer marked partial.
    tmp_path.joinpath("forgets.py").write_text(
        "import lanes.slow.selection, lanes.slow.session\n"
        "_real = lanes.slow.selection.partial_reasons\n"
        "def _forgets(config, session, deselected):\n"
        "    return [r for r in _real(config, session, deselected)\n"
        "            if not r.startswith('stopped early')]\n"
        "lanes.slow.session.partial_reasons = _forgets\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("PYTEST_PLUGINS", "forgets")
    result = run_self_check()
    assert result["passed"] is False
    assert result["observed"] == EXPECTED  # the budgets still work; the partial marking does not
    [plant] = result["planted"]
    assert (plant["real"], plant["caught"]) == ("not partial", False)
    assert "slow self-check: FAILED on a planted fault's input: partial marking" in (
        capsys.readouterr().err
    )


@pytest.mark.integration
def test_self_check_goes_red_when_the_ratchet_cannot_fail_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A sabotaged ratchet: it still reports, but a later plugin resets the exit
    # status, so the planted slow test no longer fails the run.
    tmp_path.joinpath("sabotage.py").write_text(
        "import pytest\n"
        "@pytest.hookimpl(trylast=True)\n"
        "def pytest_sessionfinish(session):\n"
        "    session.exitstatus = 0\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("PYTEST_PLUGINS", "sabotage")
    result = run_self_check()
    assert result["passed"] is False
    assert result["observed"] == {**EXPECTED, "pytest_exit": 0}


@pytest.mark.integration
def test_a_partial_run_names_the_envelope_it_wrote(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `slow run --envelope X` named envelopes/slow.json in its PARTIAL notice.
    target = project / "out" / "mine.json"
    code = main(["slow", "run", "--envelope", str(target), *PYTEST, "-k", "fast"])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    assert "PARTIAL" in err
    assert f"{target} is marked partial" in err
    assert "envelopes/slow.json" not in err
    assert read_envelope(target)["data"]["partial"] is True
