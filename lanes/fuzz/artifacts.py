"""Failure artifacts (``envelopes/fuzz/*.json``) and the regression corpus.

An artifact is everything needed to act on one shrunk counterexample without
re-running the search: the input (losslessly encoded), what it did, how it was
found (seed, iterations, Hypothesis version and its ``@reproduce_failure``
blob), and the two commands to paste — the repro and the promote.

The corpus, ``baselines/fuzz-regressions.json``, holds promoted inputs. The
project's own pytest replays every entry through the same watchdog as the
lane (the ``lanes.fuzz`` plugin, :mod:`lanes.fuzz.plugin`), so a fixed bug
stays fixed and a promoted hang fails against its budget instead of wedging
the suite.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

import hypothesis

from lanes._atomic import flocked_directory, write_atomic
from lanes._jsondoc import failing_with, load_object
from lanes.errors import StateError, UsageError
from lanes.fuzz._codec import CodecError, canonical, decode, encode

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.fuzz.engine import Failure
    from lanes.fuzz.watchdog import CaseOutcome
    from lanes.payloads.fuzz import FuzzFailure, FuzzFailureKind

__all__ = [
    "ARTIFACT_FORMAT",
    "CORPUS_FORMAT",
    "CorpusEntry",
    "SavedCase",
    "append_to_corpus",
    "load_artifact",
    "load_corpus",
    "preview",
    "promote_command",
    "repro_command",
    "save_failure",
]

ARTIFACT_FORMAT: Final = "lanekit.fuzz-case"
CORPUS_FORMAT: Final = "lanekit.fuzz-regressions"
_VERSION: Final = 1
_PREVIEW: Final = 160


@dataclass(frozen=True)
class SavedCase:
    """A fuzz input read back from an artifact (or a corpus entry)."""

    target: str
    value: object
    kind: str
    source: Path
    # What it raised when it was saved ("ValueError: ..."), for the corpus note.
    error: str = ""


@dataclass(frozen=True)
class CorpusEntry:
    id: str
    target: str
    value: object
    kind: str
    note: str


def _display(path: Path, root: Path) -> str:
    """``path`` relative to the project root when inside it: commands stay pasteable in CI logs."""
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def repro_command(artifact: str) -> str:
    return f"lanes fuzz --input-file {shlex.quote(artifact)}"


def promote_command(artifact: str) -> str:
    return f"{repro_command(artifact)} --append-corpus"


def _case_id(target: str, value: object) -> str:
    return hashlib.sha256(f"{target}\0{canonical(value)}".encode()).hexdigest()[:12]


def preview(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 3] + "..."


def save_failure(failure: Failure, directory: Path, *, root: Path) -> FuzzFailure:
    """Write one failure artifact; return its summary for the envelope (with the commands)."""
    outcome: CaseOutcome = failure.outcome
    case = _case_id(failure.target, failure.value)
    # The target's name is the user's: never let it leave the directory ("../x").
    safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in failure.target)
    path = directory / f"{safe}-{outcome.kind}-{case}.json"
    shown = _display(path, root)
    summary: FuzzFailure = {
        "target": failure.target,
        # A failure's outcome is one of FAILURE_KINDS, FuzzFailureKind's
        # values (tests/payloads ties the two).
        "kind": cast("FuzzFailureKind", outcome.kind),
        "error_type": outcome.error_type,
        "message": outcome.message,
        "input_preview": preview(failure.value),
        "artifact": shown,
        "repro": repro_command(shown),
        "promote": promote_command(shown),
    }
    document = {
        "format": ARTIFACT_FORMAT,
        "version": _VERSION,
        **summary,
        "detail": outcome.detail,
        "input": encode(failure.value),
        "found_by": {
            "seed": failure.seed,
            "iterations": failure.iterations,
            "hypothesis": hypothesis.__version__,
            "reproduce_failure": failure.reproduce_failure,
        },
    }
    directory.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(document, indent=2) + "\n")
    return summary


def _read_json(path: Path, what: str) -> dict[str, Any]:
    # Strict (lanes._jsondoc): a FIFO or device named on the command line is
    # refused without blocking, a huge or deeply nested file without a crash.
    data = load_object(
        path,
        what=f"{what} {str(path)!r}",
        fail=failing_with(
            StateError, "re-download the artifact or re-run the fuzz lane to write it again"
        ),
        follow_symlinks=True,
    )
    if data is None:
        msg = f"{what} {str(path)!r} does not exist"
        raise UsageError(msg, hint="pass the path printed after 'repro:' by a fuzz run")
    return data


def load_artifact(path: Path) -> SavedCase:
    """Read a failure artifact written by :func:`save_failure`."""
    data = _read_json(path, "fuzz artifact")
    if (
        data.get("format") != ARTIFACT_FORMAT
        or not isinstance(data.get("target"), str)
        or "input" not in data
    ):
        msg = f"{str(path)!r} is not a fuzz failure artifact (format {data.get('format')!r})"
        raise UsageError(msg, hint="pass a file from envelopes/fuzz/ written by `lanes fuzz`")
    try:
        value = decode(data["input"])
    except CodecError as exc:
        msg = f"{path}: {exc.message}"
        raise UsageError(msg, hint=exc.hint) from None
    raised = ": ".join(str(data[key]) for key in ("error_type", "message") if data.get(key))
    return SavedCase(
        target=data["target"],
        value=value,
        kind=str(data.get("kind", "")),
        source=path,
        error=raised,
    )


def load_corpus(path: Path) -> list[CorpusEntry]:
    """Every entry of the regression corpus; an absent file is an empty corpus."""
    if not path.exists():
        return []
    data = _read_json(path, "fuzz regression corpus")
    entries = data.get("entries")
    if (
        data.get("format") != CORPUS_FORMAT
        or data.get("version") != _VERSION
        or not isinstance(entries, list)
    ):
        msg = (
            f"{str(path)!r} is not a v{_VERSION} fuzz regression corpus "
            f"(format {data.get('format')!r}, version {data.get('version')!r})"
        )
        raise StateError(
            msg, hint="restore it from git; it is only written by `lanes fuzz --append-corpus`"
        )
    out: list[CorpusEntry] = []
    for index, raw in enumerate(entries):
        if (
            not isinstance(raw, dict)
            or not isinstance(raw.get("target"), str)
            or "input" not in raw
        ):
            msg = f"{path} entry {index} is not a corpus entry: {raw!r:.120}"
            raise StateError(msg, hint="restore the file from git and promote the case again")
        try:
            value = decode(raw["input"])
        except CodecError as exc:
            msg = f"{path} entry {index}: {exc.message}"
            raise StateError(msg, hint=exc.hint) from None
        out.append(
            CorpusEntry(
                id=str(raw.get("id") or _case_id(raw["target"], value)),
                target=raw["target"],
                value=value,
                kind=str(raw.get("kind", "")),
                note=str(raw.get("note", "")),
            )
        )
    return out


def append_to_corpus(path: Path, case: SavedCase, *, note: str) -> bool:
    """Add ``case`` to the corpus unless an equal input of the same target is there (True when added)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    entry_id = _case_id(case.target, case.value)
    with flocked_directory(path.parent):
        existing = load_corpus(path)
        if any(entry.id == entry_id for entry in existing):
            return False
        raw_entries = [
            {
                "id": e.id,
                "target": e.target,
                "kind": e.kind,
                "note": e.note,
                "input": encode(e.value),
            }
            for e in existing
        ]
        raw_entries.append(
            {
                "id": entry_id,
                "target": case.target,
                "kind": case.kind,
                "note": note,
                "input": encode(case.value),
            }
        )
        document = {"format": CORPUS_FORMAT, "version": _VERSION, "entries": raw_entries}
        write_atomic(path, json.dumps(document, indent=2) + "\n")
    return True
