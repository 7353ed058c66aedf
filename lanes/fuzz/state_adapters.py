"""The ``state-files`` fuzz target: plant a hostile object at a state path,
then call the governor's real reader of that path.

Every reader here fails open or refuses with its own typed error; none may
block (the watchdog's case budget turns a hang into a failure), raise any
other exception, or read without bound. A case returns what the reader
answered, so the target never "rejects": anything raised is a finding.
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING, Final

from lanes.fuzz.adapters import _scratch_dir  # the worker's own scratch dir

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.strategies.state_files import Plant

__all__ = ["read_planted_state"]

# Past every reader's cap (the largest, the envelope's, is 64 MiB): a sparse
# file costs nothing to create and would cost gigabytes to read whole.
_PAST_EVERY_CAP: Final = 65 << 20
# The per-user files (under $XDG_STATE_HOME/lanekit); the rest live in the state dir.
_USER_FILES: Final = ("economy.json", "gate-config.json", "suite-words.tsv")


def _plant(path: Path, kind: str, size: int) -> None:
    target = path.with_name(path.name + ".target")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "symlink-to-fifo":
        os.mkfifo(target)
        path.symlink_to(target)
    elif kind == "symlink-to-dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "symlink-to-file":
        target.write_text("{}", encoding="utf-8")
        path.symlink_to(target)
    elif kind == "oversized":
        with path.open("wb") as handle:
            handle.truncate(_PAST_EVERY_CAP + (size % 8) * (1 << 20))
    elif kind == "deep":
        path.write_text('{"x": ' + "[" * size + "]" * size + "}", encoding="utf-8")
    else:
        path.write_text('{"format": "x"}'[: size % 16], encoding="utf-8")


def read_planted_state(plant: Plant) -> object:
    """Plant ``plant`` in a fresh state dir and read it the way the hook does."""
    name, kind, size = plant
    root = _scratch_dir() / "state"
    shutil.rmtree(root, ignore_errors=True)
    user = root / "lanekit"
    user.mkdir(parents=True)
    os.environ["XDG_STATE_HOME"] = str(root)  # the per-user files live under it
    directory = user if name in _USER_FILES else root
    path = directory / name
    _plant(path, kind, size)
    return _read(name, str(path))


def _read(name: str, path: str) -> object:
    from lanes.governor.state.env import OSEnvironment  # noqa: PLC0415

    env = OSEnvironment()
    if name == "verify-ledger.json":
        from lanes.governor.state import ledger  # noqa: PLC0415

        return ledger.read(env, path)
    if name == "test-run.lock":
        from lanes.governor.state import lock  # noqa: PLC0415

        return lock.inspect(env, path).status
    if name == "economy.json":
        from lanes.governor.state import economy_store  # noqa: PLC0415

        try:
            return economy_store.read_session("/project", "session")
        except economy_store.Unreadable as exc:
            return f"unreadable: {exc}"
    if name == "gate-config.json":
        from lanes.governor.config_cache import ConfigCache  # noqa: PLC0415

        return ConfigCache().rows()  # the hook's own reader of the cache
    from lanes.governor.screen.prescreen import read_suite_words  # noqa: PLC0415

    return read_suite_words()
