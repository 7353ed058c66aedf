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
from lanes.fuzz.targets import MalformedInputError

if TYPE_CHECKING:
    from pathlib import Path


__all__ = ["KINDS", "STATE_FILES", "Plant", "check_plant", "read_planted_state"]

# (file name, kind, a size knob: nesting depth, MiB past the cap, text length)
Plant = tuple[str, str, int]

# Every state or cache file the governor reads, by the name it has on disk,
# and what can be planted there: declared here, without Hypothesis, so that a
# corpus entry is checked against the very sets lanes.strategies.state_files
# draws from.
STATE_FILES: Final = (
    "verify-ledger.json",
    "test-run.lock",
    "economy.json",
    "gate-config.json",
    "suite-words.tsv",
)
KINDS: Final = (
    "fifo",
    "directory",
    "symlink-to-fifo",
    "symlink-to-dev-zero",
    "symlink-to-file",
    "oversized",
    "deep",
    "text",
)
_SIZES: Final = range(1, 20_001)

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


def check_plant(value: object) -> Plant:
    """``value`` as a plant, or :class:`MalformedInputError` unless the strategy could draw it.

    A corpus entry or an artifact is a file someone else wrote: its file name
    is one of the state files (a plain name: never a ``/``, ``..`` or an
    absolute path), its kind one of the kinds, its size knob in the strategy's
    range. (JSON has no tuples: a saved plant comes back as a list.)
    """
    if isinstance(value, list | tuple) and len(value) == 3:
        name, kind, size = value
        if (
            name in STATE_FILES
            and kind in KINDS
            and isinstance(size, int)
            and not isinstance(size, bool)
            and size in _SIZES
        ):
            return (name, kind, size)
    msg = f"saved state-files input {value!r:.120} is not a plant the strategy generates"
    raise MalformedInputError(
        msg,
        hint=f"a plant is [name, kind, size]: name a plain file name, one of "
        f"{', '.join(STATE_FILES)}; kind one of {', '.join(KINDS)}; size an integer "
        f"{_SIZES.start}..{_SIZES.stop - 1}. Remove the entry and re-save it from a fuzz run",
    )


def _confined(scratch: Path, directory: Path, name: str) -> Path:
    """``directory / name``, refused unless it resolves inside ``scratch``.

    ``name`` passed :func:`check_plant`; this catches the directory itself
    leading elsewhere (a symlink left where the state dir goes).
    """
    path = directory / name
    if not path.parent.resolve().is_relative_to(scratch.resolve()):
        msg = f"state-files plant {str(path)!r} would land outside the scratch directory {str(scratch)!r}"
        raise MalformedInputError(
            msg, hint="remove the symlink from the worker's scratch directory"
        )
    return path


def read_planted_state(plant: Plant) -> object:
    """Plant ``plant`` in a fresh state dir and read it the way the hook does.

    The state dir is inside the worker's private scratch directory, and the
    plant is checked again here: the adapter plants only there, whoever calls it.
    """
    name, kind, size = check_plant(plant)
    scratch = _scratch_dir()
    root = scratch / "state"
    shutil.rmtree(root, ignore_errors=True)
    user = root / "lanekit"
    # exist_ok: rmtree leaves a symlink standing where the state dir goes;
    # _confined then refuses it instead of planting through it.
    user.mkdir(parents=True, exist_ok=True)
    os.environ["XDG_STATE_HOME"] = str(root)  # the per-user files live under it
    directory = user if name in _USER_FILES else root
    path = _confined(scratch, directory, name)
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
