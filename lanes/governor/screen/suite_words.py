"""Keep the pre-screen's cache of configured suite words fresh.

The pre-screen (:mod:`lanes.governor.screen.prescreen`) drops a payload only when its
command names no runner and no word of a configured non-runner suite (``make
verify``). It learns those words from this cache: one row per
``pyproject.toml`` with the file's stamp (mtime and size) and the words of its
``runner = "command"`` suites. A missing or stale row makes the screen pass the
payload on, and the full path calls
:func:`lanes.governor.config_cache.refresh_words`, so an edited config is
picked up by the very next hook call. The rows are derived, with the gate's
config rows, from one strict load per changed file under one lock
(:meth:`lanes.governor.config_cache.ConfigCache.update`); this file is their
os-only view.
"""

from __future__ import annotations

from lanes.governor.classify.runners.names import COMMAND_RUNNER
from lanes.governor.screen.prescreen import EVERYTHING, screen_text, suite_words_path

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from lanes.config import Config

__all__ = ["words_of", "write_rows"]


def words_of(config: Config) -> list[bytes]:
    """The screen words of ``config``'s non-runner suites.

    Every word of the suite's command: the gate matches such a suite by its
    exact argv after wrapper stripping, so each argv word appears in any
    command that matches, and finding *any* of them is enough to pass it on.
    """
    # Imported here, on a cache miss only: shlex imports re.
    import shlex

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


def write_rows(rows: dict[str, tuple[str, list[bytes]]]) -> None:
    """Rewrite the word cache (the caller holds the config cache's lock)."""
    from lanes._atomic import write_atomic  # a stale row only

    lines = [
        f"{path}\t{stamp}\t".encode() + b" ".join(words)
        for path, (stamp, words) in sorted(rows.items())
        if "\t" not in path and "\n" not in path
    ]
    write_atomic(suite_words_path(), b"\n".join(lines) + b"\n")
