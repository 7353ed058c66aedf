"""``lanes slow check``: the pin list may only shrink.

Compares the working tree's pin file with the base revision's
(``git show REF:<pins>``):

- a pin that is new, or changed, and lacks a reason or a tracking reference
  fails: growing the list needs a justification in the same change;
- a pin for a test that no longer exists fails (stale). Existence is decided
  by collecting the suite (``pytest --collect-only``), because only collection
  knows every test: the last envelope lists only the tests that ran, so a
  deselected or skipped test would look gone;
- a pin whose last ``slow`` envelope says ``removable`` — measured within its
  tier budget ``removable_after`` runs in a row, per the history the envelope
  carries — is reported (informational: timing is the run's job, and a noisy
  measurement must not fail review).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lanes._jsondoc import load_object
from lanes.config import Config, load_config
from lanes.errors import LanesError, UsageError
from lanes.exitcodes import ExitCode
from lanes.slow.pins import Pin, PinList, justification_problems, load_pins, parse_pins

if TYPE_CHECKING:
    import argparse

__all__ = ["CheckResult", "base_pins", "check_pins", "collect_nodeids", "run_check"]


@dataclass(frozen=True)
class CheckResult:
    added: tuple[Pin, ...]
    removed: tuple[Pin, ...]
    raised: tuple[Pin, ...]
    unjustified: tuple[Pin, ...]
    stale: tuple[Pin, ...]
    removable: tuple[tuple[Pin, int, int], ...]
    """(pin, measured ms, tier budget ms) from the last envelope."""

    @property
    def passed(self) -> bool:
        return not self.unjustified and not self.stale


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
        )
    except OSError as exc:
        msg = f"cannot run git: {exc}"
        raise UsageError(
            msg,
            hint="install git: `lanes slow check` compares the pin file with a base revision",
        ) from None


def base_pins(root: Path, pins_path: str, base: str) -> PinList:
    """The pin list at revision ``base``; empty when the file did not exist there."""
    if _git(root, "rev-parse", "--git-dir").returncode != 0:
        msg = f"{root} is not inside a git repository, so there is no base pin list to compare with"
        raise UsageError(
            msg,
            hint="run `lanes slow check` in the project's git checkout",
        )
    resolved = _git(root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}")
    if resolved.returncode != 0:
        msg = f"base revision {base!r} does not exist in the repository at {root}"
        raise UsageError(
            msg,
            hint="pass --base REF: the branch the change will merge into (e.g. --base origin/main "
            "after `git fetch origin main`), or --base HEAD to check uncommitted pin edits",
        )
    spec = f"{resolved.stdout.strip()}:./{pins_path}"
    if _git(root, "cat-file", "-e", spec).returncode != 0:
        return PinList(source=f"{base}:{pins_path}", pins={})
    shown = _git(root, "show", spec)
    if shown.returncode != 0:
        msg = f"cannot read {pins_path} at {base!r}: {shown.stderr.strip()}"
        raise UsageError(
            msg,
            hint="check that the repository is not a shallow clone missing that revision "
            "(git fetch --unshallow, or git fetch origin <base branch>)",
        )
    # The base's tiers may differ from today's configuration: validate shape only.
    return parse_pins(shown.stdout, source=f"{base}:{pins_path}")


def collect_nodeids(root: Path, pytest_args: list[str]) -> set[str]:
    """Every test pytest collects with ``pytest_args`` (run from ``root``)."""
    with tempfile.TemporaryDirectory(prefix="lanes-slow-check-") as tmp:
        out = Path(tmp) / "nodeids.txt"
        command = [
            sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "lanes.slow",
            "--slow-collect-to", str(out), *pytest_args,
        ]  # fmt: skip
        proc = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
        if proc.returncode not in (0, 5) or (proc.returncode == 0 and not out.exists()):
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            msg = (
                f"collecting the suite failed (pytest exit {proc.returncode}), so stale pins "
                f"cannot be judged:\n{tail}"
            )
            raise LanesError(
                msg,
                hint="fix the collection errors shown, or pass the pytest arguments that select "
                "your suite after `--` (lanes slow check -- tests/)",
            )
        try:
            return set(out.read_text(encoding="utf-8").splitlines())
        except FileNotFoundError:
            return set()  # exit 5: nothing collected


def _removable(config: Config, pins: PinList) -> tuple[tuple[Pin, int, int], ...]:
    """Pins the last ``slow`` envelope found within their tier budget."""
    try:
        document = load_object(
            config.envelope_path("slow"), what="the slow envelope", fail=ValueError
        )
    except ValueError:
        return ()
    data = document.get("data") if document is not None else None
    entries = data.get("pins") if isinstance(data, dict) else None
    out: list[tuple[Pin, int, int]] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or entry.get("state") != "removable":
            continue
        pin = pins.get(str(entry.get("nodeid")))
        tier = config.slow.tiers.get(pin.tier) if pin is not None else None
        ms = entry.get("ms")
        if pin is not None and tier is not None and isinstance(ms, int):
            out.append((pin, ms, round(tier.budget * 1000)))
    return tuple(out)


def check_pins(
    config: Config, current: PinList, base: PinList, collected: set[str] | None
) -> CheckResult:
    """Judge ``current`` against ``base``; ``collected`` None skips the stale check."""
    added = tuple(p for p in current if base.get(p.nodeid) is None)
    changed = tuple(p for p in current if base.get(p.nodeid) not in (None, p))
    raised = tuple(p for p in changed if p.ceiling > base.pins[p.nodeid].ceiling)
    return CheckResult(
        added=added,
        removed=tuple(p for p in base if current.get(p.nodeid) is None),
        raised=raised,
        unjustified=tuple(p for p in (*added, *changed) if not p.justified),
        stale=() if collected is None else tuple(p for p in current if p.nodeid not in collected),
        removable=_removable(config, current),
    )


def _print(result: CheckResult, config: Config, base: str) -> None:
    pins = config.slow.pins
    for pin in result.unjustified:
        problems = "; ".join(justification_problems(pin.reason, pin.tracking))
        print(
            f"FAIL unjustified pin {pin.nodeid}: reason {pin.reason!r}, tracking "
            f"{pin.tracking!r} ({problems}) — a new or changed pin must say why the test is "
            "slow and where the fix is tracked"
        )
        print(
            f"     fix: lanes slow pin {shlex.quote(pin.nodeid)} --reason '<why it is slow>' "
            f"--tracking '<issue>' --ceiling {pin.ceiling:g}   (or drop the pin and speed the test up)"
        )
    for pin in result.stale:
        print(f"FAIL stale pin {pin.nodeid}: no such test is collected any more")
        print(f"     fix: lanes slow unpin {shlex.quote(pin.nodeid)}")
    for pin, ms, budget_ms in result.removable:
        print(
            f"removable pin {pin.nodeid}: the last slow runs measured it within its tier "
            f"budget {budget_ms} ms ({config.slow.removable_after} in a row, last {ms} ms): "
            f"lanes slow unpin {shlex.quote(pin.nodeid)}"
        )
    for pin in result.raised:
        print(f"note: {pin.nodeid}'s ceiling was raised to {pin.ceiling:g} s")
    summary = (
        f"{pins} against {base}: {len(result.added)} added, "
        f"{len(result.removed)} removed, {len(result.raised)} ceilings raised"
    )
    verdict = "passed" if result.passed else "FAILED"
    print(f"lanes slow check {verdict}: {summary}")


def run_check(ns: argparse.Namespace) -> int:
    config = load_config(ns.config)
    current = load_pins(config.root / config.slow.pins, slow=config.slow)
    base = base_pins(config.root, config.slow.pins, ns.base)
    # Nothing pinned, nothing can be stale: skip the (costly) collection.
    collected = collect_nodeids(config.root, list(ns.pytest_args)) if len(current) else None
    result = check_pins(config, current, base, collected)
    _print(result, config, ns.base)
    return ExitCode.OK if result.passed else ExitCode.FAIL
