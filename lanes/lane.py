"""The Lane protocol and the one driver every lane runs through.

A lane is four small decisions — its options (command line over
``[tool.lanes]``), the hash of the configuration that decides its inputs, its
seed, and the measurement itself — and everything else is the same for every
lane: load the configuration, open the envelope, turn a crash into
``stage: "error"`` and exit 3, turn the verdict into exit 0 or 1. That shared
part is :func:`drive`; a lane writes only the four decisions::

    class TimingLane:
        name = "timing"

        def resolve(self, ns, config):
            return TimingOptions(repeat=choose(ns.repeat, config.timing.repeat), ...)

        def config_hash(self, options, config):
            return config.section_hash("suites", "timing")

        def seed(self, options):
            return None

        def run(self, options, config, run):
            run.data["suites"] = measure(...)
            run.verdict(passed=...)

    def _handle(ns):                       # the argparse handler
        return drive(TimingLane(), ns)

The exit status follows the table in :mod:`lanes.exitcodes`. Errors the user
can fix (:class:`~lanes.errors.LanesError`) raised while resolving options
propagate to the CLI, which prints ``error:``/``hint:`` and exits 2 before any
envelope exists: nothing ran. Once the envelope is open the lane's work has
begun: a ``LanesError`` is recorded in the envelope (``stage: "error"``) and
reaches the CLI as "the lane could not complete" — ``error:``/``hint:``, no
traceback, exit 3; any other exception is a crash: its traceback is printed,
the envelope says ``stage: "error"`` and the exit code is 3.
"""

from __future__ import annotations

import sys
import traceback
from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar

from lanes.config import load_config
from lanes.envelope import lane_run
from lanes.exitcodes import ExitCode, Report, exit_rule

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from lanes.config import Config
    from lanes.envelope import LaneRun, Seed

__all__ = ["Lane", "choose", "crash_status", "drive", "print_crash"]

OptionsT = TypeVar("OptionsT")
T = TypeVar("T")


class Lane(Protocol[OptionsT]):
    """What a lane decides; :func:`drive` does the rest."""

    name: ClassVar[str]
    """The envelope's ``lane`` field and the default file ``<envelope_dir>/<name>.json``."""

    def resolve(self, ns: argparse.Namespace, config: Config) -> OptionsT:
        """Options from the command line over the configuration; raise a LanesError on bad input."""
        ...

    def config_hash(self, options: OptionsT, config: Config) -> str:
        """``sha256:<hex>`` over what decides the lane's inputs (not the code under test)."""
        ...

    def seed(self, options: OptionsT) -> Seed:
        """The envelope's ``seed``: ``None``, an integer or ``{start, count}``."""
        ...

    def run(self, options: OptionsT, config: Config, run: LaneRun) -> None:
        """Measure: fill ``run.data`` and ``run.tools``, then call ``run.verdict(passed=...)``."""
        ...


def choose(cli_value: T | None, config_value: T) -> T:
    """The command line wins over ``[tool.lanes]``; ``None`` means "not given on the command line"."""
    return config_value if cli_value is None else cli_value


def print_crash(lane: str, exc: BaseException) -> None:
    """The one crash report: the traceback (a crash is a lanekit bug) and an error/hint pair."""
    traceback.print_exception(exc)
    print(f"error: the {lane} lane crashed: {type(exc).__name__}: {exc}", file=sys.stderr)
    print(
        f"hint: this is a bug in lanekit's {lane} lane, not in your input; the envelope records "
        "it with stage 'error' — please report it with the traceback above",
        file=sys.stderr,
    )


def drive(
    lane: Lane[OptionsT],
    ns: argparse.Namespace,
    *,
    config: Config | None = None,
    path: Path | None = None,
) -> ExitCode:
    """Run ``lane`` for the parsed command line ``ns`` and return its exit code.

    ``config`` defaults to ``load_config(ns.config)`` (or the project found from
    the working directory when the command has no ``--config``); ``path``
    defaults to ``ns.envelope`` when the command has one, else the lane's file
    under ``envelope_dir``.
    """
    if config is None:
        config = load_config(getattr(ns, "config", None))
    options = lane.resolve(ns, config)
    target = path if path is not None else getattr(ns, "envelope", None)
    # Still "nothing ran" if these fail: the envelope is not open yet.
    config_hash = lane.config_hash(options, config)
    seed = lane.seed(options)
    try:
        # From here the envelope is open and records any error with stage
        # "error": lane_run marks a LanesError as "could not complete" (exit 3),
        # not "nothing ran" (lanes/exitcodes.py).
        with lane_run(
            lane.name, config=config, config_hash=config_hash, seed=seed, path=target
        ) as run:
            lane.run(options, config, run)
    except Exception as exc:  # noqa: BLE001  # the exit table decides: report a crash here, re-raise the rest
        return crash_status(lane.name, exc)
    return ExitCode.OK if run.passed else ExitCode.FAIL


def crash_status(lane: str, exc: Exception) -> ExitCode:
    """The exit status of ``lane`` that raised ``exc`` with its envelope open.

    A crash (the table's traceback row) is reported here, naming the lane,
    and its status returned; anything else — a LanesError, a broken pipe — is
    re-raised for the CLI to report with its row's status (lanes/exitcodes.py).
    """
    rule = exit_rule(exc)
    if rule.report is not Report.TRACEBACK:
        raise exc
    print_crash(lane, exc)
    return rule.code
