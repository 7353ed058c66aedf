"""The governor's pytest plugin (entry point ``lanes.governor``): cheap, and inert outside an agent.

Installing lanekit registers this module in every pytest run of every project
in that environment, lanekit's own suite included. So it imports nothing at
module level, defines one hook, and decides "inert" from ``os.environ`` alone:

- an agent's run: Claude Code (``CLAUDECODE=1`` in its shell tool's
  environment), Codex CLI (``CODEX_THREAD_ID``, ``CODEX_CI`` or any
  ``CODEX_SANDBOX*``), or anyone naming themselves with ``LANES_AGENT=<name>``;
- ``[tool.lanes.governor] enforce``: ``agents`` (default: a human's pytest
  is never stopped — seed 001's persona table), ``always``, or ``off``. The
  project's pyproject.toml is read only when it could say ``always`` (an
  agent's run reads the settings anyway);
- a pytest started *inside a running test* (``PYTEST_CURRENT_TEST`` is set:
  pytester, a test that spawns pytest) is part of that test, whose own
  session is the governed one;
- a mutation tool's run (mutmut sets ``MUTANT_UNDER_TEST``) runs the suite
  hundreds of times by design: the mutation lane around it is what the hook
  governs;
- the controller only: an xdist worker runs the items it is sent.

Only then is :mod:`lanes.governor.runner.session` imported (past pytest's
assertion rewriter, :class:`_PastRewriter`) and its plugin registered.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: nothing beyond os at import
if TYPE_CHECKING:
    from collections.abc import Mapping

    import pytest

__all__ = ["agent_of", "pytest_configure"]


def agent_of(environ: Mapping[str, str]) -> str | None:
    """The agent whose shell runs this process, or None for a human's run."""
    named = environ.get("LANES_AGENT", "").strip()
    if named:
        return named
    if environ.get("CLAUDECODE") == "1":
        return "claude"
    if environ.get("CODEX_THREAD_ID") or environ.get("CODEX_CI"):
        return "codex"
    if any(key.startswith("CODEX_SANDBOX") for key in environ):
        return "codex"
    return None


def _enforces_always(config: pytest.Config) -> bool:
    """Whether the project sets ``[tool.lanes.governor] enforce = "always"``:
    one file read, and a TOML parse only when the word is in it."""
    from lanes._pytest_project import pyproject_of

    pyproject = pyproject_of(config)
    if pyproject is None:
        return False
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if "always" not in text:
        return False
    import tomllib  # loaded already: pytest reads pyproject.toml with it

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False  # pytest reports a broken pyproject.toml itself
    tool = document.get("tool")
    lanes = tool.get("lanes") if isinstance(tool, dict) else None
    governor = lanes.get("governor") if isinstance(lanes, dict) else None
    return isinstance(governor, dict) and governor.get("enforce") == "always"


def pytest_configure(config: pytest.Config) -> None:
    environ = os.environ
    if (
        environ.get("PYTEST_CURRENT_TEST")
        or "MUTANT_UNDER_TEST" in environ
        or hasattr(config, "workerinput")
    ):
        return
    agent = agent_of(environ)
    if agent is None:
        if not _enforces_always(config):
            return
        agent = environ.get("USER") or "someone"
    hook = config.pluginmanager.rewrite_hook
    with _PastRewriter(hook):
        from lanes.governor.runner.session import RunGovernor

        governor = RunGovernor.start(config, agent)
    if governor is not None:
        config.pluginmanager.register(governor, "lanes-governor-run")


class _PastRewriter:
    """Import lanekit's governor modules without pytest's assertion rewriter.

    pytest marks every package of a distribution with a ``pytest11`` entry
    point for assertion rewriting, so each governor module an agent's run
    loads went through the rewriter's import hook (path matching with
    pathlib, its own bytecode cache): that doubled the decision's cost (about
    11 ms of 23 ms CPU per run, measured in-process), and the governor's
    asserts are not test assertions. The hook is taken off ``sys.meta_path``
    only while ``RunGovernor.start`` imports and runs — at configure time, in
    pytest's one thread, before any test module is imported — and put back
    where it was, whatever happens.
    """

    def __init__(self, hook: object) -> None:
        self.hook = hook
        self.index = -1

    def __enter__(self) -> None:
        import sys

        try:
            self.index = sys.meta_path.index(self.hook)  # type: ignore[arg-type]  # any object compares
        except ValueError:
            return  # no rewriter installed (--assert=plain): nothing to step past
        del sys.meta_path[self.index]

    def __exit__(self, *exc: object) -> None:
        import sys

        if self.index >= 0:
            sys.meta_path.insert(self.index, self.hook)  # type: ignore[arg-type]  # it came from there
