"""The exit table of lanes/exitcodes.py: its docstring is its data, every row names a real
class, and the phase decides between "nothing ran" (2) and "could not complete" (3)."""

from __future__ import annotations

import builtins
import importlib
import pickle
import re

import pytest

import lanes.exitcodes
from lanes.errors import ConfigError, LanesError, StateError, UsageError
from lanes.exitcodes import EXIT_TABLE, ExitCode, Phase, Report, exit_rule, phase_of, work_began
from lanes.slow.run import PytestUsageError, SlowRunError


def _resolve(dotted: str) -> type:
    module, _, name = dotted.rpartition(".")
    found = getattr(importlib.import_module(module) if module else builtins, name)
    assert isinstance(found, type), dotted
    return found


def _documented_rows() -> list[tuple[str, str, int, str]]:
    """The rows of the module docstring's table (the verdict rows have no exception)."""
    lines = (lanes.exitcodes.__doc__ or "").splitlines()
    rules = [index for index, line in enumerate(lines) if line.startswith("====")]
    assert len(rules) == 3, "the docstring has one reST table: rule, header, rule, rows, rule"
    rows = []
    for line in lines[rules[1] + 1 : rules[2]]:
        if not line.startswith("``"):
            continue
        name, phase, code, report, _meaning = re.split(r"\s{2,}", line.strip())
        rows.append((name.strip("`"), phase, int(code), report))
    return rows


def test_the_docstring_table_is_the_data() -> None:
    data = [
        (
            rule.exception,
            "any" if rule.phase is None else rule.phase.value,
            rule.code,
            rule.report.value,
        )
        for rule in EXIT_TABLE
    ]
    assert _documented_rows() == data


def test_every_row_names_a_real_exception_and_hint_rows_are_lanes_errors() -> None:
    for rule in EXIT_TABLE:
        cls = _resolve(rule.exception)
        assert issubclass(cls, BaseException), rule
        if rule.report is Report.HINT:
            # The CLI prints the error's hint: only a LanesError is sure to have one.
            assert issubclass(cls, LanesError), rule


def test_the_contract_codes() -> None:
    # docs/architecture.md: 0 pass, 1 fail, 2 usage (nothing ran), 3 could not complete.
    assert [int(code) for code in ExitCode][:4] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("exc", "began", "code", "report"),
    [
        (ConfigError("bad key", hint="fix it"), False, ExitCode.USAGE, Report.HINT),
        (UsageError("bad flag", hint="fix it"), False, ExitCode.USAGE, Report.HINT),
        (StateError("baseline unwritable", hint="fix it"), True, ExitCode.CRASH, Report.HINT),
        (UsageError("bad input mid-run", hint="fix it"), True, ExitCode.CRASH, Report.HINT),
        (SlowRunError("pytest died", hint="read it"), True, ExitCode.CRASH, Report.HINT),
        (
            PytestUsageError("pytest exited 4", hint="fix the args"),
            True,
            ExitCode.USAGE,
            Report.HINT,
        ),
        (KeyError("missing"), False, ExitCode.CRASH, Report.TRACEBACK),
        (RuntimeError("planted"), False, ExitCode.CRASH, Report.TRACEBACK),
        (BrokenPipeError(), False, ExitCode.OK, Report.SILENT),
        (KeyboardInterrupt(), False, ExitCode.INTERRUPTED, Report.SILENT),
    ],
)
def test_each_failure_has_its_row(
    exc: Exception | KeyboardInterrupt, began: bool, code: ExitCode, report: Report
) -> None:
    if began:
        with pytest.raises(type(exc)), work_began():
            raise exc
    rule = exit_rule(exc)
    assert (rule.code, rule.report) == (code, report)


def test_work_began_marks_lanes_errors_only_inside_it() -> None:
    before = ConfigError("bad key", hint="fix it")
    assert phase_of(before) is Phase.NOTHING_RAN
    error = StateError("cannot write", hint="make it writable")
    with pytest.raises(StateError) as caught, work_began():
        raise error
    assert phase_of(caught.value) is Phase.WORK_BEGAN
    # The error keeps its type, message and hint: only its phase changed.
    assert (caught.value.message, caught.value.hint) == ("cannot write", "make it writable")
    # An error raised in a worker process comes back with its phase.
    assert pickle.loads(pickle.dumps(caught.value)).work_began  # noqa: S301  # our own bytes
