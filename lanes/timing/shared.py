"""One suite run for two lanes: the timing lane measures it, the slow ratchet rides along.

The main job (``nox -s lanes``) used to run lanekit's whole suite twice — once
under the slow-test ratchet (``lanes slow run``), once for the timing lane's
figures — which was half its time. ``lanes timing --with-slow-ratchet PATH``
runs the suite once, under the timing lane's reaper and probe, with the
ratchet enabled (``--slow-json=PATH``); ``lanes slow run --from-run PATH``
then judges from that run instead of starting its own.

The contract between the two, kept here so that writer and reader share it:

- the ratchet's result is ``PATH`` (the plugin writes it, as for
  ``lanes slow run``);
- pytest's exit status is ``PATH`` + :data:`EXIT_SUFFIX`, written by the
  timing lane after the run (the ratchet's result cannot hold it: the plugin
  writes it before pytest has decided its exit status), so the slow lane
  judges the run exactly as it judges its own child's.

What the timing lane then measured is a different arm from a plain run — the
ratchet's hooks and its confirmation re-timings of offenders run inside it —
so its baseline comparison is against the arm recorded the same way
(:func:`lanes.timing.baseline.arm_key`), never against a plain run's figures.
"""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING, Final

from lanes._atomic import write_atomic
from lanes._jsondoc import read_bytes
from lanes.errors import LanesError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "EXIT_SUFFIX",
    "RATCHET_OPTION",
    "SharedRunError",
    "clear_shared",
    "exit_path",
    "read_exit",
    "write_exit",
]

RATCHET_OPTION: Final = "--slow-json"
"""The ratchet's option that enables it and names its result (``--slow-json=PATH``)."""
EXIT_SUFFIX: Final = ".pytest-exit"
# pytest's exit statuses run 0..5; a plugin may add its own, never past a byte.
_MAX_EXIT: Final = 255
# "255\n" and some room for a CRLF or spaces; anything longer is not ours.
_MAX_EXIT_BYTES: Final = 16


class SharedRunError(LanesError, ValueError):
    """The shared run's exit-status file is missing or is not an exit status."""


def exit_path(result: Path) -> Path:
    """Where the exit status of the run whose ratchet result is ``result`` is kept."""
    return result.with_name(result.name + EXIT_SUFFIX)


def clear_shared(result: Path) -> None:
    """Before a shared run: no earlier run's result or exit status is left to be judged."""
    result.parent.mkdir(parents=True, exist_ok=True)
    result.unlink(missing_ok=True)
    exit_path(result).unlink(missing_ok=True)


def write_exit(result: Path, code: int) -> None:
    """Record pytest's exit status beside the ratchet's result ``result``."""
    write_atomic(exit_path(result), f"{code}\n")


def read_exit(result: Path) -> int:
    """pytest's exit status of the shared run whose ratchet result is ``result``."""
    path = exit_path(result)
    try:
        # A few bytes from a regular file: never a FIFO or a device (_jsondoc).
        data = read_bytes(path, max_bytes=_MAX_EXIT_BYTES, follow_symlinks=True)
        if data is None:
            raise FileNotFoundError(errno.ENOENT, "no such file")
        text = data.decode("utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"the shared run's exit status {str(path)!r} cannot be read: {exc}"
        raise SharedRunError(
            msg,
            hint="run `lanes timing --with-slow-ratchet PATH` first (it writes PATH and "
            f"PATH{EXIT_SUFFIX}), then `lanes slow run --from-run PATH` with the same PATH",
        ) from None
    if not text.isdigit() or int(text) > _MAX_EXIT:
        msg = f"the shared run's exit status {str(path)!r} holds {text[:40]!r}, not 0..{_MAX_EXIT}"
        raise SharedRunError(
            msg,
            hint="the file is written by `lanes timing --with-slow-ratchet`: run it again "
            "rather than editing the file",
        )
    return int(text)
