"""Hostile documents: the JSON and text our parsers read from outside.

The hazard vocabulary for JSON documents and text (shell commands live in
:mod:`lanes.strategies.shell`): truncated and wrongly-typed JSON, hook payloads,
ledger and lock files someone else wrote, lane envelopes, torture schedules —
plus the text hazards under all of them
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
from typing import TYPE_CHECKING, Any, Final

from hypothesis import strategies as st

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
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
    "shaped",
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
