"""Hostile documents: the JSON, TOML and text our parsers read from outside.

The hazard vocabulary for everything that is not a shell command (that lives in
:mod:`lanes.strategies.shell`): truncated and wrongly-typed JSON, hook payloads,
``[tool.lanes]`` tables with wrong types and unknown keys, ledger and lock files
someone else wrote, lane envelopes — plus the text hazards under all of them
(unicode, control characters, lone surrogates, very long and deeply nested
input).

The property suite and the fuzz lane draw from these same strategies, so a
hazard added for one reaches the other. Every structured strategy is built the
same way: a *valid* document whose fields are each, independently, kept, given
a wrong-typed value, or dropped, plus stray unknown keys. The valid choice comes
first, so Hypothesis shrinks a counterexample towards the well-formed document
and the one field that breaks it.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import TYPE_CHECKING, Any, Final

from hypothesis import strategies as st

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "CONFIG_SECTIONS",
    "config_tables",
    "envelope_documents",
    "envelope_texts",
    "hook_payload_texts",
    "hook_payloads",
    "hostile_strings",
    "hostile_text",
    "json_texts",
    "json_values",
    "ledger_texts",
    "lock_records",
    "lock_texts",
    "long_text",
    "mangled",
    "nested_json",
    "pyproject_texts",
    "shaped",
    "to_toml",
    "toml_values",
    "torture_schedule_texts",
    "torture_schedules",
]

# Characters that have broken parsers before: NUL and other C0 controls, DEL,
# the JSON-legal but JavaScript-illegal line separators, a byte-order mark, a
# right-to-left override, a combining mark, a lone surrogate (legal in a Python
# str, unencodable as UTF-8), and an astral-plane emoji.
_NASTY_CHARACTERS: Final = (
    "\x00\x01\x07\x08\x0b\x0c\x1b\x7f\u2028\u2029\ufeff\u202e\u0301\ud800\udfff\U0001f600\t\r\n"
)

# Sizes large enough to find quadratic behaviour and recursion limits, small
# enough that a case stays far inside the fuzz lane's per-case budget.
_LONG: Final = 20_000
_DEEP: Final = 5_000


def hostile_text(*, max_size: int = 60) -> st.SearchStrategy[str]:
    """Short text dense in the characters that break parsers."""
    return st.text(
        alphabet=st.one_of(st.sampled_from(_NASTY_CHARACTERS), st.characters()),
        max_size=max_size,
    )


def long_text() -> st.SearchStrategy[str]:
    """One character repeated thousands of times: quadratic-time and buffer hazards."""
    return st.builds(
        lambda ch, n: ch * n,
        st.sampled_from("a\x00\u2028 \\\"'{["),
        st.integers(min_value=1_000, max_value=_LONG),
    )


def hostile_strings() -> st.SearchStrategy[str]:
    """:func:`hostile_text`, or now and then :func:`long_text`."""
    return st.one_of(hostile_text(), long_text())


# --------------------------------------------------------------------------- JSON

_INTS: Final = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    # Past 64 bits and past float range: `float(10**400)` raises OverflowError.
    st.sampled_from((2**64, -(2**63) - 1, 10**400, -(10**400))),
)
_FLOATS: Final = st.floats(allow_nan=True, allow_infinity=True)
_JSON_SCALARS: Final = st.one_of(st.none(), st.booleans(), _INTS, _FLOATS, hostile_text())


def json_values(*, max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Any JSON value Python's ``json`` module reads, NaN and huge integers included."""
    return st.recursive(
        _JSON_SCALARS,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(hostile_text(max_size=12), children, max_size=4),
        ),
        max_leaves=max_leaves,
    )


def nested_json(*, max_depth: int = _DEEP) -> st.SearchStrategy[str]:
    """``[[[[...]]]]`` and ``{"a":{"a":...}}``: recursion-limit hazards, balanced or not."""

    def build(brackets: tuple[str, str], depth: int, *, balanced: bool) -> str:
        opener, closer = brackets
        return opener * depth + (closer * depth if balanced else "")

    return st.builds(
        build,
        st.sampled_from((("[", "]"), ('{"a":', "}"))),
        st.integers(min_value=1, max_value=max_depth),
        balanced=st.booleans(),
    )


