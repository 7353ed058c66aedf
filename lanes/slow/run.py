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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanes.config import Config, fingerprint, load_config
from lanes.envelope import lane_run
from lanes.errors import LanesError
from lanes.exitcodes import ExitCode
from lanes.slow.selfcheck import run_self_check

if TYPE_CHECKING:
    import argparse

__all__ = ["SlowRunError", "run_slow", "slow_config_hash"]


class SlowRunError(LanesError):
    """pytest did not finish with a verdict (crash, usage error, interruption)."""

    def __init__(self, message: str, *, hint: str, exit_code: ExitCode) -> None:
        super().__init__(message, hint=hint)
        self.exit_code = exit_code


def slow_config_hash(config: Config) -> str:
    """The inputs that decide the verdicts: ``[tool.lanes.slow]`` and the pin list."""
    pins = config.root / config.slow.pins
    try:
        pins_text = pins.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pins_text = None
    return fingerprint({"slow": config.to_dict()["slow"], "pins": pins_text})


def _pytest_command(json_path: Path, pytest_args: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "--slow-json", str(json_path), *pytest_args]


def _tool_versions() -> dict[str, str]:
    tools: dict[str, str] = {}
    for name in ("pytest", "pytest-xdist"):
        try:
            tools[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return tools


def _run_pytest(json_path: Path, pytest_args: list[str]) -> dict[str, Any]:
    """Run the suite under the ratchet; the result with ``pytest_exit`` (0 or 1)."""
    returncode = subprocess.run(_pytest_command(json_path, pytest_args), check=False).returncode
    if returncode not in (0, 1):
        usage = returncode == 4
        what = "a usage or configuration error" if usage else "it did not complete"
        msg = f"pytest exited {returncode}: {what}"
        raise SlowRunError(
            msg,
            hint="read pytest's output above; exit 2 = interrupted, 3 = internal error, "
            "4 = usage error, 5 = no tests collected",
            exit_code=ExitCode.USAGE if usage else ExitCode.CRASH,
        )
    data = _read_result(json_path, returncode)
    data["pytest_exit"] = returncode
    return data


def _read_result(path: Path, returncode: int) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        msg = f"pytest exited {returncode} without writing the ratchet's result ({exc})"
        raise SlowRunError(
            msg,
            hint="the slow plugin did not run: check that lanekit is installed in this "
            "interpreter and that nothing passes -p no:lanes.slow",
            exit_code=ExitCode.CRASH,
        ) from None
    if not isinstance(data, dict):
        msg = f"the ratchet's result is not a JSON object: {data!r:.80}"
        raise SlowRunError(
            msg,
            hint="re-run the lane; report a bug if it repeats",
            exit_code=ExitCode.CRASH,
        )
    return data


def run_slow(ns: argparse.Namespace) -> int:
    # No --config: the child pytest finds its pyproject.toml itself, and the
    # envelope must describe the same project.
    config = load_config()
    pytest_args: list[str] = list(ns.pytest_args)
    try:
        with (
            tempfile.TemporaryDirectory(prefix="lanes-slow-") as tmp,
            lane_run(
                "slow", config=config, config_hash=slow_config_hash(config), path=ns.envelope
            ) as run,
        ):
            run.tools.update(_tool_versions())
            self_check = run_self_check() if ns.self_check else None
            if self_check is not None and not self_check["passed"]:
                print(
                    "slow self-check FAILED: the ratchet did not fail a planted slow test as "
                    f"expected: {self_check['observed']} != {self_check['expected']}",
                    file=sys.stderr,
                )
            data = _run_pytest(Path(tmp) / "slow.json", pytest_args)
            run.data.update(data)
            run.data["self_check"] = self_check
            ratchet_passed = data.get("verdict") == "pass"
            # The lane passes when the suite passes and keeps its budget: the
            # durations of a failing suite are not a measurement to trust.
            run.verdict(
                passed=ratchet_passed
                and data["pytest_exit"] == 0
                and (self_check is None or bool(self_check["passed"]))
            )
    except SlowRunError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        print(f"hint: {exc.hint}", file=sys.stderr)
        return exc.exit_code
    return ExitCode.OK if run.passed else ExitCode.FAIL
