"""The slow-test ratchet as a pytest plugin (entry point ``lanes.slow``).

Inert unless enabled: installing lanekit registers this module through the
``pytest11`` entry point, and it must change no one's pytest run by surprise —
nor slow it down. So this module imports nothing beyond what pytest already
has loaded and defines only ``pytest_addoption`` (the options must exist for
``--slow-ratchet`` to parse) and ``pytest_configure``, which returns at once
unless ``--slow-ratchet``/``--slow-json`` is given or ``[tool.lanes.slow]
enabled = true``. Only then is :mod:`lanes.slow.session` imported and its two
working plugins registered: the :class:`~lanes.slow.stopwatch.Stopwatch`
wherever tests run, the :class:`~lanes.slow.session.Ratchet` on the
controller (never on an xdist worker).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from lanes._pytest_project import pyproject_of

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pytest

__all__ = ["pytest_addoption", "pytest_configure"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lanes-slow", "slow-test ratchet (lanekit)")
    group.addoption(
        "--slow-ratchet",
        action="store_true",
        default=False,
        help="judge test durations against [tool.lanes.slow] tier budgets and the pin list; "
        "fail the run past fail_factor × budget (also: [tool.lanes.slow] enabled = true)",
    )
    group.addoption(
        "--slow-json",
        metavar="PATH",
        default=None,
        help="write the ratchet's result (the slow envelope's data) as JSON to PATH; "
        "implies --slow-ratchet",
    )
    group.addoption(
        "--slow-budget",
        action="append",
        metavar="[TIER=]SECONDS",
        default=None,
        help="override a tier's budget (TIER=SECONDS, repeatable) or every tier's (SECONDS) "
        "for this run, without editing pyproject.toml",
    )
    group.addoption(
        "--slow-fail-factor",
        metavar="FACTOR",
        default=None,
        help="override [tool.lanes.slow] fail_factor for this run",
    )
    group.addoption(
        "--slow-confirm",
        metavar="N",
        default=None,
        help="re-time each offender N times after the suite before failing it "
        "(default: [tool.lanes.slow] confirm, 2; 0 = fail on one sample)",
    )
    group.addoption(
        "--slow-confirm-once-past",
        metavar="FACTOR",
        type=float,
        # Both samples, not the suite's alone: a lone offender's one re-timing
        # pays its child's warm-up (lanes/slow/confirmation.py).
        default=1.5,
        help="re-time an offender once, not N times, when the suite run and its first "
        "re-timing both measured it at FACTOR x its limit or more (default: 1.5; 0 = always "
        "N times)",
    )
    group.addoption(
        "--slow-confirm-spawn",
        action="store_true",
        default=False,
        help="re-time offenders in a freshly started pytest, never in a fork of the finished "
        "run (the default where it is safe: no start-up, no collection)",
    )
    group.addoption(
        "--slow-retime",
        metavar="PLAN",
        default=None,
        help="(internal) a confirmation run of the offenders PLAN names: measure only, no "
        "verdict and no last-run record",
    )
    group.addoption(
        "--slow-collect-to",
        metavar="PATH",
        default=None,
        help="write the collected node ids to PATH, one a line (used by `lanes slow check`)",
    )


def _mentions_enabled(pyproject: Path | None) -> bool:
    """Whether ``[tool.lanes.slow]`` sets ``enabled`` at all (its value is validated later).

    A cheap look so that projects which never enabled the ratchet do not pay
    for — or get broken by — a full parse of their ``[tool.lanes]``.
    """
    if pyproject is None:
        return False
    import tomllib  # noqa: PLC0415  # usually loaded already: pytest reads pyproject.toml with it

    try:
        text = pyproject.read_text(encoding="utf-8")
        # Most projects never name lanes at all: no TOML parse for them.
        document = tomllib.loads(text) if "lanes" in text else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # pytest reports a broken pyproject.toml itself
    tool = document.get("tool")
    lanes = tool.get("lanes") if isinstance(tool, dict) else None
    slow = lanes.get("slow") if isinstance(lanes, dict) else None
    return isinstance(slow, dict) and "enabled" in slow


def pytest_configure(config: pytest.Config) -> None:
    # Registered even when the ratchet is off, so that --strict-markers suites
    # can carry the marker whether or not this run judges durations.
    config.addinivalue_line(
        "markers",
        "slow_budget(seconds): this test's own slow-ratchet budget, instead of its tier's",
    )
    is_worker = hasattr(config, "workerinput")
    collect_to = config.getoption("slow_collect_to")
    if collect_to and not is_worker:
        config.pluginmanager.register(_NodeIdWriter(Path(collect_to)), "lanes-slow-collect")
    explicit = bool(
        config.getoption("slow_ratchet")
        or config.getoption("slow_json")
        or config.getoption("slow_retime")
    )
    pyproject = pyproject_of(config)
    if config.getoption("collectonly") or not (explicit or _mentions_enabled(pyproject)):
        return
    with _plain_imports(config):
        from lanes.slow.session import start  # noqa: PLC0415  # only an enabled ratchet pays for it

    start(config, pyproject, explicit=explicit, is_worker=is_worker)


@contextmanager
def _plain_imports(config: pytest.Config) -> Iterator[None]:
    """Import the enabled ratchet's modules with the interpreter's own loader.

    pytest marks every module of a ``pytest11`` distribution (all of
    ``lanes``) for assertion rewriting and loads each through its own hook,
    which reads the cached byte code with ``marshal.load`` on a file object:
    some 0.2 million instructions per KB, ~41 million for the ratchet's
    modules — a quarter of what the enabled ratchet costs a 2,000-test suite
    (bench ``slow-plugin-overhead``). Rewriting buys nothing here: these
    modules are no tests and define no fixtures, so their ``assert`` messages
    never reach a user. The hook steps aside only while this one import runs
    (in ``pytest_configure``, before any test module is collected) and is put
    back where it was; modules imported later (confirmation runs, overrides)
    go through it as usual.
    """
    hook = getattr(config.pluginmanager, "rewrite_hook", None)
    try:
        index = sys.meta_path.index(hook)  # type: ignore[arg-type]
    except ValueError:  # --assert=plain, or a pytest that keeps it elsewhere
        yield
        return
    del sys.meta_path[index]
    try:
        yield
    finally:
        sys.meta_path.insert(index, hook)  # type: ignore[arg-type]


class _NodeIdWriter:
    def __init__(self, path: Path) -> None:
        self.path = path

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from lanes._atomic import write_atomic  # noqa: PLC0415  # see the module docstring

        write_atomic(self.path, "".join(f"{item.nodeid}\n" for item in session.items))
