"""``[tool.lanes]`` as loaded: valid tables round-trip, invalid ones are always a ConfigError with a hint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from lanes.config import Config, parse_config
from lanes.errors import ConfigError
from lanes.governor.classify.runners.names import COMMAND_RUNNER, RUNNERS
from lanes.strategies.tables import config_tables
from lanes.torture.settings import SCHEDULERS

ROOT = Path("/nonexistent/project")

_names = st.text(alphabet="abcdefghij-_", min_size=1, max_size=8)
_paths = st.lists(
    st.text(alphabet="abc/._", min_size=1, max_size=10).filter(str.strip), min_size=1, max_size=3
)
_positive = st.integers(min_value=1, max_value=10**6)
_reference = st.builds(
    lambda m, a: f"{m}:{a}", st.from_regex(r"[a-z]{1,5}(\.[a-z]{1,5}){0,2}", fullmatch=True), _names
)


@st.composite
def _governor(draw: st.DrawFn) -> dict[str, Any]:
    max_full = draw(st.integers(0, 10))
    return {
        "max_full": max_full,
        "escalate_at": draw(st.integers(max_full + 1, max_full + 10)),
        "lock_ttl": draw(_positive),
        "sweep_min_paths": draw(_positive),
        "gate_runners": draw(st.lists(st.sampled_from(RUNNERS), unique=True, max_size=3)),
    }


@st.composite
def _slow(draw: st.DrawFn) -> dict[str, Any]:
    tiers = draw(
        st.dictionaries(
            _names,
            st.fixed_dictionaries(
                {"budget": st.floats(min_value=0.01, max_value=1e4)},
                optional={"markers": st.lists(_names, max_size=2), "paths": _paths},
            ),
            min_size=1,
            max_size=3,
        )
    )
    return {
        "enabled": draw(st.booleans()),
        "fail_factor": draw(st.floats(min_value=1.0, max_value=100.0)),
        "default_tier": draw(st.sampled_from(sorted(tiers))),
        "tighten_below": draw(st.floats(min_value=0.01, max_value=1.0)),
        "pins": "baselines/slow-tests.json",
        "tiers": tiers,
    }


def _suite(tiers: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    # A suite's tier must name a defined slow tier (else a ConfigError).
    return st.fixed_dictionaries(
        {"paths": _paths},
        optional={
            "command": st.text(alphabet="pytes -q/", min_size=1, max_size=20).filter(str.strip),
            "max_age": _positive,
            "tier": st.sampled_from(tiers),
            "runner": st.sampled_from((*RUNNERS, COMMAND_RUNNER)),
            "lock": st.booleans(),
        },
    )


_fuzz = st.fixed_dictionaries(
    {},
    optional={
        "iterations": _positive,
        "seed": st.integers(0, 2**32),
        "case_budget": st.floats(min_value=0.001, max_value=60),
        "targets": st.dictionaries(
            _names,
            st.fixed_dictionaries(
                {"callable": _reference, "strategy": _reference},
                optional={
                    "error": _reference,
                    "hint_attribute": st.sampled_from(("hint", "", "message")),
                },
            ),
            max_size=2,
        ),
    },
)
_torture = st.fixed_dictionaries(
    {},
    optional={
        "runs": _positive,
        "seed_start": st.integers(0, 10**6),
        "clients": st.integers(2, 16),
        "ops": _positive,
        "scheduler": st.sampled_from(SCHEDULERS),
    },
)


@st.composite
def _valid_tables(draw: st.DrawFn) -> dict[str, Any]:
    table: dict[str, Any] = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "governor": _governor(),
                "slow": _slow(),
                "fuzz": _fuzz,
                "torture": _torture,
                "envelope_dir": _names,
                "baseline_dir": _names,
            },
        )
    )
    tiers = sorted(table["slow"]["tiers"]) if "slow" in table else ["unit"]
    if draw(st.booleans()):
        table["suites"] = draw(st.dictionaries(_names, _suite(tiers), max_size=3))
    return table


valid_tables = _valid_tables()


def _as_table(config: Config) -> dict[str, Any]:
    """Config.to_dict() turned back into the [tool.lanes] table it stands for."""

    def plain(value: Any) -> Any:
        if isinstance(value, tuple | list):
            return [plain(item) for item in value]
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        return value

    def unnamed(entries: dict[str, dict[str, Any]]) -> dict[str, Any]:
        return {
            name: {k: plain(v) for k, v in entry.items() if k != "name"}
            for name, entry in entries.items()
        }

    view = config.to_dict()
    return {
        "suites": unnamed(view["suites"]),
        "governor": plain(view["governor"]),
        "slow": {**plain(view["slow"]), "tiers": unnamed(view["slow"]["tiers"])},
        "fuzz": {**plain(view["fuzz"]), "targets": unnamed(view["fuzz"]["targets"])},
        "torture": plain(view["torture"]),
        "envelope_dir": view["envelope_dir"],
        "baseline_dir": view["baseline_dir"],
    }


@given(valid_tables)
def test_valid_table_round_trips_through_to_dict(table: dict[str, Any]) -> None:
    config = parse_config(table, root=ROOT)
    again = parse_config(_as_table(config), root=ROOT)
    assert again == config
    assert again.to_dict() == config.to_dict()


@given(config_tables())
def test_any_table_loads_or_raises_config_error_with_a_hint(table: dict[str, Any]) -> None:
    try:
        parse_config(table, root=ROOT)
    except ConfigError as exc:
        rejection = exc
    else:
        return
    assert rejection.hint.strip()
    assert rejection.message.strip()
