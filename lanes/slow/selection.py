"""Was this a run of the whole suite? The reasons a ratchet run is *partial*.

A run over a subset (``lanes slow run -- tests/test_x.py``, a run started in a
subdirectory, ``-k``, ``-m``, ``--deselect``, ``--lf``, ``-x`` stopping early) judges only part of the suite: its "pass"
says nothing about the rest, so the envelope records the pytest arguments and
is marked partial, and the terminal and the report say so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

__all__ = ["partial_reasons"]


def _selected_paths(config: pytest.Config) -> list[str]:
    """Positional paths the user gave that narrow the default selection, if any.

    Started without arguments in a directory other than the root, pytest
    collects that directory alone (its ``INVOCATION_DIR`` fallback): judged
    like the same directory given as an argument, so ``cd tests/unit && pytest``
    is a subset where ``tests`` is the configured testpaths.
    """
    if config.args_source is config.ArgsSource.TESTPATHS:
        return []
    root = config.rootpath
    testpaths = config.getini("testpaths") or []
    defaults = {(root / p).resolve() for p in testpaths}
    narrowed: list[str] = []
    for arg in config.args:
        resolved = (config.invocation_params.dir / arg.split("::", 1)[0]).resolve()
        if "::" in arg:
            narrowed.append(arg)
        elif defaults:
            # With testpaths, an argument narrower than all of them is a subset.
            if not any(d == resolved or d.is_relative_to(resolved) for d in defaults):
                narrowed.append(arg)
        elif not resolved.is_dir():
            # Without testpaths, `pytest tests` is the usual full run; a file is a subset.
            narrowed.append(arg)
    return narrowed


def partial_reasons(config: pytest.Config, session: pytest.Session, deselected: int) -> list[str]:
    """Why this run did not judge the whole suite; [] for a full run."""
    reasons: list[str] = []
    paths = _selected_paths(config)
    if paths:
        reasons.append("selected paths: " + " ".join(paths))
    keyword = config.getoption("keyword", "")
    if keyword:
        reasons.append(f"-k {keyword}")
    markexpr = config.getoption("markexpr", "")
    if markexpr:
        reasons.append(f"-m {markexpr}")
    if config.getoption("lf", False):
        reasons.append("--last-failed")
    # Named by the option, not only counted: under xdist the workers collect
    # and deselect, and the controller judging the run never hears of it.
    deselect = config.getoption("deselect", None) or []
    if deselect:
        reasons.append("--deselect " + " ".join(deselect))
    elif deselected and not (keyword or markexpr):
        reasons.append(f"{deselected} deselected")
    if session.shouldstop or session.shouldfail:
        reasons.append(f"stopped early: {session.shouldstop or session.shouldfail}")
    return reasons
