"""The lane envelope v1 itself, as a type: the fields every lane's file has (a contract).

:class:`lanes.envelope.Envelope` writes exactly this shape, and the top of
``lanes/envelope.schema.json`` is generated from it; ``data`` is the lane's own
payload, whose type the registry (:mod:`lanes.payloads.registry`) names.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from lanes.payloads.constraints import Doc, Min, MinLength, Pattern

__all__ = [
    "EnvelopeDocument",
    "ErrorDocument",
    "GeneratedBy",
    "SeedRange",
    "SubjectDocument",
]


class SubjectDocument(TypedDict):
    """What was measured."""

    commit: Annotated[str, Pattern("^[0-9a-f]{40}$")] | None
    dirty: bool
    branch: str | None


class GeneratedBy(TypedDict):
    """The lanekit and Python that wrote the file, and the tools the lane ran."""

    name: Literal["lanekit"]
    version: Annotated[str, MinLength(1)]
    python: Annotated[str, MinLength(1)]
    platform: Annotated[str, MinLength(1)]
    tools: dict[str, str]


class SeedRange(TypedDict):
    """The seeds ``start`` .. ``start + count - 1`` (the torture sweep)."""

    start: int
    count: Annotated[int, Min(0)]


class ErrorDocument(TypedDict):
    """Why the lane could not complete."""

    type: Annotated[str, MinLength(1)]
    message: str


class EnvelopeDocument(TypedDict):
    """One lane run. ``data`` is the lane's own payload; when ``stage`` is
    ``"complete"`` it must match that lane's type (``$defs.<lane>``)."""

    format: Literal["lanekit.envelope"]
    schema_version: Annotated[
        str, Pattern(r"^1\.[0-9]+\.[0-9]+$"), Doc("semver; a reader of major 1 accepts any 1.x.y")
    ]
    lane: Annotated[str, Pattern("^[a-z][a-z0-9_-]*$")]
    run_id: Annotated[
        str, Pattern("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
    ]
    group_id: Annotated[str, MinLength(1)]
    subject: SubjectDocument
    generated_by: GeneratedBy
    config_hash: Annotated[str, Pattern("^sha256:[0-9a-f]{64}$")]
    seed: int | SeedRange | None
    started_at: Annotated[
        str, Pattern(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$")
    ]
    duration_ms: Annotated[int, Min(0)]
    result: Literal["pass", "fail"]
    stage: Literal["complete", "error"]
    error: ErrorDocument | None
    # The lane's payload: its shape is the lane's registered type.
    data: dict[str, Any]
