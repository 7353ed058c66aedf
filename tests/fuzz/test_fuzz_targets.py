"""The target registry: references resolve, user targets load, the fingerprint tracks the case set."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.config import parse_config
from lanes.errors import ConfigError, UsageError
from lanes.fuzz.engine import load_strategy
from lanes.fuzz.selfcheck import SELF_CHECK_TARGETS
from lanes.fuzz.targets import (
    BUILTIN_TARGETS,
    Target,
    registry_fingerprint,
    select_targets,
    targets_from_config,
)
from lanes.fuzz.watchdog import load_target

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize("target", [*BUILTIN_TARGETS, *SELF_CHECK_TARGETS], ids=lambda t: t.name)
def test_every_registered_reference_resolves(target: Target) -> None:
    func, error = load_target(target)
    assert callable(func)
    assert issubclass(error, BaseException)
    load_strategy(target)


def test_target_names_are_unique() -> None:
    names = [target.name for target in (*BUILTIN_TARGETS, *SELF_CHECK_TARGETS)]
    assert len(names) == len(set(names))


def test_user_targets_come_from_config(tmp_path: Path) -> None:
    table = {
        "fuzz": {
            "targets": {
                "dates": {"callable": "json:loads", "strategy": "mod:s", "hint_attribute": ""}
            }
        }
    }
    [target] = targets_from_config(parse_config(table, root=tmp_path))
    assert (target.name, target.callable, target.error, target.hint_attribute) == (
        "dates",
        "json:loads",
        "lanes.errors:LanesError",
        "",
    )
    assert target.origin == "[tool.lanes.fuzz.targets.dates]"


def test_a_user_target_may_not_shadow_a_builtin(tmp_path: Path) -> None:
    table = {"fuzz": {"targets": {"payload": {"callable": "json:loads", "strategy": "mod:s"}}}}
    with pytest.raises(ConfigError) as caught:
        targets_from_config(parse_config(table, root=tmp_path))
    assert "rename it" in caught.value.hint


def test_a_reference_to_a_non_strategy_is_a_config_error() -> None:
    target = Target(
        name="t", callable="json:loads", strategy="json:dumps", origin="[tool.lanes.fuzz.targets.t]"
    )
    with pytest.raises(ConfigError) as caught:
        load_strategy(target)
    assert "[tool.lanes.fuzz.targets.t] strategy" in caught.value.message


def test_select_narrows_in_registry_order_and_rejects_unknown_names() -> None:
    chosen = select_targets(BUILTIN_TARGETS, ["lock", "payload"])
    assert [t.name for t in chosen] == ["payload", "lock"]
    assert select_targets(BUILTIN_TARGETS, []) == BUILTIN_TARGETS
    with pytest.raises(UsageError) as caught:
        select_targets(BUILTIN_TARGETS, ["paylod"])
    assert "payload" in caught.value.hint


def test_fingerprint_changes_with_the_strategy_source_and_the_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "fuzz_fingerprint_strategies.py"
    module.write_text(
        "from hypothesis import strategies as st\nwords = st.text()\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    target = Target(name="t", callable="json:loads", strategy="fuzz_fingerprint_strategies:words")
    before = registry_fingerprint([target], {"iterations": 10})
    assert registry_fingerprint([target], {"iterations": 10}) == before

    module.write_text(
        "from hypothesis import strategies as st\nwords = st.binary()\n", encoding="utf-8"
    )
    assert registry_fingerprint([target], {"iterations": 10}) != before
    renamed = Target(name="u", callable="json:loads", strategy="fuzz_fingerprint_strategies:words")
    assert registry_fingerprint([renamed], {"iterations": 10})["targets"] != before["targets"]
