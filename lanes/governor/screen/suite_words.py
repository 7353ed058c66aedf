"""Keep the pre-screen's cache of configured suite words fresh.

The pre-screen (:mod:`lanes.governor.screen.prescreen`) drops a payload only when its
command names no runner and no word of a configured non-runner suite (``make
verify``). It learns those words from this cache: one row per
``pyproject.toml`` with the file's stamp (mtime and size) and the words of its
``runner = "command"`` suites. A missing or stale row makes the screen pass the
payload on, and the full path calls :func:`refresh`, so an edited config is
picked up by the very next hook call.
"""

from __future__ import annotations

import os

from lanes._atomic import flocked, write_atomic
from lanes.governor.classify.runners.names import COMMAND_RUNNER
from lanes.governor.screen.prescreen import (
    EVERYTHING,
    pyprojects_above,
    read_suite_words,
    screen_text,
    suite_words_path,
)
from lanes.governor.state.debug import debug_log

__all__ = ["refresh", "suite_words"]


def suite_words(pyproject: str) -> list[bytes]:
    """The screen words of ``pyproject``'s non-runner suites.

    Every word of the suite's command: the gate matches such a suite by its
    exact argv after wrapper stripping, so each argv word appears in any
    command that matches, and finding *any* of them is enough to pass it on.
    ``[*]`` when the config cannot be read (then nothing may be dropped).
    """
    # Imported here, on a cache miss only: pathlib and shlex (which imports re)
    # would cost the full path half an interpreter start on every test command.
    import shlex
    from pathlib import Path

    from lanes.config import load_config  # off the screen's path
    from lanes.errors import LanesError

    try:
        config = load_config(Path(pyproject))
    except LanesError as exc:
        debug_log("suite-words", pyproject=pyproject, error=exc.message)
        return [EVERYTHING]
    words: set[bytes] = set()
    for suite in config.suites.values():
        if suite.runner != COMMAND_RUNNER:
            continue  # runner suites are test runs: the runner words cover them
        try:
            parts = shlex.split(suite.command)
        except ValueError:
            return [EVERYTHING]
        for part in parts:
            words.update(screen_text(part.encode()).split())
    # The program of each test_commands form (`just ci`): such a command is a
    # full test run to the economy, so it must reach the full path.
    for form in config.governor.test_commands:
        words.update(screen_text(form.split()[0].encode()).split())
    return sorted(words)


def refresh(cwd: str | None) -> None:
    """Rewrite the rows of every ``pyproject.toml`` above ``cwd`` that changed."""
    if cwd is None:
        return
    configs = pyprojects_above(cwd)
    rows = read_suite_words()
    if not configs or rows is None:
        return
    stale = [(path, stamp) for path, stamp in configs if rows.get(path, ("",))[0] != stamp]
    if not stale:
        return
    fresh = {path: (stamp, suite_words(path)) for path, stamp in stale}
    target = suite_words_path()
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with flocked(target + ".lock"):
        # Re-read under the lock: another hook may have written other rows.
        current = read_suite_words() or {}
        current.update(fresh)
        lines = [
            f"{path}\t{stamp}\t".encode() + b" ".join(words)
            for path, (stamp, words) in sorted(current.items())
            if "\t" not in path and "\n" not in path
        ]
        write_atomic(target, b"\n".join(lines) + b"\n")
    debug_log("suite-words", refreshed=[path for path, _stamp in stale])
