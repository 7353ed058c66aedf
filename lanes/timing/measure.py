"""One measured run of a suite's command: wall clock, CPU time, peak memory.

The command runs as a child process exactly as configured, plus (for pytest
commands) ``-p _lanes_timing_probe`` and whatever the arm adds (``-n N``,
``--collect-only -q``, a deselect-everything ``-k``). Figures come from two
places, and each says which:

- **the kernel**, through :mod:`lanes.timing.reaper`, a child subreaper that
  runs the command and reaps every descendant (orphans included):
  ``cpu_ms`` = user + system time of the whole process tree, and
  ``tree_peak_rss_kib`` is the peak of the single largest process in it;
- **the probe** (:mod:`lanes.timing.probe`): each pytest process's own peak
  RSS and CPU time, the collection timestamps, test and fixture durations.

Wall clock is the reaper's, from spawning the command to its exit.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from lanes._measuring import measuring_environment
from lanes.affected.child import ENV_CHILD
from lanes.errors import LanesError

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "PROBE_MODULE",
    "ProcessFigures",
    "Sample",
    "SuiteStartError",
    "is_pytest",
    "measure",
    "probe_path",
]

PROBE_MODULE: Final = "_lanes_timing_probe"
# pytest's exit codes for "the session never ran": an internal error, a usage
# error (unknown option, bad ini). Tests failing (1), an interrupted
# collection (2) and "no tests" (5) are outcomes of a suite that did run.
_CANNOT_START: Final = frozenset({3, 4})
_TAIL_LINES: Final = 15
_STOP_GRACE_S: Final = 10.0
_HEARTBEAT_S: Final = 1.0


class SuiteStartError(LanesError, RuntimeError):
    """The suite's command could not start (not found, not executable, pytest usage error)."""


@dataclass(frozen=True)
class ProcessFigures:
    """One pytest process as its probe saw itself."""

    role: str  # "controller", or the xdist worker id: gw0, gw1, ...
    peak_rss_kib: int
    cpu_ms: int


@dataclass
class Sample:
    """One run of one arm."""

    arm: str
    argv: list[str]
    exit_code: int
    wall_ms: int
    cpu_ms: int
    user_ms: int
    system_ms: int
    tree_peak_rss_kib: int
    orphans: int = 0  # descendants that outlived their parent (reaped by the reaper)
    processes: list[ProcessFigures] = field(default_factory=list)
    collected: int | None = None
    startup_ms: int | None = None
    collection_ms: int | None = None
    first_test_ms: int | None = None
    xdist_available: bool = False
    python: str | None = None
    outcomes: dict[str, int] = field(default_factory=dict)
    tests: dict[str, float] = field(default_factory=dict)
    fixtures: list[dict[str, Any]] = field(default_factory=list)
    output_tail: str = ""

    @property
    def peak_rss_kib(self) -> int:
        """The run's peak memory, as the table shows it.

        One process (serial pytest, or any command): the kernel's peak of the
        largest process in the tree, over its whole life. Under xdist: the sum
        of the controller's and each worker's own peak — an upper bound on the
        tree's footprint at any one instant (the peaks need not coincide).
        """
        if len(self.processes) <= 1:
            return self.tree_peak_rss_kib
        return sum(process.peak_rss_kib for process in self.processes)

    @property
    def workers(self) -> int:
        return sum(1 for process in self.processes if process.role != "controller")


def is_pytest(argv: list[str]) -> bool:
    """Whether ``argv`` runs pytest: ``pytest ...``, ``py.test ...`` or ``python -m pytest ...``."""
    if not argv:
        return False
    if Path(argv[0]).name in {"pytest", "py.test"}:
        return True
    return len(argv) >= 3 and argv[1] == "-m" and argv[2] == "pytest"  # python -m pytest


def probe_path(directory: Path) -> Path:
    """Copy the probe plugin into ``directory`` under its importable name; return the directory."""
    source = Path(__file__).with_name("probe.py")
    shutil.copyfile(source, directory / f"{PROBE_MODULE}.py")
    return directory


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _tail(path: Path) -> str:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return "\n".join(lines[-_TAIL_LINES:])


def _reaper_options() -> list[str]:
    """-I -S: the reaper needs only the standard library, and neither the
    project's directory nor PYTHONPATH may shadow it. Under an affected-map
    recording (a test of this lane, run by ``lanes affected --record``) they
    would hide the reaper and what it starts from the recording, which
    reaches a process through PYTHONPATH and site: there -P alone keeps the
    project's directory out, and the map can vouch for the test."""
    return ["-P"] if os.environ.get(ENV_CHILD) else ["-I", "-S"]


def _spawn(
    argv: list[str], cwd: Path, env: dict[str, str], log: Path, result: Path
) -> subprocess.Popen[bytes]:
    reaper = [
        sys.executable,
        *_reaper_options(),
        str(Path(__file__).with_name("reaper.py")),
        str(result),
        "--",
    ]
    with log.open("wb") as sink:
        return subprocess.Popen(
            [*reaper, *argv], cwd=cwd, env=env, stdout=sink, stderr=subprocess.STDOUT
        )