_DAMAGE: Final = st.sampled_from(("truncate", "replace", "insert"))
_JSON_PUNCTUATION: Final = st.text(
    alphabet=st.sampled_from('{}[]",:\\0-.eE\x00\ud800'), min_size=1, max_size=3
)


@st.composite
def _mangled_text(draw: st.DrawFn, text: str) -> str:
    """``text`` cut short, with a character swapped, or with garbage spliced in."""
    how = draw(_DAMAGE)
    if not text:
        return draw(_JSON_PUNCTUATION)
    at = draw(st.integers(min_value=0, max_value=len(text) - 1))
    if how == "truncate":
        return text[:at]
    piece = draw(_JSON_PUNCTUATION)
    if how == "replace":
        return text[:at] + piece + text[at + 1 :]
    return text[:at] + piece + text[at:]


def mangled(documents: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Each document as is (first, so shrinking heads there) or damaged."""
    return st.one_of(documents, documents.flatmap(_mangled_text))


def _dumps(value: object) -> str:
    # allow_nan: Python writes NaN/Infinity and reads them back; other writers
    # (and a hand-edited file) do too, so the parsers must cope.
    return json.dumps(value, allow_nan=True)


def json_texts(documents: st.SearchStrategy[Any] | None = None) -> st.SearchStrategy[str]:
    """JSON text of ``documents`` (default: any JSON value), damaged or not, or not JSON at all."""
    values = json_values() if documents is None else documents
    texts = values.map(_dumps)
    return st.one_of(
        texts,  # twice: the documents themselves are where the deep paths are
        texts,
        texts.flatmap(_mangled_text),
        json_values().map(_dumps),  # the wrong top-level type
        nested_json(),
        hostile_strings(),
    )


_DAMAGES: Final = st.integers(min_value=0, max_value=3)
_FIELD_FATES: Final = st.sampled_from(("wrong", "drop"))


@st.composite
def _shaped(
    draw: st.DrawFn,
    fields: tuple[tuple[str, st.SearchStrategy[Any]], ...],
    wrong: st.SearchStrategy[Any],
    extras: st.SearchStrategy[dict[str, Any]],
    pick: st.SearchStrategy[str],
) -> dict[str, Any]:
    # A valid document first, then up to three fields broken: a document valid
    # in all but one field is common, and that is the path deep validation
    # takes (with ten fields broken independently it almost never happens).
    # Zero damages comes first, so shrinking heads for the well-formed
    # document and the one field that breaks it. Every strategy drawn here was
    # built once, in shaped(): building one per draw cost more than drawing.
    out = {name: draw(valid) for name, valid in fields}
    for _ in range(draw(_DAMAGES)):
        name = draw(pick)
        if draw(_FIELD_FATES) == "wrong":
            out[name] = draw(wrong)
        else:
            out.pop(name, None)
    for key, value in draw(extras).items():
        out.setdefault(key, value)
    return out


def shaped(
    fields: Mapping[str, st.SearchStrategy[Any]],
    *,
    wrong: st.SearchStrategy[Any] | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with these fields (at least one), a few wrongly typed or dropped, plus unknown keys."""
    wrong_values = json_values(max_leaves=4) if wrong is None else wrong
    extras = st.dictionaries(hostile_text(max_size=10), wrong_values, max_size=2)
    return _shaped(tuple(fields.items()), wrong_values, extras, st.sampled_from(tuple(fields)))


# --------------------------------------------------------------------------- hook payloads

_EVENTS: Final = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
_TOOLS: Final = ("Bash", "shell", "local_shell", "exec_command", "Read", "")


def hook_payloads() -> st.SearchStrategy[dict[str, Any]]:
    """Claude Code / Codex CLI hook payload objects, mostly plausible, often broken."""
    command = st.one_of(hostile_strings(), st.lists(hostile_text(max_size=10), max_size=4))
    response = shaped(
        {
            "exit_code": st.one_of(st.integers(-5, 300), st.text("-0123456789 ", max_size=4)),
            "interrupted": st.booleans(),
            "stdout": hostile_text(),
        }
    )
    return shaped(
        {
            "hook_event_name": st.sampled_from(_EVENTS),
            "tool_name": st.sampled_from(_TOOLS),
            "tool_input": shaped({"command": command}),
            "session_id": hostile_text(max_size=40),
            "cwd": hostile_text(max_size=40),
            "tool_response": response,
            "error": st.builds(lambda n, tail: f"Exit code {n}\n{tail}", _INTS, hostile_text()),
            "is_interrupt": st.booleans(),
        }
    )


def hook_payload_texts() -> st.SearchStrategy[str | bytes]:
    """What arrives on the hook's stdin: payload JSON (damaged or not), as text or bytes."""
    texts = json_texts(hook_payloads())
    return st.one_of(texts, texts.map(lambda text: text.encode("utf-8", "surrogatepass")))


# --------------------------------------------------------------------------- ledger and lock

_HEX40: Final = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)
_HEX64: Final = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
_TIMESTAMPS: Final = st.one_of(
    st.floats(min_value=0, max_value=4e9, allow_nan=False),
    st.integers(0, 4_000_000_000),
    # Valid JSON numbers no float can hold: `math.isfinite(10**400)` raises.
    st.sampled_from((10**400, -(10**400), 2**1024)),
)


