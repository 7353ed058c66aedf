"""``lanes slow pin`` and ``lanes slow unpin``: edit the pin list.

Without ``--ceiling`` or ``--tier``, ``pin`` takes the test's last measurement
(its slowest re-timing when the ratchet re-timed it) from the newer of the ``slow`` envelope (``lanes slow run`` writes it) and the
last-run record every enabled pytest run writes, so the usual flow is: the run
fails naming the test, you pin it with a reason.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from lanes._jsondoc import load_object
from lanes.config import Config, load_config
from lanes.errors import UsageError
from lanes.exitcodes import ExitCode
from lanes.slow.lastrun import last_run_path, read_last_run
from lanes.slow.pins import add_pin, remove_pin
from lanes.slow.verdicts import suggested_ceiling

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

__all__ = ["last_measurement", "run_pin", "run_unpin"]


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0


def last_measurement(config: Config, nodeid: str) -> tuple[str, float] | None:
    """``(tier, seconds)`` of ``nodeid`` from the newer of the last run and the envelope.

    Every enabled pytest run records the last run (``lanes slow run`` writes
    the envelope too), so a plain ``pytest --slow-ratchet`` is enough.
    """
    path = config.envelope_path("slow")
    last = read_last_run(config)["tests"].get(nodeid)
    if last is not None and _mtime(last_run_path(config)) >= _mtime(path):
        return last[0], last[1] / 1000
    try:
        document = load_object(path, what="the slow envelope", fail=ValueError)
    except ValueError:
        document = None
    if document is None:
        return None if last is None else (last[0], last[1] / 1000)
    data = document.get("data")
    data = data if isinstance(data, dict) else {}
    # A re-timed test holds its slowest re-timing (verdicts.held_seconds),
    # not its time in a loaded suite.
    for key in ("offenders", "unconfirmed"):
        entry = _entry(data.get(key), nodeid)
        if entry is None:
            continue
        tier, samples = entry.get("tier"), entry.get("samples_ms")
        if (
            isinstance(tier, str)
            and isinstance(samples, list)
            and samples
            and all(isinstance(ms, int) for ms in samples)
        ):
            return tier, max(samples) / 1000
    entry = _entry(data.get("tests"), nodeid)
    if entry is not None:
        tier, ms = entry.get("tier"), entry.get("ms")
        if isinstance(tier, str) and isinstance(ms, int):
            return tier, ms / 1000
    return None if last is None else (last[0], last[1] / 1000)


def _entry(entries: object, nodeid: str) -> dict[str, object] | None:
    """The dict of ``entries`` (an envelope list) for ``nodeid``, if any."""
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("nodeid") == nodeid:
            return entry
    return None


def _pins_path(config: Config) -> Path:
    return config.root / config.slow.pins


def run_pin(ns: argparse.Namespace) -> int:
    config = load_config(ns.config)
    measured = last_measurement(config, ns.nodeid)
    ceiling: float | None = ns.ceiling
    tier: str | None = ns.tier
    if ceiling is None:
        if measured is None:
            msg = (
                f"no measured duration for {ns.nodeid!r} in {config.envelope_path('slow')} "
                "or the last run's record (which keeps the tests at half their budget or "
                "more), so there is no default ceiling"
            )
            raise UsageError(
                msg,
                hint="pass --ceiling SECONDS (the ratchet's failure message suggests one), "
                "or run the suite under the ratchet first (pytest --slow-ratchet or lanes slow run); "
                "a test far within its budget needs no pin",
            )
        ceiling = suggested_ceiling(measured[1])
    if tier is None:
        tier = measured[0] if measured is not None else config.slow.default_tier
    pin, previous = add_pin(
        _pins_path(config),
        slow=config.slow,
        nodeid=ns.nodeid,
        tier=tier,
        ceiling=ceiling,
        reason=ns.reason,
        tracking=ns.tracking,
        root=config.root,
    )
    verb = "re-pinned" if previous is not None else "pinned"
    print(
        f"{verb} {pin.nodeid} (tier {pin.tier!r}, ceiling {pin.ceiling:g} s, fails past "
        f"{pin.ceiling * config.slow.fail_factor:g} s) in {config.slow.pins}"
    )
    print(
        f"commit {config.slow.pins} with the change; `lanes slow check` reviews new pins "
        "against origin/main (`lanes slow check --base HEAD` before you commit)"
    )
    return ExitCode.OK


def run_unpin(ns: argparse.Namespace) -> int:
    config = load_config(ns.config)
    pin = remove_pin(_pins_path(config), slow=config.slow, nodeid=ns.nodeid, root=config.root)
    print(f"unpinned {shlex.quote(pin.nodeid)} from {config.slow.pins}")
    return ExitCode.OK
