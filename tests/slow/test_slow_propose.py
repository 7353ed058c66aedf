"""`lanes slow propose`: tier budgets sized from a measured run, written into
the user's pyproject.toml without touching anything else."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from lanes.cli import main
from lanes.config import load_config, parse_config
from lanes.errors import ConfigError
from lanes.slow.budget_text import with_budgets
from lanes.slow.propose import PROPOSE_FLOOR, proposals, proposed_budget
from lanes.slow.settings import SlowConfig, Tier

# The child pytest does not need Hypothesis's plugin (seconds of import);
# one sample decides (the planted durations sit far from every boundary).
PYTEST = ["--", "-p", "no:hypothesispytest", "-p", "no:cacheprovider", "-q", "--slow-confirm", "0"]

USER_PYPROJECT = """\
[project]
name = "demo"
version = "0.1"

[tool.pytest.ini_options]
testpaths = ["tests"]
"""

# The suite as measured: its slowest test sleeps 0.05 s, so the proposal is
# the 0.25 s floor unless a loaded machine stretches that sleep past 0.083 s,
# and stays under 1 s (the 2 s test fails past 2 x it) unless it stretches
# past 0.33 s.
MEASURED = """
import time

def test_quick():
    pass

def test_slowest():
    time.sleep(0.05)
