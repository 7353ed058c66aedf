"""``[tool.lanes]`` -> Config: discovery, defaults, and every way to get it wrong."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest

from lanes.config import Config, Suite, fingerprint, load_config, parse_config
from lanes.errors import ConfigError


def _parse(raw: dict[str, Any], tmp_path: Path) -> Config:
    return parse_config(raw, root=tmp_path)


def _error(raw: dict[str, Any], tmp_path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as raised:
        _parse(raw, tmp_path)
    error = raised.value
    assert error.hint.strip(), "every ConfigError must say what to do"
    return error


# ------------------------------------------------------------------ discovery


def test_nearest_pyproject_upward_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.lanes.suites.outer]\npaths = ["outer"]\n', encoding="utf-8"
    )
    inner = tmp_path / "inner"
    (inner / "deep" / "er").mkdir(parents=True)
    (inner / "pyproject.toml").write_text(
        '[tool.lanes.suites.inner]\npaths = ["t"]\n', encoding="utf-8"
    )
    config = load_config(cwd=inner / "deep" / "er")
    assert list(config.suites) == ["inner"]
    assert config.root == inner.resolve()
    assert config.source == (inner / "pyproject.toml").resolve()


def test_explicit_path_beats_discovery(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.lanes]\n", encoding="utf-8")
    other = tmp_path / "elsewhere.toml"
    other.write_text('[tool.lanes.suites.x]\npaths = ["x"]\n', encoding="utf-8")
    config = load_config(other, cwd=tmp_path)
    assert list(config.suites) == ["x"]
    assert config.root == tmp_path.resolve()


def test_missing_explicit_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist") as raised:
        load_config(tmp_path / "nope.toml")
    assert repr(str((tmp_path / "nope.toml").resolve())) in raised.value.message


def test_directory_as_config_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config(tmp_path)


def test_invalid_toml(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.lanes\nx = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="is not valid TOML") as raised:
        load_config(cwd=tmp_path)
    assert "line 1" in raised.value.message
    assert raised.value.hint


def test_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_bytes(b"[tool.lanes]\nx = '\xff'\n")
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config(cwd=tmp_path)


# ------------------------------------------------------------------ defaults


def _default_suites() -> dict[str, Suite]:
    return {"tests": Suite(name="tests", paths=("tests",), command="pytest tests")}


def test_no_pyproject_at_all(tmp_path: Path) -> None:
    config = load_config(cwd=tmp_path)
    assert dict(config.suites) == _default_suites()
    assert config.source is None
    assert config.root == tmp_path.resolve()


def test_pyproject_without_tool_lanes(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    config = load_config(cwd=tmp_path)
    assert dict(config.suites) == _default_suites()
    assert config.envelope_path("timing") == tmp_path.resolve() / "envelopes" / "timing.json"


def test_empty_suites_table_means_the_default_suite(tmp_path: Path) -> None:
    assert dict(_parse({"suites": {}}, tmp_path).suites) == _default_suites()


def test_suite_defaults_and_path_normalisation(tmp_path: Path) -> None:
    suite = _parse({"suites": {"unit": {"paths": ["./tests/unit/"]}}}, tmp_path).suites["unit"]
    assert suite == Suite(name="unit", paths=("tests/unit",), command="pytest tests/unit")


def test_command_suite_needs_no_paths(tmp_path: Path) -> None:
    raw = {"suites": {"all": {"command": "make verify", "runner": "command"}}}
    suite = _parse(raw, tmp_path).suites["all"]
    assert (suite.paths, suite.command, suite.lock) == ((), "make verify", False)


def test_suite_with_neither_paths_nor_command(tmp_path: Path) -> None:
    # Regression: this produced Suite(paths=(), command="") silently; the
    # lanes would then run an empty command.
    error = _error({"suites": {"unit": {"max_age": 10}}}, tmp_path)
    assert "[tool.lanes.suites.unit]" in error.message
    assert "paths" in error.message
    assert "command" in error.message


def test_config_is_frozen(tmp_path: Path) -> None:
    config = _parse({}, tmp_path)
    with pytest.raises(AttributeError):
        config.envelope_dir = "x"  # type: ignore[misc]  # the point: frozen dataclass
    with pytest.raises(TypeError):
        config.suites["x"] = config.suites["tests"]  # type: ignore[index]  # read-only mapping


def test_to_dict_and_fingerprint_are_stable(tmp_path: Path) -> None:
    first = _parse({"slow": {"tiers": {"unit": {"budget": 1}}}}, tmp_path).to_dict()
    second = _parse({"slow": {"tiers": {"unit": {"budget": 1.0}}}}, tmp_path).to_dict()
    assert fingerprint(first) == fingerprint(second)
    assert fingerprint(first).startswith("sha256:")
    assert first["slow"]["tiers"]["unit"]["budget"] == 1.0


# ------------------------------------------------------------------ unknown keys


def test_did_you_mean(tmp_path: Path) -> None:
    error = _error({"suites": {"unit": {"paths": ["t"], "max_agee": 5}}}, tmp_path)
    assert (
        error.message == "[tool.lanes.suites.unit] unknown key 'max_agee' — did you mean 'max_age'?"
    )
    assert "max_age" in error.hint
    assert "paths" in error.hint  # the hint lists what is allowed


@pytest.mark.parametrize(
    ("raw", "table", "key"),
    [
        ({"suite": {}}, "tool.lanes", "suite"),
        ({"governor": {"max_ful": 1}}, "tool.lanes.governor", "max_ful"),
        ({"slow": {"fail_factr": 2.0}}, "tool.lanes.slow", "fail_factr"),
        (
            {"slow": {"tiers": {"unit": {"budget": 1, "marker": []}}}},
            "tool.lanes.slow.tiers.unit",
            "marker",
        ),
        ({"fuzz": {"iteration": 5}}, "tool.lanes.fuzz", "iteration"),
        (
            {"fuzz": {"targets": {"t": {"callable": "a:b", "strategy": "a:c", "erorr": "x"}}}},
            "tool.lanes.fuzz.targets.t",
            "erorr",
        ),
        ({"torture": {"client": 3}}, "tool.lanes.torture", "client"),
    ],
)
def test_unknown_key_in_every_section(
    tmp_path: Path, raw: dict[str, Any], table: str, key: str
) -> None:
    error = _error(raw, tmp_path)
    assert error.message.startswith(f"[{table}] unknown key {key!r} — did you mean '")


def test_unknown_key_without_a_close_match(tmp_path: Path) -> None:
    error = _error({"torture": {"zzzzzz": 1}}, tmp_path)
    assert error.message == "[tool.lanes.torture] unknown key 'zzzzzz'"
    assert "runs" in error.hint


# ------------------------------------------------------------------ wrong types and values


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        # bool is an int to Python; `max_age = true` is still a mistake
        (
            {"suites": {"u": {"paths": ["t"], "max_age": True}}},
            "max_age must be an integer >= 1, got True",
        ),
        ({"suites": {"u": {"paths": ["t"], "max_age": 0}}}, "got 0"),
        ({"suites": {"u": {"paths": ["t"], "max_age": 60.0}}}, "got 60.0"),
        ({"suites": {"u": {"paths": ["t"], "max_age": "1h"}}}, "got '1h'"),
        ({"suites": {"u": {"paths": "tests"}}}, "paths must be a non-empty list"),
        ({"suites": {"u": {"paths": []}}}, "got []"),
        ({"suites": {"u": {"paths": ["t", 3]}}}, "got ['t', 3]"),
        ({"suites": {"u": {"paths": [" "]}}}, "got [' ']"),
        ({"suites": {"u": {"command": ""}}}, "command must be a non-empty string, got ''"),
        ({"suites": {"u": {"paths": ["t"], "runner": "jest2"}}}, "runner must be one of"),
        (
            {"suites": {"u": {"paths": ["t"], "lock": "yes"}}},
            "lock must be true or false, got 'yes'",
        ),
        ({"suites": {"u": 3}}, "[tool.lanes.suites.u] must be a table, got int 3"),
        ({"suites": ["unit"]}, "suites must be a table, got ['unit']"),
        ({"governor": 1}, "[tool.lanes.governor] must be a table"),
        ({"governor": {"max_full": -1}}, "max_full must be an integer >= 0, got -1"),
        ({"governor": {"max_full": False}}, "got False"),
        (
            {"governor": {"max_full": 3, "escalate_at": 3}},
            "escalate_at must be greater than max_full (3), got 3",
        ),
        (
            {"governor": {"gate_runners": ["pytest", "nosetests"]}},
            "gate_runners must be a list of runner names",
        ),
        ({"slow": {"fail_factor": 0.5}}, "fail_factor must be a finite number >= 1, got 0.5"),
        ({"slow": {"fail_factor": math.inf}}, "got inf"),
        ({"slow": {"fail_factor": math.nan}}, "got nan"),
        ({"slow": {"fail_factor": True}}, "got True"),
        ({"slow": {"tighten_below": 0}}, "tighten_below must be a finite number > 0, got 0"),
        ({"slow": {"tiers": {"unit": {"budget": 0}}}}, "budget must be a finite number > 0, got 0"),
        ({"slow": {"tiers": {"unit": {}}}}, "[tool.lanes.slow.tiers.unit] has no budget"),
        (
            {"slow": {"tiers": {"fast": {"budget": 1}}}},
            "default_tier 'unit' is not a configured tier (tiers: fast)",
        ),
        ({"slow": {"default_tier": "huge"}}, "default_tier 'huge' is not a configured tier"),
        (
            {"fuzz": {"targets": {"t": {"strategy": "a:b"}}}},
            "[tool.lanes.fuzz.targets.t] has no callable",
        ),
        ({"fuzz": {"targets": {"t": {"callable": "nocolon", "strategy": "a:b"}}}}, "got 'nocolon'"),
        (
            {"fuzz": {"targets": {"t": {"callable": "a:b", "strategy": "a:", "error": "x:y"}}}},
            "got 'a:'",
        ),
        ({"fuzz": {"iterations": 0}}, "iterations must be an integer >= 1, got 0"),
        ({"torture": {"clients": 1}}, "clients must be an integer >= 2, got 1"),
        (
            {"torture": {"scheduler": "fifo"}},
            "scheduler must be one of 'random', 'pct', got 'fifo'",
        ),
        ({"envelope_dir": ""}, "envelope_dir must be a relative path inside the project"),
        ({"baseline_dir": 5}, "got 5"),
        # Paths lanekit writes to stay inside the project.
        ({"envelope_dir": "/"}, "envelope_dir must be a relative path inside the project"),
        ({"envelope_dir": "../out"}, "got '../out'"),
        ({"baseline_dir": "a/../../b"}, "baseline_dir must be a relative path inside the project"),
        ({"slow": {"pins": "../x"}}, "pins must be a relative path inside the project"),
        (
            {"fuzz": {"targets": {"../escape": {"callable": "a:b", "strategy": "a:c"}}}},
            "'../escape' is not a valid target name",
        ),
        # Strings and lists in number fields: a typed error, never float()-coerced.
        ({"slow": {"fail_factor": "2.5"}}, "got '2.5'"),
        ({"slow": {"fail_factor": []}}, "got []"),
        ({"governor": {"lock_ttl": "abc"}}, "got 'abc'"),
        ({"governor": {"lock_ttl": [1]}}, "got [1]"),
    ],
)
def test_rejected(tmp_path: Path, raw: dict[str, Any], needle: str) -> None:
    error = _error(raw, tmp_path)
    assert needle in error.message, error.message
    assert error.message.startswith("[tool.lanes")


def test_governor_escalation_may_exceed_max_full(tmp_path: Path) -> None:
    governor = _parse({"governor": {"max_full": 0, "escalate_at": 1}}, tmp_path).governor
    assert (governor.max_full, governor.escalate_at) == (0, 1)


def test_slow_tiers_replace_the_default_tier(tmp_path: Path) -> None:
    raw = {
        "slow": {
            "default_tier": "fast",
            "tiers": {
                "fast": {"budget": 1, "paths": ["tests/unit"]},
                "e2e": {"budget": 30, "markers": ["e2e"]},
            },
        }
    }
    slow = _parse(raw, tmp_path).slow
    assert sorted(slow.tiers) == ["e2e", "fast"]
    assert slow.tiers["e2e"].markers == ("e2e",)


def test_fuzz_target(tmp_path: Path) -> None:
    raw = {
        "fuzz": {
            "targets": {
                "t": {
                    "callable": "pkg.mod:parse",
                    "strategy": "pkg.st:inputs",
                    "hint_attribute": "",
                }
            }
        }
    }
    target = _parse(raw, tmp_path).fuzz.targets["t"]
    assert (target.error, target.hint_attribute) == ("lanes.errors:LanesError", "")


def test_the_repository_config_loads() -> None:
    # lanekit dogfoods [tool.lanes]; its own pyproject must always be valid.
    config = load_config(Path(__file__).parents[2] / "pyproject.toml")
    assert config.suites


def test_deeply_nested_toml_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.lanes]\nx = " + "[" * 3000 + "]" * 3000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="too deeply") as raised:
        load_config(path)
    assert raised.value.hint


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_config_that_is_not_a_regular_file_is_refused_without_blocking(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "pyproject.toml"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(path)
