"""The full-sweep rule: the governor's one fail-closed decision.

A gated runner (``gate_runners``, pytest and unittest by default) run in full
— no path selector, the whole test root, or at least ``sweep_min_paths``
distinct files — is blocked unless ``LANES_FULL_SWEEP_OK=1`` and a
``LANES_OVERRIDE_REASON`` of at least 15 characters are given.

Fail-closed means more than "outside a try":

- **what the classifier cannot see through counts as a possible sweep**:
  a program name computed at run time is judged by what it
  could be (``Classification.possible``), and a command the classifier gave
  up on (``Classification.opaque``: too long, nested too deep, its own fault)
  is blocked when its text could run a gated runner — it names one, or holds
  an expansion that could build one — and allowed otherwise;
- **no fault upstream of the rule turns into "allow"**: when the hook's
  full path raises before deciding (an unreadable config cache, a payload it
  cannot parse, a path with a NUL byte), :func:`last_resort` applies this
  rule alone, with the default settings, to whatever command text it can
  still find in the raw payload — a payload past the hook's size cap
  included (the hard-cap policy: a payload too big to parse is still judged).

Everything else the governor does stays fail-open.
"""

from __future__ import annotations

from lanes.governor.settings import GovernorSettings

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from lanes.governor.classify.model import Classification, Invocation, Segment

__all__ = [
    "DEFAULT_GATE_RUNNERS",
    "DEFAULT_SWEEP_MIN_PATHS",
    "MIN_REASON",
    "SweepVerdict",
    "could_hide_sweep",
    "distinct_files",
    "env_flag",
    "full_sweeps",
    "judge",
    "last_resort",
]

MIN_REASON = 15
# The rule's settings when the project's own cannot be read: the defaults of
# [tool.lanes.governor], read from the settings table's rows.
DEFAULT_GATE_RUNNERS: tuple[str, ...] = GovernorSettings.gate_runners
DEFAULT_SWEEP_MIN_PATHS: int = GovernorSettings.sweep_min_paths
# The program names that run each gated runner, as they appear in text.
_RUNNER_SPELLINGS = {
    "pytest": ("pytest", "py.test"),
    "unittest": ("unittest", "manage.py", "django"),
}
# Text that can build a program name at run time.
_EXPANSIONS = ("$", "`")


def env_flag(
    name: str,
    classification: Classification,
    environ: Mapping[str, str],
    segment: Segment | None = None,
) -> str | None:
    """``name``'s value for ``segment``: its own inline prefix (``VAR=v cmd``),
    else an ``export VAR=v`` earlier in the command, else the hook's
    environment. Agents put overrides in the command string, and a prefix of
    one simple command applies to that command only, as in the shell.
    Without ``segment``, any segment's prefix counts."""
    for candidate in classification.segments:
        if candidate is segment:
            break
        if segment is None and name in candidate.env:
            return candidate.env[name]
        if candidate.argv[:1] == ("export",):
            for arg in candidate.argv[1:]:
                key, sep, value = arg.partition("=")
                if sep and key == name:
                    return value
    if segment is not None and name in segment.env:
        return segment.env[name]
    return environ.get(name)


def distinct_files(paths: tuple[str, ...] | list[str]) -> int:
    """How many files the path selectors name: node ids of one file
    (``a.py::t1 a.py::t2``) are one file, as ``lanes classify`` counts them."""
    return len({path.partition("::")[0] for path in paths})


def why_full(inv: Invocation, gate_runners: tuple[str, ...], sweep_min_paths: int) -> str | None:
    """Why ``inv`` is a full sweep, or None when it is not one."""
    if inv.runner not in gate_runners:
        return None
    if inv.scope == "full":
        # The classifier keeps no selectors for a full run: bare, the
        # project's whole test root (`pytest tests/`), or a selector that
        # selects everything (`-k ''`), are the same sweep.
        return "no path selector, or only the whole test root"
    files = distinct_files(inv.paths)
    if files >= sweep_min_paths:
        return (
            f"{files} path selectors (sweep_min_paths = {sweep_min_paths}; "
            "node ids of one file count once)"
        )
    return None