"""

# The same suite after a change: one test grew from nothing to 2 s.
GROWN = MEASURED.replace("def test_quick():\n    pass", "def test_quick():\n    time.sleep(2.0)")


def _slow(**tiers: float) -> SlowConfig:
    return SlowConfig(tiers={name: Tier(name=name, budget=b) for name, b in tiers.items()})


def _data(*tests: tuple[str, str, int], **extra: Any) -> dict[str, Any]:
    return {
        "tests": [{"nodeid": n, "tier": t, "ms": ms} for n, t, ms in tests],
        "pins": [],
        "offenders": [],
        "unconfirmed": [],
        "band": [],
        **extra,
    }


def test_a_proposal_is_three_times_the_tier_slowest_test_rounded_up() -> None:
    found = proposals(
        _slow(unit=2.5, integration=15.0),
        _data(("t::a", "unit", 600), ("t::b", "unit", 30), ("t::c", "integration", 4100)),
    )
    assert [(p.tier, p.slowest, p.measured, p.proposed) for p in found] == [
        ("unit", "t::a", 2, 1.8),
        ("integration", "t::c", 1, 13.0),
    ]
    # The example: the seed lets a test grow from nothing to 2 s
    # silently; the proposal puts 2 s past the budget, into the reported band.
    assert found[0].proposed is not None
    assert found[0].proposed < 2.0


def test_a_suite_of_trivial_tests_gets_the_floor_not_jitter() -> None:
    # Three times 2 ms would be a 6 ms budget that any scheduler hiccup fails.
    assert proposed_budget(0.002) == PROPOSE_FLOOR == 0.25
    found = proposals(_slow(unit=2.5), _data(("t::a", "unit", 2)))
    assert found[0].proposed == 0.25


def test_pinned_and_own_budget_tests_do_not_size_their_tier() -> None:
    data = _data(
        ("t::pinned", "unit", 9000),
        ("t::marked", "unit", 5000),
        ("t::retimed", "unit", 3000),
        ("t::plain", "unit", 100),
        pins=[{"nodeid": "t::pinned"}],
        band=[{"nodeid": "t::marked", "own_budget": True}],
        # Slow in a loaded suite, 0.2 s when re-timed alone: it counts at 0.2 s.
        unconfirmed=[{"nodeid": "t::retimed", "own_budget": False, "samples_ms": [150, 200]}],
    )
    (unit,) = proposals(_slow(unit=2.5), data)
    assert (unit.slowest, unit.seconds, unit.measured, unit.proposed) == ("t::retimed", 0.2, 2, 0.6)


def test_a_tier_without_a_measured_test_keeps_its_budget() -> None:
    found = proposals(_slow(unit=2.5, integration=15.0), _data(("t::a", "unit", 100)))
    assert [(p.tier, p.proposed) for p in found] == [("unit", 0.3), ("integration", None)]


def test_hostile_entries_are_skipped_not_trusted() -> None:
    data = {
        "tests": [
            {"nodeid": "t::a", "tier": "unit", "ms": 100},
            {"nodeid": "t::neg", "tier": "unit", "ms": -5},
            {"nodeid": "t::bool", "tier": "unit", "ms": True},
            {"nodeid": 3, "tier": "unit", "ms": 9000},
            "not an entry",
        ],
        "pins": "not a list",
    }
    (unit,) = proposals(_slow(unit=2.5), data)
    assert (unit.slowest, unit.measured) == ("t::a", 1)


PYPROJECT_WITH_TIERS = (
    "# the user's comment\r\n"
    "[tool.lanes.slow]\r\n"
    "fail_factor = 2.0\r\n"
    "\r\n"
    "[tool.lanes.slow.tiers.unit]\r\n"
    "budget = 2.5            # seconds per test (a seed)\r\n"
    'markers = ["unit"]\r\n'
    "\r\n"
    "[tool.lanes.slow.tiers.integration]\r\n"
    "budget = 15.0\r\n"
)


def test_writing_changes_the_budget_numbers_only_and_keeps_crlf() -> None:
    new = with_budgets(PYPROJECT_WITH_TIERS, {"unit": 0.3, "integration": 12.0}, what="p")
    # The comment keeps its column; init's seed note says the number is measured now.
    assert new == PYPROJECT_WITH_TIERS.replace(
        "budget = 2.5            # seconds per test (a seed)",
        "budget = 0.3            # seconds per test (measured)",
    ).replace("budget = 15.0", "budget = 12.0")


def test_the_default_tier_gets_a_table_when_none_is_configured() -> None:
    new = with_budgets(USER_PYPROJECT, {"unit": 0.3}, what="p")
    assert new == USER_PYPROJECT + "\n[tool.lanes.slow.tiers.unit]\nbudget = 0.3\n"
    config = parse_config(tomllib.loads(new)["tool"]["lanes"], root=Path())
    assert config.slow.tiers["unit"].budget == 0.3


@pytest.mark.parametrize(
    "layout",
    [
        # An inline table of tiers: the line edit cannot reach it.
        "[tool.lanes.slow]\ntiers = { unit = { budget = 2.5 } }\n",
        # Dotted keys under the slow table.
        "[tool.lanes.slow]\ntiers.unit.budget = 2.5\n",
        # A budget hidden in a multi-line string that merely looks like the table.
        'x = """\n[tool.lanes.slow.tiers.unit]\nbudget = 2.5\n"""\n',
    ],
)
def test_a_layout_the_edit_cannot_prove_is_refused_with_the_lines_to_set(layout: str) -> None:
    with pytest.raises(ConfigError) as caught:
        with_budgets(layout, {"unit": 0.3}, what="pyproject.toml")
    assert "nothing was written" in caught.value.message
    assert "budget = 0.3 under [tool.lanes.slow.tiers.unit]" in caught.value.hint


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suite: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(USER_PYPROJECT, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_suite.py").write_text(suite, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _slow_run(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["slow", "run", *PYTEST])
    capsys.readouterr()
    envelope: dict[str, Any] = json.loads(Path("envelopes/slow.json").read_text(encoding="utf-8"))
    return code, envelope


@pytest.mark.integration
def test_init_then_a_measured_run_sizes_the_seed_so_a_grown_test_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, monkeypatch, MEASURED)
    assert main(["init", "--no-workflows", "--no-hook", "--lanekit-requirement", "1.0"]) == 0
    out = capsys.readouterr().out
    assert "lanes slow propose --write" in out, "init must say how to size its seed budgets"
    assert load_config(root / "pyproject.toml").slow.tiers["unit"].budget == 2.5

    # The first whole-suite run measures the suite; propose prints, --write sets.
    assert _slow_run(capsys)[0] == 0
    assert main(["slow", "propose"]) == 0
    printed = capsys.readouterr().out
    assert "unit         budget 2.5 s, tighten to" in printed
    assert "to write them: lanes slow propose --write" in printed
    assert load_config(root / "pyproject.toml").slow.tiers["unit"].budget == 2.5
    assert main(["slow", "propose", "--write"]) == 0
    assert "[tool.lanes.slow.tiers.unit] budget = " in capsys.readouterr().out
    budget = load_config(root / "pyproject.toml").slow.tiers["unit"].budget
    # The floor, or 3 x a 0.05 s sleep stretched by a loaded machine.
    assert 0.25 <= budget < 1.0
    # Only the budget's number changed: the user's text and init's comments stay.
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith(USER_PYPROJECT)
    assert f"budget = {budget:<14} # seconds per test (measured)" in text

    # A test grows from nothing to 2 s: under the seed it passed silently, now it fails.
    (root / "tests" / "test_suite.py").write_text(GROWN, encoding="utf-8")
    code, envelope = _slow_run(capsys)
    assert code == 1
    assert [o["nodeid"] for o in envelope["data"]["offenders"]] == [
        "tests/test_suite.py::test_quick"
    ]


@pytest.mark.integration
def test_under_the_seed_the_grown_test_passes_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # What the proposal fixes: the seed's 2.5 s unit budget lets a 2 s test by.
    _project(tmp_path, monkeypatch, GROWN)
    assert main(["init", "--no-workflows", "--no-hook", "--lanekit-requirement", "1.0"]) == 0
    code, envelope = _slow_run(capsys)
    assert (code, envelope["data"]["offenders"], envelope["data"]["band"]) == (0, [], [])


def _envelope(path: Path, **changes: Any) -> None:
    data = {**_data(("t::a", "unit", 4000)), "partial": False, "partial_reasons": []}
    document = {"lane": "slow", "stage": "complete", "data": data}
    for key, value in changes.items():
        if key in ("partial", "partial_reasons"):
            data[key] = value
        else:
            document[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        (
            {"partial": True, "partial_reasons": ["selected paths: tests/test_x.py"]},
            "part of the suite (selected paths: tests/test_x.py)",
        ),
        ({"stage": "error"}, "did not complete"),
        ({"lane": "timing"}, "lane 'timing'"),
    ],
)
def test_a_run_that_cannot_size_budgets_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    changes: dict[str, Any],
    said: str,
) -> None:
    _project(tmp_path, monkeypatch, MEASURED)
    _envelope(tmp_path / "envelopes" / "slow.json", **changes)
    assert main(["slow", "propose", "--write"]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert "nox -s slow" in err
    assert "[tool.lanes" not in (tmp_path / "pyproject.toml").read_text(encoding="utf-8")


def test_no_measured_run_says_how_to_make_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, monkeypatch, MEASURED)
    assert main(["slow", "propose"]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err
    assert "nox -s slow" in err


def test_a_loosening_proposal_is_written_only_when_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A regression measured by the last run must not raise the budget to let itself by.
    root = _project(tmp_path, monkeypatch, MEASURED)
    _envelope(tmp_path / "envelopes" / "slow.json")
    assert main(["slow", "propose", "--write"]) == 0
    out = capsys.readouterr().out
    assert "unit         budget 2.5 s, loosen to 12 s" in out
    assert "not written without --allow-loosen" in out
    assert (root / "pyproject.toml").read_text(encoding="utf-8") == USER_PYPROJECT
    assert main(["slow", "propose", "--write", "--allow-loosen"]) == 0
    assert load_config(root / "pyproject.toml").slow.tiers["unit"].budget == 12.0
