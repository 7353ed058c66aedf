"""One-argument faces of parsers whose real signature takes more.

A fuzz target's callable takes exactly one generated input. Most of our
parsers already do (``parse_payload``, ``parse_ledger``, ``parse_lock``); these
adapters fix the other arguments of the rest, and write an input to a file
where the real reader only reads files — so the lane fuzzes the function users
call, not a convenient cousin of it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Final

from lanes.config import Config, load_config, parse_config
from lanes.envelope import Envelope, read_envelope, validate_envelope

__all__ = [
    "SCRATCH_ENV",
    "ForbiddenValueAcceptedError",
    "SweepEscapedError",
    "load_pyproject_text",
    "parse_config_table",
    "read_and_validate_envelope",
    "refuse_one_broken_field",
    "sweep_rule_blocks",
]

# Never created: parse_config only records the root, and a fixed path keeps
# every case independent of the machine.
_ROOT: Final = Path("/nonexistent/fuzzed-project")

# Set by the watchdog for each worker it starts, and removed by it when the
# worker goes, so a worker killed mid-case leaves nothing behind in /tmp.
SCRATCH_ENV: Final = "LANES_FUZZ_SCRATCH"

_scratch: Path | None = None


def _scratch_dir() -> Path:
    global _scratch
    if _scratch is None:
        given = os.environ.get(SCRATCH_ENV)
        if given:
            _scratch = Path(given)
        else:
            # In-process use (the overhead measurement, a test): ours to clean.
            _scratch = Path(tempfile.mkdtemp(prefix="lanes-fuzz-"))
            atexit.register(shutil.rmtree, _scratch, ignore_errors=True)
    return _scratch


def _scratch_file(name: str, text: str) -> Path:
    """``text`` written to a file in this process's private scratch directory."""
    path = _scratch_dir() / name
    # surrogatepass: a generated lone surrogate must reach the reader as the
    # bytes a broken writer would leave, not crash the adapter.
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return path


def parse_config_table(table: object) -> Config:
    """``parse_config`` over a ``[tool.lanes]`` table as ``tomllib`` would return it."""
    return parse_config(table, root=_ROOT)


def load_pyproject_text(text: str) -> Config:
    """``load_config`` over a ``pyproject.toml`` holding ``text``."""
    return load_config(_scratch_file("pyproject.toml", text))


def read_and_validate_envelope(text: str) -> None:
    """Read an envelope file holding ``text``, validate it, and load what validates.

    The invariant beyond "rejections are typed": a document the schema accepts
    must convert to an :class:`~lanes.envelope.Envelope` and back without error.
    """
    document = read_envelope(_scratch_file("envelope.json", text))
    if validate_envelope(document):
        return
    Envelope.from_dict(document).to_dict()


class ForbiddenValueAcceptedError(AssertionError):
    """A config table with one field of a forbidden type or range was accepted."""


def refuse_one_broken_field(table: object) -> None:
    """``parse_config`` over a valid table with exactly one field broken
    (:mod:`lanes.strategies.config_fields`): its :class:`ConfigError` is the
    expected answer; accepting the table is a finding."""
    parse_config(table, root=_ROOT)
    msg = f"a config table with a forbidden value was accepted: {table!r:.300}"
    raise ForbiddenValueAcceptedError(msg)


class SweepEscapedError(AssertionError):
    """A command that runs pytest in full got past the full-sweep rule."""


def sweep_rule_blocks(command: str) -> None:
    """The full-sweep rule (default settings, no override) applied to
    ``command``, which runs a full sweep by construction: raises
    :class:`SweepEscapedError` — a failure, never a clean rejection — when
    the rule would let it run."""
    from lanes.governor.classify.classifier import classify  # noqa: PLC0415
    from lanes.governor.policy.sweep import judge  # noqa: PLC0415
    from lanes.governor.settings import GovernorSettings  # noqa: PLC0415

    verdict = judge(
        classify(command),
        command,
        GovernorSettings.gate_runners,
        GovernorSettings.sweep_min_paths,
        {},
    )
    if verdict.message is None:
        shown = command if len(command) <= 300 else command[:300] + "..."
        msg = f"the full-sweep rule allows a full sweep: {shown!r}"
        raise SweepEscapedError(msg)
