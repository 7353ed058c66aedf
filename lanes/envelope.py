"""The lane envelope v1: one JSON object per lane run (a contract: docs/architecture.md).

Every lane runs inside :func:`lane_run`, which fills provenance, times the run
and writes ``envelopes/<lane>.json`` atomically on **every** exit path: a
verdict, an exception, SIGINT, SIGTERM. An absent envelope is
indistinguishable from a lane that never ran, so there is no path without one.

    with lane_run("torture", config=config, sections=("torture",), seed=0) as run:
        run.data["runs"] = 128
        run.verdict(passed=not violations)

Signals: SIGTERM and SIGHUP are turned into a :class:`Terminated` exception
while the lane runs, so the lane's own ``finally`` blocks run and the envelope
is written with ``stage: "error"``; then the default handler is restored and
the signal re-raised, so the process still exits with the conventional status
(143 for SIGTERM). SIGINT already arrives as ``KeyboardInterrupt``. A signal
the process ignores (``nohup``) stays ignored; in nested lanes every lane
writes its envelope and the outermost one re-raises the signal.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import signal
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

from lanes import __version__
from lanes._atomic import OutsideTreeError, write_atomic, write_atomic_under
from lanes._jsondoc import load_object, nesting_exceeds
from lanes.errors import EnvelopeError, LanesError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping
    from types import FrameType

    from lanes.config import Config
    from lanes.payloads.envelope import EnvelopeDocument, ErrorDocument, SeedRange, SubjectDocument

__all__ = [
    "FORMAT",
    "MAX_DATA_DEPTH",
    "SCHEMA_VERSION",
    "Envelope",
    "LaneRun",
    "Problem",
    "Subject",
    "Terminated",
    "git_subject",
    "lane_run",
    "nesting_exceeds",
    "payload_problems",
    "read_envelope",
    "validate_envelope",
]

FORMAT: Final = "lanekit.envelope"
SCHEMA_VERSION: Final = "1.0.0"
SCHEMA_PATH: Final = Path(__file__).with_name("envelope.schema.json")

Result = Literal["pass", "fail"]
Stage = Literal["complete", "error"]
# The envelope's seed, as lanes.payloads.envelope declares it (a type only).
Seed: TypeAlias = "int | SeedRange | None"


class Terminated(BaseException):  # named for the signal, like KeyboardInterrupt
    """Raised inside a lane when the process receives SIGTERM or SIGHUP.

    A ``BaseException`` so that a lane's ``except Exception`` cannot swallow the
    request to stop.
    """

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"terminated by {signal.Signals(signum).name}")


@dataclass(frozen=True)
class Subject:
    """What was measured: the commit, whether the tree was dirty, the branch."""

    commit: str | None
    dirty: bool
    branch: str | None

    def to_dict(self) -> SubjectDocument:
        return {"commit": self.commit, "dirty": self.dirty, "branch": self.branch}


def _git(root: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def git_subject(root: Path) -> Subject:
    """Provenance of ``root``; null fields outside git or without git, never a crash."""
    commit = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    if commit is None or len(commit) != 40:
        return Subject(commit=None, dirty=False, branch=None)
    status = _git(root, "status", "--porcelain", "--untracked-files=normal")
    branch = _git(root, "symbolic-ref", "--short", "-q", "HEAD")
    if branch is None:
        # Detached HEAD, as in CI checkouts of a pull request: say which ref it came from.
        branch = os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_REF_NAME") or None
    return Subject(commit=commit, dirty=bool(status), branch=branch)


def _rfc3339(timestamp: float) -> str:
    moment = dt.datetime.fromtimestamp(timestamp, tz=dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass
class Envelope:
    """One envelope, as written to disk."""

    lane: str
    subject: Subject
    config_hash: str
    started_at: str
    duration_ms: int
    result: Result
    stage: Stage
    seed: Seed = None
    error: ErrorDocument | None = None
    data: dict[str, Any] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)
    run_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    group_id: str = ""

    def to_dict(self) -> EnvelopeDocument:
        return {
            "format": FORMAT,
            "schema_version": SCHEMA_VERSION,
            "lane": self.lane,
            "run_id": self.run_id,
            "group_id": self.group_id or self.run_id,
            "subject": self.subject.to_dict(),
            "generated_by": {
                "name": "lanekit",
                "version": __version__,
                "python": platform.python_version(),
                "platform": f"{sys.platform}-{platform.machine() or 'unknown'}",
                "tools": dict(self.tools),
            },
            "config_hash": self.config_hash,
            "seed": self.seed,
            "started_at": self.started_at,
            "duration_ms": self.duration_ms,
            "result": self.result,
            "stage": self.stage,
            "error": self.error,
            "data": self.data,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Envelope:
        """Rebuild from a dict that :func:`validate_envelope` accepted."""
        subject = raw["subject"]
        return cls(
            lane=raw["lane"],
            subject=Subject(subject["commit"], subject["dirty"], subject["branch"]),
            config_hash=raw["config_hash"],
            started_at=raw["started_at"],
            duration_ms=raw["duration_ms"],
            result=raw["result"],
            stage=raw["stage"],
            seed=raw["seed"],
            error=raw["error"],
            data=raw["data"],
            tools=dict(raw["generated_by"]["tools"]),
            run_id=raw["run_id"],
            group_id=raw["group_id"],
        )

    def write(self, path: Path, *, root: Path | None = None) -> None:
        """Write atomically; under ``root`` (the project) the write is confined to it.

        A symlinked ``envelopes/`` pointing out of the project would otherwise
        carry every lane's file (and ``lanes report``'s) to wherever it points.
        A path the user named outside the project (``--envelope /tmp/x.json``)
        is written where they said.
        """
        # allow_nan=False: Python would write the bare token NaN, which no
        # strict JSON reader (jq, browsers, the report's users) accepts.
        text = json.dumps(self.to_dict(), indent=2, sort_keys=False, allow_nan=False) + "\n"
        if root is not None and path.absolute().is_relative_to(root.absolute()):
            # The project root itself is as named (links and all); below it,
            # nothing is followed.
            root.mkdir(parents=True, exist_ok=True)
            try:
                write_atomic_under(root, path, text)
            except OutsideTreeError as exc:
                msg = f"the envelope {str(path)!r} would be written outside the project: {exc}"
                raise EnvelopeError(
                    msg,
                    hint="a directory on its way is a symlink (or not a directory); make "
                    "envelope_dir a real directory inside the project, or pass --envelope",
                ) from exc
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)


def _group_id() -> str:
    """Shared by every envelope of one CI run (or shard set)."""
    run = os.environ.get("GITHUB_RUN_ID")
    if run:
        attempt = os.environ.get("GITHUB_RUN_ATTEMPT", "1")
        return f"github-{run}-{attempt}"
    return os.environ.get("LANES_GROUP_ID", "")


class LaneRun:
    """The handle a lane fills while it runs (see :func:`lane_run`)."""

    def __init__(self, lane: str) -> None:
        self.lane = lane
        self.data: dict[str, Any] = {}
        self.tools: dict[str, str] = {}
        self.seed: Seed = None
        self._passed: bool | None = None

    def publish(self, payload: Mapping[str, object]) -> None:
        """Set the lane's whole ``data``: a value of the lane's type in :mod:`lanes.payloads`,
        so mypy checks the writer against the type the schema is generated from."""
        self.data = dict(payload)

    def verdict(self, *, passed: bool) -> None:
        """Record the lane's verdict; a lane that never calls this ends in ``stage: "error"``."""
        self._passed = passed

    @property
    def passed(self) -> bool | None:
        return self._passed


