"""The error hierarchy: one root, stdlib-typed subclasses, a mandatory hint."""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

import pytest

from lanes.config import parse_config
from lanes.errors import ConfigError, EnvelopeError, LanesError, StateError, UsageError

if TYPE_CHECKING:
    from pathlib import Path

ALL = (ConfigError, UsageError, EnvelopeError, StateError)


@pytest.mark.parametrize(
    ("cls", "stdlib"),
    [
        (ConfigError, ValueError),
        (UsageError, ValueError),
        (EnvelopeError, ValueError),
        (StateError, OSError),
    ],
)
def test_each_error_is_also_its_stdlib_type(cls: type[LanesError], stdlib: type[Exception]) -> None:
    error = cls("the thing", hint="do this")
    assert isinstance(error, LanesError)
    assert isinstance(error, stdlib)
    with pytest.raises(stdlib):
        raise error


@pytest.mark.parametrize("cls", [LanesError, *ALL])
def test_message_and_hint(cls: type[LanesError]) -> None:
    error = cls("the thing 'x'", hint="do this")
    assert (str(error), error.message, error.hint) == ("the thing 'x'", "the thing 'x'", "do this")


@pytest.mark.parametrize("hint", ["", "   ", "\n\t"])
@pytest.mark.parametrize("cls", [LanesError, *ALL])
def test_an_error_without_a_hint_is_refused(cls: type[LanesError], hint: str) -> None:
    with pytest.raises(ValueError, match="without a hint"):
        cls("message", hint=hint)


@pytest.mark.parametrize("cls", [LanesError, *ALL])
def test_errors_survive_pickling(cls: type[LanesError]) -> None:
    # Regression: the keyword-only hint made every LanesError unpicklable
    # ("missing 1 required keyword-only argument: 'hint'"), so an error
    # raised in a worker process (multiprocessing, concurrent.futures)
    # broke the whole pool (BrokenProcessPool) instead of reaching the parent.
    error = cls("the thing", hint="do this")
    clone = pickle.loads(pickle.dumps(error))  # noqa: S301  # our own bytes, round-tripped
    assert type(clone) is cls
    assert (clone.message, clone.hint, str(clone)) == ("the thing", "do this", "the thing")


@pytest.mark.integration
def test_error_from_a_worker_process_keeps_its_type(tmp_path: Path) -> None:
    # spawn, not fork: forking a multi-threaded process (an xdist worker) is
    # deprecated from Python 3.12 and warnings are errors in this suite. The
    # worker runs lanekit's own strict loader: a spawned child imports the
    # callable by module name, and a test module is not importable there under
    # --import-mode=importlib (the suite's mode).
    bad = {"suites": {"unit": {"max_agee": 1}}}
    with pytest.raises(ConfigError) as in_process:
        parse_config(bad, root=tmp_path)
    context = multiprocessing.get_context("spawn")
    with (
        ProcessPoolExecutor(max_workers=1, mp_context=context) as pool,
        pytest.raises(ConfigError) as raised,
    ):
        pool.submit(parse_config, bad, root=tmp_path).result(timeout=60)
    assert (raised.value.message, raised.value.hint) == (
        in_process.value.message,
        in_process.value.hint,
    )