def _ledger_entries() -> st.SearchStrategy[dict[str, Any]]:
    return shaped(
        {
            "status": st.sampled_from(("PASS", "FAIL", "pass", "")),
            "ts": _TIMESTAMPS,
            "git_head": _HEX40,
            "dirty_digest": st.one_of(st.just("clean"), _HEX40),
            "agent": st.sampled_from(("claude", "codex", "")),
            "session_tail": hostile_text(max_size=8),
            "duration_ms": st.integers(-1, 10**7),
        }
    )


def ledger_texts() -> st.SearchStrategy[str]:
    """Verify-ledger file contents: suite -> entry objects, damaged or not."""
    ledgers = st.dictionaries(hostile_text(max_size=12), _ledger_entries(), max_size=3)
    return json_texts(ledgers)


def lock_records() -> st.SearchStrategy[dict[str, Any]]:
    """Run-lock file objects: every field kept, wrongly typed or dropped."""
    return shaped(
        {
            "suite": hostile_text(max_size=12),
            "agent": st.sampled_from(("claude", "codex", "")),
            "session_tail": hostile_text(max_size=8),
            "agent_pid": st.integers(-1, 2**22),
            "agent_start": hostile_text(max_size=20),
            "boot_id": hostile_text(max_size=36),
            "host": hostile_text(max_size=20),
            "started_ts": _TIMESTAMPS,
            "token": hostile_text(max_size=32),
            "command": hostile_text(),
        }
    )


def lock_texts() -> st.SearchStrategy[str]:
    """Run-lock file contents, damaged or not."""
    return json_texts(lock_records())


# --------------------------------------------------------------------------- TOML / [tool.lanes]


def toml_values(*, max_leaves: int = 6) -> st.SearchStrategy[Any]:
    """Any value ``tomllib`` can produce: 64-bit ints, floats (NaN too), dates, arrays, tables."""
    scalars = st.one_of(
        st.booleans(),
        st.integers(min_value=-(2**63), max_value=2**63 - 1),
        st.floats(allow_nan=True),
        hostile_text(max_size=20).filter(_toml_encodable),
        st.datetimes(timezones=st.sampled_from((None, dt.UTC))),
        st.dates(),
        st.times(),
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=3),
            st.dictionaries(_toml_keys(), children, max_size=3),
        ),
        max_leaves=max_leaves,
    )


def _toml_encodable(text: str) -> bool:
    # TOML text is UTF-8 and forbids most control characters even escaped-free;
    # a lone surrogate could never come out of tomllib.
    return not any("\ud800" <= ch <= "\udfff" for ch in text)


def _toml_keys() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(_ALL_CONFIG_KEYS), hostile_text(max_size=10).filter(_toml_encodable)
    )


_NAMES: Final = st.sampled_from(("unit", "integration", "e2e", "tests", "x"))
_PATHS: Final = st.lists(st.sampled_from(("tests", "./tests/unit/", "src", ".", "")), max_size=3)
_REFS: Final = st.sampled_from(
    ("pkg.mod:func", "json:loads", "nomodule", ":x", "a:", "lanes.errors:LanesError")
)