def could_hide_sweep(text: str, gate_runners: tuple[str, ...]) -> bool:
    """Whether shell text the classifier could not read might run a gated
    runner: it names one (quotes and backslashes cannot split the name), or
    it holds an expansion that could build one at run time."""
    plain = text.replace("\\", "").replace('"', "").replace("'", "").lower()
    for runner in gate_runners:
        for spelling in _RUNNER_SPELLINGS.get(runner, (runner,)):
            if spelling in plain:
                return True
    return any(mark in plain for mark in _EXPANSIONS)


def full_sweeps(
    classification: Classification,
    command: str,
    gate_runners: tuple[str, ...],
    sweep_min_paths: int,
) -> Iterator[tuple[Invocation | None, str]]:
    """Every ``(invocation, why)`` that makes this command a possible full
    sweep; the invocation is None for text the classifier could not read."""
    for inv in classification.invocations:
        why = why_full(inv, gate_runners, sweep_min_paths)
        if why is not None:
            yield inv, why
    for inv in classification.possible:
        why = why_full(inv, gate_runners, sweep_min_paths)
        if why is not None:
            program = inv.segment.argv[0] if inv.segment.argv else "?"
            yield (
                inv,
                (
                    f"its program `{program}` is computed at run time and could be "
                    f"{inv.runner}, which would run {why}"
                ),
            )
    if classification.opaque is not None and could_hide_sweep(command, gate_runners):
        yield (
            None,
            (
                f"the governor could not read it through: {classification.opaque}, and it "
                "could run a gated runner"
            ),
        )


class SweepVerdict:
    """The rule's answer: a block message, or the override reasons that allowed
    full sweeps (empty when the command is no sweep at all)."""

    __slots__ = ("message", "reasons")

    def __init__(self, message: str | None, reasons: list[str]) -> None:
        self.message = message
        self.reasons = reasons


# The governor's pytest plugin, as `-p no:NAME` names it (its pytest11 entry point).
RUNNER_PLUGIN = "lanes.governor"


def disables_runner(
    inv: Invocation, classification: Classification, environ: Mapping[str, str]
) -> str | None:
    """How a pytest run turns off the governor's pytest plugin — the gate
    that judges what pytest really collects — or None.

    ``-p no:lanes.governor`` (or ``PYTEST_ADDOPTS`` saying it),
    ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`` without ``-p lanes.governor``, and a
    ``PYTEST_CURRENT_TEST`` or ``MUTANT_UNDER_TEST`` set in the command (the
    plugin leaves a pytest started inside a running test, or by a mutation
    tool, to what started it)."""
    if inv.runner != "pytest":
        return None
    segment = inv.segment
    argv = list(segment.argv)
    addopts = env_flag("PYTEST_ADDOPTS", classification, environ, segment) or ""
    words = [*argv, *addopts.split()]
    named: list[str] = []
    for index, word in enumerate(words):
        if word == "-p" and index + 1 < len(words):
            named.append(words[index + 1])
        elif word.startswith("-p") and len(word) > 2:
            named.append(word[2:])
    for name in named:
        if name.startswith("no:" + RUNNER_PLUGIN):
            return f"`-p {name}` turns the governor's pytest plugin off"
    autoload = env_flag("PYTEST_DISABLE_PLUGIN_AUTOLOAD", classification, environ, segment)
    if autoload and autoload != "0" and RUNNER_PLUGIN not in named:
        return "PYTEST_DISABLE_PLUGIN_AUTOLOAD keeps the governor's pytest plugin from loading"
    for name in ("PYTEST_CURRENT_TEST", "MUTANT_UNDER_TEST"):
        if env_flag(name, classification, {}, segment) is not None:
            return f"{name} set by hand makes the governor's pytest plugin stand aside"
    return None


def judge(
    classification: Classification,
    command: str,
    gate_runners: tuple[str, ...],
    sweep_min_paths: int,
    environ: Mapping[str, str],
) -> SweepVerdict:
    """Apply the rule to one command: block, or allow (with the override
    reasons to audit when it is a sweep). A pytest run that disables the
    governor's pytest plugin is judged as a sweep: without the plugin, the
    shell string is all the gate has, and it cannot see what pytest collects."""
    reasons: list[str] = []
    sweeps = list(full_sweeps(classification, command, gate_runners, sweep_min_paths))
    swept = {id(inv) for inv, _ in sweeps}
    for run in classification.invocations:
        if id(run) in swept or run.runner not in gate_runners:
            continue
        disabled = disables_runner(run, classification, environ)
        if disabled is not None:
            sweeps.append((run, f"{disabled}, so only the shell string can be judged"))
    for inv, why in sweeps:
        segment = inv.segment if inv is not None else None
        flag = env_flag("LANES_FULL_SWEEP_OK", classification, environ, segment)
        reason = env_flag("LANES_OVERRIDE_REASON", classification, environ, segment)
        if flag != "1" or reason is None or len(reason.strip()) < MIN_REASON:
            text = segment.text if segment is not None else command
            return SweepVerdict(message(text, why, reason, flag), [])
        reasons.append(reason.strip())
    return SweepVerdict(None, reasons)


