"""Properties of ``classify``: it never raises, it is deterministic, wrappers
and ``cd`` never change a scope, and data never becomes a test run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hypothesis import example, given
from hypothesis import strategies as st

from lanes.governor.classify.classifier import classify
from lanes.strategies.shell import (
    ENV_PREFIXES,
    SCOPE_PRESERVING_PREFIXES,
    WRAPPERS,
    as_data,
    compound_commands,
    runner_commands,
    shell_commands,
    simple_commands,
)

if TYPE_CHECKING:
    from lanes.governor.classify.model import Classification


def _snapshot(result: Classification) -> object:
    return (
        result.to_dict(),
        [(inv.paths, inv.name_filters, inv.markers) for inv in result.invocations],
        [(seg.argv, seg.env, seg.text) for seg in result.segments],
    )


def _assert_consistent(result: Classification) -> None:
    assert result.scope in ("none", "filtered", "full")
    assert (result.scope == "none") == (not result.invocations)
    for invocation in result.invocations:
        assert any(invocation.segment is segment for segment in result.segments)
        selects = bool(invocation.paths or invocation.name_filters)
        assert selects == (invocation.scope == "filtered") == bool(invocation.selectors)


@given(shell_commands())
@example("\x00")
@example("bash -c " * 200 + "pytest")
@example("$(" * 500)
def test_never_raises_and_stays_consistent(command: str) -> None:
    _assert_consistent(classify(command))


@given(st.text())
def test_never_raises_on_any_text(command: str) -> None:
    _assert_consistent(classify(command))


@given(shell_commands())
def test_is_deterministic(command: str) -> None:
    assert _snapshot(classify(command)) == _snapshot(classify(command))


@given(simple_commands())
def test_known_commands_get_their_scope(case: tuple[str, str]) -> None:
    command, scope = case
    assert classify(command).scope == scope


@given(simple_commands(), st.sampled_from(SCOPE_PRESERVING_PREFIXES), st.sampled_from(ENV_PREFIXES))
def test_prefixes_never_change_the_scope(case: tuple[str, str], prefix: str, env: str) -> None:
    command, scope = case
    # `A=1 timeout 60 pytest`: inline env goes before a wrapper, after `cd x &&`.
    wrapped = prefix + env + command if prefix.startswith("cd ") else env + prefix + command
    assert classify(env + command).scope == scope
    assert classify(wrapped).scope == scope


@given(runner_commands(), st.lists(st.sampled_from(WRAPPERS), max_size=4))
def test_wrapper_chains_never_change_the_scope(case: tuple[str, str], chain: list[str]) -> None:
    command, scope = case
    assert classify("".join(chain) + command).scope == scope


@given(runner_commands())
def test_an_unrecognised_flag_never_demotes(case: tuple[str, str]) -> None:
    command, scope = case
    if "--" not in command.split():  # after `--` a flag belongs to another program
        assert classify(command + " --lanes-unknown-flag").scope == scope


@given(st.data(), st.one_of(runner_commands().map(lambda case: case[0]), shell_commands()))
def test_text_inside_quotes_or_heredocs_never_runs(data: st.DataObject, text: str) -> None:
    command = data.draw(as_data(text))
    assert classify(command).invocations == ()


@given(compound_commands(), runner_commands(), st.sampled_from(("\n", "; ", " && ", " || ")))
def test_no_construct_swallows_the_command_after_it(
    before: str, case: tuple[str, str], operator: str
) -> None:
    command, scope = case
    result = classify(before + operator + command)
    _assert_consistent(result)
    assert result.invocations, result
    last = result.invocations[-1]
    (expected,) = classify(command).invocations
    assert (last.runner, last.scope, last.selectors) == (expected.runner, scope, expected.selectors)