# The valid shape of each section, as TOML would deliver it.
_SECTION_FIELDS: Final[Mapping[str, Mapping[str, st.SearchStrategy[Any]]]] = {
    "suite": {
        "paths": _PATHS,
        "command": st.sampled_from(("pytest tests -q", "make verify", "")),
        "max_age": st.integers(-1, 10**6),
        "tier": _NAMES,
        "runner": st.sampled_from(("pytest", "unittest", "command", "jest", "nope")),
        "lock": st.booleans(),
    },
    "governor": {
        "max_full": st.integers(-1, 10),
        "escalate_at": st.integers(-1, 12),
        "lock_ttl": st.integers(-1, 10**5),
        "sweep_min_paths": st.integers(-1, 10),
        "gate_runners": st.lists(st.sampled_from(("pytest", "unittest", "jest", "")), max_size=3),
    },
    "slow": {
        "enabled": st.booleans(),
        "fail_factor": st.floats(min_value=-1, max_value=10),
        "default_tier": _NAMES,
        "tighten_below": st.floats(min_value=-1, max_value=1),
        "pins": st.sampled_from(("baselines/slow-tests.json", "")),
    },
    "tier": {
        "budget": st.one_of(st.floats(min_value=-1, max_value=60), st.integers(-1, 60)),
        "markers": st.lists(_NAMES, max_size=2),
        "paths": _PATHS,
    },
    "fuzz": {
        "iterations": st.integers(-1, 10**5),
        "seed": st.integers(-1, 2**32),
        "case_budget": st.floats(min_value=-1, max_value=10),
    },
    "fuzz_target": {
        "callable": _REFS,
        "strategy": _REFS,
        "error": _REFS,
        "hint_attribute": st.sampled_from(("hint", "", "message")),
    },
    "torture": {
        "runs": st.integers(-1, 1000),
        "seed_start": st.integers(-1, 100),
        "clients": st.integers(-1, 8),
        "ops": st.integers(-1, 100),
        "scheduler": st.sampled_from(("random", "pct", "fifo")),
    },
}

CONFIG_SECTIONS: Final = (
    "suites",
    "governor",
    "slow",
    "fuzz",
    "torture",
    "envelope_dir",
    "baseline_dir",
)
_ALL_CONFIG_KEYS: Final = tuple(
    sorted({key for fields in _SECTION_FIELDS.values() for key in fields} | set(CONFIG_SECTIONS))
)


def config_tables() -> st.SearchStrategy[dict[str, Any]]:
    """``[tool.lanes]`` tables as ``tomllib`` returns them: plausible, with wrong types and unknown keys."""
    wrong = toml_values(max_leaves=3)

    def section(kind: str) -> st.SearchStrategy[dict[str, Any]]:
        return shaped(_SECTION_FIELDS[kind], wrong=wrong)

    def named(kind: str) -> st.SearchStrategy[dict[str, Any]]:
        return st.dictionaries(_NAMES, section(kind), max_size=2)

    slow = st.builds(
        lambda s, tiers: {**s, "tiers": tiers} if tiers else s, section("slow"), named("tier")
    )
    fuzz = st.builds(
        lambda f, targets: {**f, "targets": targets} if targets else f,
        section("fuzz"),
        named("fuzz_target"),
    )
    return shaped(
        {
            "suites": named("suite"),
            "governor": section("governor"),
            "slow": slow,
            "fuzz": fuzz,
            "torture": section("torture"),
            "envelope_dir": st.sampled_from(("envelopes", "out", "")),
            "baseline_dir": st.sampled_from(("baselines", "")),
        },
        wrong=wrong,
    )


def _toml_string(text: str) -> str:
    # A JSON string is a valid TOML basic string for every character JSON
    # escapes as \uXXXX or a short escape, which is all of them here.
    return json.dumps(text)


def _toml_float(number: float) -> str:
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    return repr(number)