def message(text: str, why: str, reason: str | None, flag: str | None) -> str:
    """The block reason the agent reads."""
    shown = " ".join(text.split())
    if len(shown) > 160:
        shown = shown[:157] + "..."
    lines = [
        f"full sweep blocked: `{shown}` runs the whole suite ({why}).",
        (
            "Mid-task, run the tests for what you changed (e.g. `pytest tests/unit/test_x.py`);"
            " the full suite runs once before push and in CI."
        ),
    ]
    if flag == "1" and reason is not None and len(reason.strip()) < MIN_REASON:
        lines.append(
            f"LANES_OVERRIDE_REASON is {len(reason.strip())} characters; at least "
            f"{MIN_REASON} are required."
        )
    lines.append(
        "If a full run is really needed now, prefix it: LANES_FULL_SWEEP_OK=1 "
        'LANES_OVERRIDE_REASON="<why, 15+ characters>" (audited), and run it under `nice -n 19`.'
    )
    return "\n".join(lines)


def last_resort(raw: bytes, environ: Mapping[str, str], fault: str) -> str | None:
    """The sweep rule alone, for a payload the hook's full path could not
    decide (``fault`` says why): the block message, or None to allow.

    Only a PreToolUse can be blocked; the command text is taken from the
    parsed payload when it parses, else from the raw bytes (a payload past
    the size cap is never parsed: the hard-cap policy). The project's
    settings are not read — they may be what failed — so the defaults apply.
    """
    event, command = _event_and_command(raw)
    if event != "PreToolUse":
        return None
    from lanes.governor.classify.classifier import classify

    classification = classify(command)
    verdict = judge(classification, command, DEFAULT_GATE_RUNNERS, DEFAULT_SWEEP_MIN_PATHS, environ)
    if verdict.message is None:
        return None
    return (
        f"{verdict.message}\n(The governor could not read this call normally — {fault} — "
        "so it applied the default full-sweep rule; other checks were skipped.)"
    )


def _event_and_command(raw: bytes) -> tuple[str | None, str]:
    """(hook_event_name, command text) from a payload that may not parse.

    An unparseable or oversized payload yields the event and command found by
    a byte scan; when the command cannot be isolated, the whole payload text
    stands for it (it is then judged as unreadable text).
    """
    from lanes.governor.payload import MAX_PAYLOAD

    if len(raw) <= MAX_PAYLOAD:
        import json

        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            from lanes.governor.payload import SHELL_TOOLS

            if data.get("tool_name") not in SHELL_TOOLS:
                return None, ""  # not a shell call: nothing runs a test
            event = data.get("hook_event_name")
            tool_input = data.get("tool_input")
            command = tool_input.get("command") if isinstance(tool_input, dict) else None
            if isinstance(command, list):
                command = " ".join(str(part) for part in command)
            return (
                event if isinstance(event, str) else None,
                command if isinstance(command, str) else "",
            )
    from lanes.governor.screen.prescreen import string_values

    events = string_values(raw, b'"hook_event_name"') or []
    event = events[0].decode("utf-8", "replace") if len(events) == 1 else None
    if event is None and b"PreToolUse" in raw:
        event = "PreToolUse"  # cannot tell which key holds it: assume the blocking event
    commands = string_values(raw, b'"command"')
    if commands is not None and len(commands) == 1:
        text = _json_string(commands[0])
    else:
        text = raw.decode("utf-8", "replace")
    return event, text


def _json_string(escaped: bytes) -> str:
    """A JSON string's value from its escaped bytes (``\u0070ytest`` is
    ``pytest``); the bytes as text when they do not decode."""
    import json

    try:
        value = json.loads(b'"' + escaped + b'"')
    except ValueError:
        return escaped.decode("utf-8", "replace")
    return value if isinstance(value, str) else ""
