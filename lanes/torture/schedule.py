"""Schedule files: a failing run, written down so that anyone can replay it.

A schedule names everything a run depends on — the variant of the code
(``governor``, or a planted bug), the TTL, every client's host and program,
and the scheduler's choices step by step — so ``lanes torture --schedule FILE``
replays it exactly, with no seed arithmetic. Shrinking produces them; the
reader :func:`load_schedule` is strict (the fuzz lane feeds it garbage) and
rejects anything else with a :class:`ScheduleError` that says what to do.

    {"format": "lanekit.torture.schedule", "version": 1, "seed": 1234,
     "variant": "governor", "ttl": 1800, "invariant": "foreign-lock",
     "clients": [{"host": "h-local", "program": ["cycle unit pass 20"]}, ...],
     "choices": [0, 0, 1, 0]}
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Final

from lanes._jsondoc import failing_with, loads_object
from lanes._textdoc import read_text
from lanes.errors import LanesError, UsageError
from lanes.torture.program import HOSTS, ClientSpec, parse_op

__all__ = [
    "FORMAT",
    "MAX_CHOICES",
    "Schedule",
    "ScheduleError",
    "dump_schedule",
    "load_schedule",
    "read_schedule",
]

FORMAT: Final = "lanekit.torture.schedule"
VERSION: Final = 1
MAX_CLIENTS: Final = 64
MAX_OPS: Final = 10_000
MAX_CHOICES: Final = 1_000_000
MAX_TTL: Final = 10**7
_KEYS: Final = ("format", "version", "seed", "variant", "ttl", "invariant", "clients", "choices")
_HINT: Final = (
    "a schedule file is written by a failing `lanes torture` run (see its 'shrunk schedule' "
    "line); regenerate it with `lanes torture --seed N`, or fix the field named above"
)


class ScheduleError(UsageError):
    """A schedule file that is not what ``lanes torture`` writes."""


@dataclass(frozen=True)
class Schedule:
    seed: int
    variant: str
    ttl: int
    invariant: str
    clients: tuple[ClientSpec, ...]
    choices: tuple[int, ...]

    @property
    def ops(self) -> int:
        return sum(len(client.program) for client in self.clients)


def dump_schedule(schedule: Schedule) -> str:
    document = {
        "format": FORMAT,
        "version": VERSION,
        "seed": schedule.seed,
        "variant": schedule.variant,
        "ttl": schedule.ttl,
        "invariant": schedule.invariant,
        "clients": [
            {"host": client.host, "program": [op.text() for op in client.program]}
            for client in schedule.clients
        ],
        "choices": list(schedule.choices),
    }
    return json.dumps(document, indent=1) + "\n"


_READ_HINT: Final = "pass the path a failing `lanes torture` run printed after 'shrunk schedule'"
# MAX_CHOICES choices and MAX_CLIENTS programs of short ops fit in far less.
_MAX_SCHEDULE_BYTES: Final = 4 << 20


def _bad(what: str) -> ScheduleError:
    return ScheduleError(f"schedule file: {what}", hint=_HINT)


def _integer(document: dict[str, object], key: str, low: int, high: int) -> int:
    value = document[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        msg = f"{key} must be an integer {low}..{high}, got {value!r}"
        raise _bad(msg)
    return value


def _client(index: int, raw: object) -> ClientSpec:
    if not isinstance(raw, dict) or set(raw) != {"host", "program"}:
        msg = f"clients[{index}] must be an object with exactly 'host' and 'program'"
        raise _bad(msg)
    host, program = raw["host"], raw["program"]
    if host not in HOSTS:
        msg = f"clients[{index}].host must be one of {list(HOSTS)}, got {host!r}"
        raise _bad(msg)
    if not isinstance(program, list) or len(program) > MAX_OPS:
        msg = f"clients[{index}].program must be a list of at most {MAX_OPS} op strings"
        raise _bad(msg)
    ops = []
    for position, text in enumerate(program):
        if not isinstance(text, str):
            msg = f"clients[{index}].program[{position}] must be a string, got {text!r}"
            raise _bad(msg)
        try:
            ops.append(parse_op(text))
        except LanesError as exc:
            msg = f"clients[{index}].program[{position}]: {exc.message}"
            raise _bad(msg) from None
    return ClientSpec(host=host, program=tuple(ops))


def read_schedule(path: str | os.PathLike[str]) -> Schedule:
    """The schedule in the file at ``path`` (named by the user: a link is followed).

    Read strictly (:mod:`lanes._textdoc`): a FIFO is refused at once instead of
    hanging the lane, ``/dev/zero`` or a huge file instead of filling memory.
    """
    where = f"schedule file {os.fspath(path)!r}"
    text = read_text(
        path,
        what=where,
        fail=failing_with(ScheduleError, _READ_HINT),
        max_bytes=_MAX_SCHEDULE_BYTES,
        follow_symlinks=True,
    )
    if text is None:
        msg = f"{where} does not exist"
        raise ScheduleError(msg, hint=_READ_HINT)
    return load_schedule(text)


def load_schedule(text: str) -> Schedule:
    """Parse a schedule file's text; :class:`ScheduleError` for anything else."""
    from lanes.torture.planted import PLANTED  # noqa: PLC0415  # variants import the kernel

    document = loads_object(text, what="the text", fail=_bad)
    missing = [key for key in _KEYS if key not in document]
    if missing:
        msg = f"missing {', '.join(repr(k) for k in missing)}"
        raise _bad(msg)
    unknown = sorted(str(key) for key in document if key not in _KEYS)
    if unknown:
        msg = f"unknown key(s) {', '.join(repr(k) for k in unknown)}"
        raise _bad(msg)
    if document["format"] != FORMAT:
        msg = f"format must be {FORMAT!r}, got {document['format']!r}"
        raise _bad(msg)
    if document["version"] != VERSION or isinstance(document["version"], bool):
        msg = f"version must be {VERSION}, got {document['version']!r}"
        raise _bad(msg)
    variants = ("governor", *PLANTED)
    if document["variant"] not in variants:
        msg = f"variant must be one of {list(variants)}, got {document['variant']!r}"
        raise _bad(msg)
    invariant = document["invariant"]
    if not isinstance(invariant, str):
        msg = f"invariant must be a string, got {invariant!r}"
        raise _bad(msg)
    raw_clients = document["clients"]
    if not isinstance(raw_clients, list) or not 1 <= len(raw_clients) <= MAX_CLIENTS:
        msg = f"clients must be a list of 1..{MAX_CLIENTS} clients"
        raise _bad(msg)
    clients = tuple(_client(index, raw) for index, raw in enumerate(raw_clients))
    raw_choices = document["choices"]
    if not isinstance(raw_choices, list) or len(raw_choices) > MAX_CHOICES:
        msg = f"choices must be a list of at most {MAX_CHOICES} client numbers"
        raise _bad(msg)
    # The end-of-run probe is one more client, numbered after the others.
    top = len(clients)
    for position, choice in enumerate(raw_choices):
        if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice <= top:
            msg = f"choices[{position}] must be a client number 0..{top}, got {choice!r}"
            raise _bad(msg)
    return Schedule(
        seed=_integer(document, "seed", 0, 2**63 - 1),
        variant=str(document["variant"]),
        ttl=_integer(document, "ttl", 1, MAX_TTL),
        invariant=invariant,
        clients=clients,
        choices=tuple(raw_choices),
    )