def to_toml(value: object) -> str:
    """``value`` as a TOML value expression (inline tables for nested tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _toml_float(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, list):
        return "[" + ", ".join(to_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        pairs = ", ".join(f"{_toml_string(key)} = {to_toml(item)}" for key, item in value.items())
        return "{" + pairs + "}"
    msg = f"to_toml() cannot write {type(value).__name__} {value!r}; TOML has no such type"
    raise TypeError(msg)


def _pyproject(table: Mapping[str, Any]) -> str:
    lines = ["[project]", 'name = "fuzzed"', "", "[tool.lanes]"]
    lines += [f"{_toml_string(key)} = {to_toml(value)}" for key, value in table.items()]
    return "\n".join(lines) + "\n"


def pyproject_texts() -> st.SearchStrategy[str]:
    """``pyproject.toml`` text carrying a generated ``[tool.lanes]`` table, damaged or not."""
    return st.one_of(
        mangled(config_tables().map(_pyproject)),
        st.builds(lambda text: f"[tool]\nlanes = {text}\n", st.sampled_from(("1", '"x"', "[]"))),
        hostile_strings(),
    )


# --------------------------------------------------------------------------- envelopes

_RFC3339: Final = st.datetimes(
    min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1)
).map(lambda moment: moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")


def envelope_documents() -> st.SearchStrategy[dict[str, Any]]:
    """Lane envelope objects: well-formed v1 envelopes with fields broken one at a time."""
    subject = shaped(
        {
            "commit": st.one_of(st.none(), _HEX40),
            "dirty": st.booleans(),
            "branch": st.one_of(st.none(), hostile_text(max_size=20)),
        }
    )
    generated_by = shaped(
        {
            "name": st.just("lanekit"),
            "version": st.just("0.1.0"),
            "python": st.just("3.11.7"),
            "platform": st.just("linux-x86_64"),
            "tools": st.dictionaries(hostile_text(max_size=8), st.text(max_size=8), max_size=2),
        }
    )
    error = st.one_of(
        st.none(), shaped({"type": st.sampled_from(("KeyError", "")), "message": hostile_text()})
    )
    seed = st.one_of(
        st.none(), st.integers(), shaped({"start": st.integers(), "count": st.integers(-1, 9)})
    )
    return shaped(
        {
            "format": st.just("lanekit.envelope"),
            "schema_version": st.sampled_from(("1.0.0", "1.2.3", "2.0.0", "1.0")),
            "lane": st.sampled_from(("fuzz", "timing", "slow", "x", "Bad Lane")),
            "run_id": st.uuids().map(str),
            "group_id": st.one_of(st.uuids().map(str), st.just("")),
            "subject": subject,
            "generated_by": generated_by,
            "config_hash": _HEX64.map(lambda digest: "sha256:" + digest),
            "seed": seed,
            "started_at": _RFC3339,
            "duration_ms": st.integers(-1, 10**9),
            "result": st.sampled_from(("pass", "fail", "skip")),
            "stage": st.sampled_from(("complete", "error", "")),
            "error": error,
            "data": st.one_of(
                st.just({}),
                st.dictionaries(st.text(max_size=8), json_values(max_leaves=4), max_size=3),
            ),
        }
    )


def envelope_texts() -> st.SearchStrategy[str]:
    """Envelope file contents: envelopes (damaged or not), other JSON, or not JSON."""
    return json_texts(envelope_documents())


# --------------------------------------------------------------------------- torture schedules

# The op grammar's words (lanes/torture/program.py), plus near misses.
_OP_WORDS: Final = st.sampled_from(
    (
        "cycle", "sleep", "wait-lock", "edit", "commit", "reuse", "record",
        "unit", "slow", "pass", "fail", "crash", "interrupt", "force",
        "h0", "h1", "clean", "d1", "-1", "0", "1", "20", "99999999", "\u0661", "",
    )
)  # fmt: skip
_OPS: Final = st.one_of(
    st.lists(_OP_WORDS, min_size=1, max_size=5).map(" ".join),
    hostile_text(max_size=20),
)


def torture_schedules() -> st.SearchStrategy[dict[str, Any]]:
    """``lanes torture --schedule`` documents, every field kept, wrongly typed or dropped."""
    client = shaped(
        {
            "host": st.sampled_from(("h-local", "h-remote", "h-mars")),
            "program": st.lists(_OPS, max_size=4),
        }
    )
    return shaped(
        {
            "format": st.sampled_from(("lanekit.torture.schedule", "lanekit.torture")),
            "version": st.sampled_from((1, 2, True, 1.0)),
            "seed": _INTS,
            "variant": st.sampled_from(("governor", "no-flock", "x")),
            "ttl": st.one_of(st.integers(-1, 10**7 + 1), _INTS),
            "invariant": hostile_text(max_size=20),
            "clients": st.lists(client, max_size=3),
            "choices": st.lists(st.one_of(st.integers(-1, 4), _INTS), max_size=8),
        }
    )


def torture_schedule_texts() -> st.SearchStrategy[str]:
    """Schedule file contents, damaged or not."""
    return json_texts(torture_schedules())
