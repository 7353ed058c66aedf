"""``[tool.lanes.timing]`` and ``[tool.lanes.suites.<name>.timing]``: strict, with hints."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import pytest

from lanes.config import load_config, parse_config
from lanes.errors import ConfigError, UsageError
from lanes.timing.lane import TimingLane, baseline_path, cpu_count, plan_for
from lanes.timing.settings import SuiteTiming, TimingConfig

if TYPE_CHECKING:
    from pathlib import Path

SUITE = {"command": "pytest tests -q"}


def _ns(**overrides: object) -> argparse.Namespace:
    values: dict[str, object] = {
        "suite": None,
        "repeat": None,
        "workers": None,
        "max_regression": None,
        "max_wall_regression": None,
        "record": False,
        "self_check": False,
    }
    values.update(overrides)
    return argparse.Namespace(**values)


def test_defaults_when_the_section_is_absent(tmp_path: Path) -> None:
    config = parse_config({"suites": {"unit": SUITE}}, root=tmp_path)
    assert config.timing == TimingConfig()
    assert config.suites["unit"].timing is None
    assert baseline_path(config) == tmp_path / "baselines" / "timing.json"


def test_every_key_parses(tmp_path: Path) -> None:
    config = parse_config(
        {
            "suites": {"unit": {**SUITE, "timing": {"repeat": 1, "workers": 0}}},
            "timing": {
                "repeat": 5,
                "workers": 4,
                "max_regression": 30,
                "baseline": "perf/timing.json",
                "offenders": 8,
            },
        },
        root=tmp_path,
    )
    assert config.timing == TimingConfig(
        repeat=5, workers=4, max_regression=30.0, baseline="perf/timing.json", offenders=8
    )
    assert config.suites["unit"].timing == SuiteTiming(repeat=1, workers=0)
    assert baseline_path(config) == tmp_path / "perf" / "timing.json"
    assert config.to_dict()["timing"]["max_regression"] == 30.0


@pytest.mark.parametrize(
    ("section", "match"),
    [
        ({"repet": 3}, "did you mean 'repeat'"),
        ({"repeat": 0}, r"repeat must be an integer >= 1, got 0"),
        ({"workers": True}, r"workers must be an integer >= 0, got True"),
        ({"max_regression": -5}, r"max_regression must be a finite number > 0, got -5"),
        ({"max_regression": "30%"}, r"max_regression must be a finite number > 0, got '30%'"),
        ({"offenders": 0}, r"offenders must be an integer >= 1"),
    ],
)
def test_bad_values_are_config_errors_with_hints(
    tmp_path: Path, section: dict[str, object], match: str
) -> None:
    with pytest.raises(ConfigError, match=match) as caught:
        parse_config({"timing": section}, root=tmp_path)
    assert caught.value.hint.strip()


def test_a_suite_override_is_as_strict(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"\[tool.lanes.suites.unit.timing\] unknown key 'worker'"
    ):
        parse_config({"suites": {"unit": {**SUITE, "timing": {"worker": 2}}}}, root=tmp_path)


def test_command_line_over_suite_over_section(tmp_path: Path) -> None:
    config = parse_config(
        {
            "suites": {
                "unit": {**SUITE, "timing": {"repeat": 1, "max_regression": 10}},
                "e2e": SUITE,
            },
            "timing": {"repeat": 5, "max_regression": 30},
        },
        root=tmp_path,
    )
    lane = TimingLane()
    plain = lane.resolve(_ns(), config)
    unit_plan, unit_gate = plan_for(config.suites["unit"], plain, config)
    e2e_plan, e2e_gate = plan_for(config.suites["e2e"], plain, config)
    assert (unit_plan.repeat, unit_gate) == (1, 10.0)
    assert (e2e_plan.repeat, e2e_gate) == (5, 30.0)
    assert unit_plan.workers == cpu_count()
    forced = lane.resolve(_ns(repeat=2, workers=0, max_regression=50.0), config)
    plan, gate = plan_for(config.suites["unit"], forced, config)
    assert (plan.repeat, plan.workers, gate) == (2, 0, 50.0)


def test_an_unknown_suite_on_the_command_line_names_the_configured_ones(tmp_path: Path) -> None:
    config = parse_config({"suites": {"unit": SUITE}}, root=tmp_path)
    with pytest.raises(UsageError, match="'nope': no such suite") as caught:
        TimingLane().resolve(_ns(suite=["nope"]), config)
    assert "unit" in caught.value.hint


def test_lanekits_own_configuration_parses() -> None:
    config = load_config()
    assert "unit" in config.suites
    assert config.timing.offenders >= 1