_CATCHABLE: Final = (signal.SIGTERM, signal.SIGHUP)


def _raise_terminated(signum: int, _frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextmanager
def _signals_as_exceptions() -> Iterator[bool]:
    """Yields whether this is the outermost lane, the one that re-delivers the signal."""
    # Signal handlers can only be installed from the main thread; elsewhere the
    # process's own handlers stay in charge (exceptions are still enveloped).
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    # A signal the process ignores stays ignored: under `nohup` (SIGHUP
    # ignored) the user asked for the lane to survive the terminal closing.
    previous = {
        signum: signal.signal(signum, _raise_terminated)
        for signum in _CATCHABLE
        if signal.getsignal(signum) is not signal.SIG_IGN
    }
    try:
        # Inside another lane_run the previous handler is ours: that lane must
        # still write its envelope, so only the outermost one kills the process.
        yield all(handler is not _raise_terminated for handler in previous.values())
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


# Deeper lane data is refused. An explicit limit, not Python's recursion
# limit: how deep json.dumps can go differs between interpreters (3.12 moved
# it to the C stack), and an envelope must be readable by every reader.
MAX_DATA_DEPTH: Final = 100
# Far above any envelope a lane writes (a 10,000-test suite's is a few MiB):
# a larger file is not read into memory.
MAX_ENVELOPE_BYTES: Final = 64 << 20


def _unholdable(data: Mapping[str, Any]) -> str | None:
    """Why ``data`` cannot be written as strict JSON, naming the first bad key; None if it can."""
    for key, value in data.items():
        if nesting_exceeds(value, MAX_DATA_DEPTH):
            return f"data[{key!r}] is nested deeper than {MAX_DATA_DEPTH} levels"
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:
            return f"data[{key!r}] cannot be written as JSON: {exc}"
    try:
        json.dumps(data, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:  # e.g. a key that is not a string
        return f"data cannot be written as JSON: {exc}"
    return None


def _message(exc: BaseException) -> str:
    if isinstance(exc, LanesError):
        return exc.message
    if isinstance(exc, KeyboardInterrupt):
        # str(KeyboardInterrupt()) is "": say what happened instead.
        return str(exc) or "interrupted by SIGINT"
    # A bare `assert` or `raise RuntimeError()` has no text; an empty message
    # in a report reads like a lanekit bug.
    return str(exc) or f"{type(exc).__name__} raised without a message"


@contextmanager
def lane_run(
    lane: str,
    *,
    config: Config,
    sections: tuple[str, ...] = (),
    config_hash: str | None = None,
    seed: Seed = None,
    path: Path | None = None,
) -> Iterator[LaneRun]:
    """Run a lane and write its envelope on every exit path.

    ``config_hash`` defaults to the hash of the config ``sections`` that decide
    the lane's inputs. ``path`` defaults to ``<envelope_dir>/<lane>.json``.
    """
    started = time.time()
    clock = time.monotonic()
    run = LaneRun(lane)
    run.seed = seed
    target = path if path is not None else config.envelope_path(lane)
    digest = config_hash if config_hash is not None else config.section_hash(*sections)
    # Filled in once the signal handlers are up: `git status` on a large tree
    # takes seconds, and a SIGTERM then must still leave an envelope.
    subject = Subject(commit=None, dirty=False, branch=None)

    def write(stage: Stage, error: ErrorDocument | None) -> str | None:
        """Write the envelope; return why ``run.data`` had to be dropped, if it had to."""
        passed = run.passed
        data = run.data
        dropped = _unholdable(data)
        if dropped is not None:
            # One bad value must not cost the whole envelope: write it without
            # the data, as an error that names the key.
            data = {"dropped": dropped}
            if error is None:
                stage, error = "error", {"type": "EnvelopeError", "message": dropped}
        envelope = Envelope(
            lane=lane,
            subject=subject,
            config_hash=digest,
            started_at=_rfc3339(started),
            duration_ms=int((time.monotonic() - clock) * 1000),
            result="pass" if stage == "complete" and passed else "fail",
            stage=stage,
            seed=run.seed,
            error=error,
            data=data,
            tools=run.tools,
            group_id=_group_id(),
        )
        envelope.write(target, root=config.root)
        return dropped

    outermost = False
    try:
        with _signals_as_exceptions() as outermost:
            subject = git_subject(config.root)
            yield run
    except Terminated as exc:
        write("error", {"type": "Terminated", "message": str(exc)})
        if outermost:
            # Exit the way the signal would have: restore the default action
            # and deliver it again, so the parent sees "killed by SIGTERM".
            signal.signal(exc.signum, signal.SIG_DFL)
            os.kill(os.getpid(), exc.signum)
        raise  # to the enclosing lane, or where the signal is blocked
    except BaseException as exc:
        write("error", {"type": type(exc).__name__, "message": _message(exc)})
        if isinstance(exc, LanesError):
            # The lane began: its envelope now says stage "error", so the
            # exit is "could not complete", never "nothing ran" (lanes/exitcodes.py).
            exc.work_began = True
        raise
    if run.passed is None:
        dropped = write(
            "error", {"type": "LanesError", "message": f"lane {lane!r} finished without a verdict"}
        )
    else:
        dropped = write("complete", None)
    if dropped is not None:
        msg = f"lane {lane!r}: {dropped}"
        raise EnvelopeError(
            msg,
            hint="put only JSON values in run.data: str, int, bool, None, finite floats, "
            "and lists and dicts (str keys) of them",
        )


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Problem:
    """One schema violation: where (a JSON path) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def _json_path(parts: Iterable[str | int]) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _validator(schema: Mapping[str, Any]) -> Any:  # noqa: ANN401  # jsonschema's validator is untyped here
    try:
        import jsonschema  # noqa: PLC0415  # a lane dependency, never on the hook path
    except ImportError:
        msg = "validating envelopes needs the jsonschema package, which is not installed"
        raise LanesError(
            msg,
            hint="install the lane dependencies: python3 -m pip install 'lanekit[lanes]'",
        ) from None
    return jsonschema.Draft202012Validator(schema)


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def _problems(validator: Any, document: object) -> list[Problem]:  # noqa: ANN401  # see _validator
    problems = [
        Problem(_json_path(error.absolute_path), error.message)
        for error in validator.iter_errors(document)
    ]
    return sorted(problems, key=lambda p: (p.path, p.message))


def validate_envelope(document: object) -> list[Problem]:
    """Every way ``document`` breaks the envelope schema (empty when valid)."""
    return _problems(_validator(_schema()), document)


def payload_problems(lane: str, data: object) -> list[Problem]:
    """Every way ``data`` breaks ``lane``'s payload type (``$defs.<lane>``); paths start at data.

    A lane without a type in the schema has none: any data is its own.
    """
    schema = _schema()
    if lane not in schema["$defs"]:
        return []
    lane_schema = {"$defs": schema["$defs"], "$ref": f"#/$defs/{lane}"}
    return _problems(_validator(lane_schema), data)


def read_envelope(path: Path) -> dict[str, Any]:
    """Load an envelope file as JSON; :class:`EnvelopeError` when it is not JSON.

    Read as a strict document (:mod:`lanes._jsondoc`): a FIFO or a device such
    as ``/dev/zero`` is refused without reading it, and so is a file larger
    than :data:`MAX_ENVELOPE_BYTES` or nested past the envelope's depth.
    """

    def fail(message: str) -> EnvelopeError:
        return EnvelopeError(
            message,
            hint="the file is not an envelope (not a regular UTF-8 JSON object of a sane "
            "size); re-run the lane that wrote it",
        )

    document = load_object(
        path,
        what=f"envelope {str(path)!r}",
        fail=fail,
        max_bytes=MAX_ENVELOPE_BYTES,
        max_depth=MAX_DATA_DEPTH + 2,  # the envelope, its data, then the data's values
        follow_symlinks=True,  # a path the user named
    )
    if document is None:
        msg = f"envelope {str(path)!r} does not exist"
        raise EnvelopeError(msg, hint="run the lane first (nox -s <lane>), or check the path")
    return document
