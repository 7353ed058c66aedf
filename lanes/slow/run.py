"""``lanes slow run``: the suite under the ratchet, and the ``slow`` envelope.

pytest runs in a child process with ``--slow-json``; this process owns the
envelope through :func:`lanes.envelope.lane_run`, so a pytest that crashes,
is killed or never starts still leaves ``envelopes/slow.json`` behind
(``stage: "error"``) — an absent envelope would be indistinguishable from a
lane that never ran.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, cast

from lanes._jsondoc import failing_with, load_object
from lanes._measuring import measuring_environment
from lanes.config import Config, fingerprint, load_config
from lanes.envelope import MAX_DATA_DEPTH, MAX_ENVELOPE_BYTES
from lanes.errors import LanesError, UsageError
from lanes.lane import drive
from lanes.slow.selfcheck import run_self_check

if TYPE_CHECKING:
    import argparse

    from lanes.envelope import LaneRun, Seed
    from lanes.payloads.slow import SlowData, SlowRatchet

__all__ = [
    "PytestUsageError",
    "SlowLane",
    "SlowOptions",
    "SlowRunError",
    "run_slow",
    "slow_config_hash",
]


class SlowRunError(LanesError):
    """pytest did not finish with a verdict (crash, interruption): exit 3, the lane could not complete."""


class PytestUsageError(SlowRunError):
    """pytest refused its command line (its exit 4): no test ran, so exit 2 (lanes/exitcodes.py)."""


def slow_config_hash(config: Config) -> str:
    """The inputs that decide the verdicts: ``[tool.lanes.slow]`` and the pin list."""
    pins = config.root / config.slow.pins
    try:
        pins_text = pins.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pins_text = None
    return fingerprint({"slow": config.to_dict()["slow"], "pins": pins_text})


def _pytest_command(json_path: Path, pytest_args: list[str]) -> list[str]:
    # "=": a space-separated value outside the project can be taken for a test
    # path when pytest picks its rootdir, which then leaves the project.
    return [sys.executable, "-m", "pytest", f"--slow-json={json_path}", *pytest_args]


def _tool_versions() -> dict[str, str]:
    tools: dict[str, str] = {}
    for name in ("pytest", "pytest-xdist", "pytest-timeout", "pytest-rerunfailures"):
        try:
            tools[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return tools


def _run_pytest(json_path: Path, pytest_args: list[str]) -> tuple[SlowRatchet, Literal[0, 1]]:
    """Run the suite under the ratchet; its result and how pytest exited (0 or 1)."""
    returncode = subprocess.run(
        _pytest_command(json_path, pytest_args), check=False, env=measuring_environment()
    ).returncode
    return _judged(json_path, returncode)


def _from_run(json_path: Path) -> tuple[SlowRatchet, Literal[0, 1]]:
    """The ratchet's result of a run the timing lane measured (lanes/timing/shared.py),
    judged exactly as this lane's own child would be."""
    from lanes.timing.shared import read_exit  # noqa: PLC0415  # only a shared run reads it

    return _judged(json_path, read_exit(json_path))


def _judged(json_path: Path, returncode: int) -> tuple[SlowRatchet, Literal[0, 1]]:
    if returncode not in (0, 1):
        usage = returncode == 4  # pytest's ExitCode.USAGE_ERROR; pytest is not imported here
        what = "a usage or configuration error" if usage else "it did not complete"
        msg = f"pytest exited {returncode}: {what}"
        raise (PytestUsageError if usage else SlowRunError)(
            msg,
            hint="read pytest's output above; exit 2 = interrupted, 3 = internal error, "
            "4 = usage error, 5 = no tests collected",
        )
    return _read_result(json_path, returncode), 0 if returncode == 0 else 1


