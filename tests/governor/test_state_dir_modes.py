"""Which modes of a state dir or file the governor trusts, and what it says when it does not.

Writable by others (``o+w``) is refused, with the mode in the message so the
user sees what to ``chmod``; group-writable is accepted (a shared-group
checkout under ``umask 002``); an absent path is not this check's business.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.governor.state.trust import distrust, distrust_state

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize("mode", [0o777, 0o757, 0o703, 0o1777])
def test_a_dir_others_can_write_is_refused_with_its_mode(tmp_path: Path, mode: int) -> None:
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(mode)  # the hostile setup under test
    assert distrust(str(state)) == f"{state} is writable by other users (mode {mode:o})"


@pytest.mark.parametrize("mode", [0o700, 0o770, 0o775, 0o755, 0o2775])
def test_a_dir_only_you_and_your_group_can_write_is_trusted(tmp_path: Path, mode: int) -> None:
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(mode)
    assert distrust(str(state)) is None


def test_an_absent_path_is_left_to_its_reader(tmp_path: Path) -> None:
    assert distrust(str(tmp_path / "missing")) is None


def test_the_first_untrusted_file_of_a_state_dir_is_named(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    ledger, lock = tmp_path / "verify-ledger.json", tmp_path / "run.lock"
    ledger.write_text("{}")
    lock.write_text("{}")
    ledger.chmod(0o644)
    lock.chmod(0o666)
    assert distrust_state(str(tmp_path), [str(ledger), str(lock)]) == (
        f"{lock} is writable by other users (mode 666)"
    )
    lock.chmod(0o664)
    assert distrust_state(str(tmp_path), [str(ledger), str(lock)]) is None