def _wait(process: subprocess.Popen[bytes], heartbeat: Callable[[], None] | None) -> None:
    try:
        while True:
            try:
                process.wait(timeout=_HEARTBEAT_S)
                break
            except subprocess.TimeoutExpired:
                # A suite run can take minutes: let the progress line tick meanwhile.
                if heartbeat is not None:
                    heartbeat()
    except BaseException:
        # Interrupted (Ctrl-C, SIGTERM through the envelope): the suite must not
        # outlive the lane. The reaper forwards SIGTERM to the suite.
        process.terminate()
        try:
            process.wait(timeout=_STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        raise


def _tree(result: Path, argv: list[str]) -> dict[str, Any]:
    """The reaper's account of the tree; a command that could not start is a SuiteStartError."""
    try:
        report = json.loads(result.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        msg = f"the timing reaper left no readable result for {shlex.join(argv)!r}: {exc}"
        raise RuntimeError(msg) from exc
    if "error" in report:
        msg = f"the suite command {shlex.join(argv)!r} cannot start: {report['error']}"
        raise SuiteStartError(
            msg,
            hint="check the suite's command in [tool.lanes.suites] (is it installed in "
            "the environment the lane runs in, is its PATH right?)",
        )
    return dict(report)


def _read_probes(directory: Path) -> list[dict[str, Any]]:
    reports = []
    for path in sorted(directory.glob("*.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(report, dict):
            reports.append(report)
    return reports


def _since(start: float, stamp: object) -> int | None:
    return _ms(stamp - start) if isinstance(stamp, int | float) else None


def measure(
    arm: str,
    argv: list[str],
    *,
    cwd: Path,
    probe_dir: Path | None,
    log_dir: Path,
    heartbeat: Callable[[], None] | None = None,
) -> Sample:
    """Run ``argv`` once in ``cwd`` and return its figures.

    ``probe_dir`` holds the copied probe (see :func:`probe_path`); ``None``
    runs the command without it (a suite that is not pytest). ``heartbeat``
    is called about once a second while the command runs.
    """
    env = measuring_environment()
    with tempfile.TemporaryDirectory(prefix="lanes-timing-probe-") as reports:
        if probe_dir is not None:
            env["PYTHONPATH"] = os.pathsep.join(
                part for part in (str(probe_dir), env.get("PYTHONPATH", "")) if part
            )
            env["LANES_TIMING_PROBE_DIR"] = reports
            argv = [*argv, "-p", PROBE_MODULE]
        log = log_dir / f"{arm}.log"
        result = Path(reports) / "tree.result"
        started = time.time()
        _wait(_spawn(argv, cwd, env, log, result), heartbeat)
        tree = _tree(result, argv)
        probes = _read_probes(Path(reports))
    exit_code = int(tree["exit_code"])
    sample = Sample(
        arm=arm,
        argv=argv,
        exit_code=exit_code,
        wall_ms=_ms(tree["wall_s"]),
        cpu_ms=_ms(tree["user_s"] + tree["system_s"]),
        user_ms=_ms(tree["user_s"]),
        system_ms=_ms(tree["system_s"]),
        # Linux reports ru_maxrss in KiB.
        tree_peak_rss_kib=int(tree["maxrss_kib"]),
        orphans=int(tree["orphans"]),
        output_tail=_tail(log) if exit_code not in {0, 5} else "",
    )
    if probe_dir is not None and not probes and exit_code in _CANNOT_START:
        msg = (
            f"the suite command {shlex.join(argv)!r} did not start a test session "
            f"(exit {exit_code}):\n{_tail(log)}"
        )
        raise SuiteStartError(
            msg,
            hint="run the suite's command by hand to see the error; fix the command in "
            "[tool.lanes.suites] or the project's pytest configuration",
        )
    _apply_probes(sample, probes, started)
    return sample


def _apply_probes(sample: Sample, probes: list[dict[str, Any]], started: float) -> None:
    for report in probes:
        sample.processes.append(
            ProcessFigures(
                role=str(report["role"]),
                peak_rss_kib=int(report["peak_rss_kib"]),
                cpu_ms=int(report["cpu_ms"]),
            )
        )
    controller = next((r for r in probes if r["role"] == "controller"), None)
    if controller is None:
        return
    # Under xdist the controller does not collect: the workers' count is the suite's.
    counts = [r["collected"] for r in probes if isinstance(r.get("collected"), int)]
    sample.collected = (
        controller["collected"]
        if controller["collected"] is not None
        else (max(counts) if counts else None)
    )
    collectors = [r for r in probes if r.get("collect_start") is not None]
    if collectors:
        sample.startup_ms = _since(started, min(r["collect_start"] for r in collectors))
        ends = [r["collect_end"] for r in collectors if r.get("collect_end") is not None]
        starts = [r["collect_start"] for r in collectors]
        if ends:
            sample.collection_ms = _ms(max(ends) - min(starts))
    sample.first_test_ms = _since(started, controller.get("first_test"))
    sample.xdist_available = bool(controller.get("xdist"))
    sample.python = f"{controller.get('implementation', 'cpython')} {controller.get('python')}"
    sample.outcomes = dict(controller.get("outcomes") or {})
    sample.tests = dict(controller.get("tests") or {})
    for report in probes:
        sample.fixtures.extend(report.get("fixtures") or [])