def _ended_mid_session(path: Path, returncode: int) -> SlowRunError | None:
    """The error for a pytest that started its session and never finished it."""
    try:
        started = json.loads(path.with_name(path.name + ".started").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(started, dict) and started.get("timeout_method") == "thread":
        msg = (
            f"pytest exited {returncode} in the middle of the session: pytest-timeout's thread "
            "method ends the process with os._exit when a test times out (its stack dump, "
            "between '+++ Timeout +++' lines, is above), so no test report, ratchet or envelope "
            "data was written"
        )
        hint = (
            'find the timed-out test in the dump above; use timeout_method = "signal" (where '
            "available) so the timeout fails only that test and the session finishes"
        )
    else:
        msg = (
            f"pytest exited {returncode} in the middle of the session without finishing it "
            "(the process was ended from inside: os._exit, a signal, or a crashed interpreter)"
        )
        hint = "read pytest's output above for the last test that ran"
    return SlowRunError(msg, hint=hint)


def _read_result(path: Path, returncode: int) -> SlowRatchet:
    # Read as a strict document (_jsondoc): with --from-run the file is one in
    # the project that an earlier step (or anyone) left, not this lane's own
    # temporary file, so no FIFO, device or oversized file is read.
    try:
        data = load_object(
            path,
            what=f"the ratchet's result {str(path)!r}",
            fail=failing_with(SlowRunError, "re-run the lane; report a bug if it repeats"),
            max_bytes=MAX_ENVELOPE_BYTES,
            max_depth=MAX_DATA_DEPTH,
            follow_symlinks=True,  # a path the user named (--from-run) or our temporary file
        )
    except SlowRunError as exc:
        problem: SlowRunError | None = exc
        data = None
    else:
        problem = None
    if data is None:
        ended = _ended_mid_session(path, returncode)
        if ended is not None:
            raise ended from None
        if problem is not None:
            raise problem
        msg = f"pytest exited {returncode} without writing the ratchet's result {str(path)!r}"
        raise SlowRunError(
            msg,
            hint="the slow plugin did not run: check that lanekit is installed in this "
            "interpreter and that nothing passes -p no:lanes.slow",
        ) from None
    # Written by this lanekit's own plugin (lanes.slow.report.envelope_data, a
    # SlowRatchet); the report validates the envelope's data against the type
    # before its view reads it.
    return cast("SlowRatchet", data)


@dataclass(frozen=True)
class SlowOptions:
    pytest_args: tuple[str, ...]
    self_check: bool
    # Where the envelope goes: --envelope, else <envelope_dir>/slow.json.
    envelope: Path
    # --from-run: the ratchet result of the timing lane's shared run, else None.
    from_run: Path | None = None


class SlowLane:
    """``lanes slow run`` on the shared Lane protocol (:mod:`lanes.lane`)."""

    name: ClassVar[str] = "slow"

    def resolve(self, ns: argparse.Namespace, config: Config) -> SlowOptions:
        given = getattr(ns, "envelope", None)
        from_run: Path | None = getattr(ns, "from_run", None)
        if from_run is not None and ns.pytest_args:
            msg = f"--from-run judges a run already made; got pytest arguments {ns.pytest_args!r}"
            raise UsageError(
                msg,
                hint="give the pytest arguments to the run that is judged (`lanes timing "
                "--with-slow-ratchet`), or drop --from-run",
            )
        return SlowOptions(
            pytest_args=tuple(ns.pytest_args),
            self_check=bool(ns.self_check),
            envelope=Path(given) if given is not None else config.envelope_path("slow"),
            from_run=from_run,
        )

    def config_hash(self, options: SlowOptions, config: Config) -> str:
        return slow_config_hash(config)

    def seed(self, options: SlowOptions) -> Seed:
        return None

    def run(self, options: SlowOptions, config: Config, run: LaneRun) -> None:
        run.tools.update(_tool_versions())
        self_check = run_self_check() if options.self_check else None
        if self_check is not None and not self_check["passed"]:
            print(
                "slow self-check FAILED: the ratchet did not fail a planted slow test as "
                f"expected: {self_check['observed']} != {self_check['expected']}",
                file=sys.stderr,
            )
        if options.from_run is not None:
            ratchet, pytest_exit = _from_run(options.from_run)
        else:
            with tempfile.TemporaryDirectory(prefix="lanes-slow-") as tmp:
                ratchet, pytest_exit = _run_pytest(
                    Path(tmp) / "slow.json", list(options.pytest_args)
                )
        data: SlowData = {**ratchet, "pytest_exit": pytest_exit, "self_check": self_check}
        run.publish(data)
        if ratchet["partial"]:
            print(
                "lanes slow run: a PARTIAL run ("
                + "; ".join(ratchet["partial_reasons"])
                + f"): {options.envelope} is marked partial",
                file=sys.stderr,
            )
        # The lane passes when the suite passes and keeps its budget: the
        # durations of a failing suite are not a measurement to trust.
        run.verdict(
            passed=ratchet["verdict"] == "pass"
            and pytest_exit == 0
            and (self_check is None or bool(self_check["passed"]))
        )


def run_slow(ns: argparse.Namespace) -> int:
    # No --config: the child pytest finds its pyproject.toml itself, and the
    # envelope must describe the same project. A SlowRunError reaches the CLI,
    # recorded in the envelope (stage "error"); lanes/exitcodes.py says whether
    # pytest was misused (2) or did not finish (3).
    return drive(SlowLane(), ns, config=load_config())
