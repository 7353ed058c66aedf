"""The governor's one strict loader: a ``pyproject.toml`` through :mod:`lanes.config`.

Imported on a cache miss only (:mod:`lanes.governor.config_cache`): the strict
loader costs tomllib, difflib and every section's rows, about two interpreter
starts, which the hook pays only when a config changed. A config that does
not load fails open to the defaults (the full-sweep gate still applies, with
default settings): it is not cached as valid, and its screen words are
``[*]`` (the screen may drop nothing).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lanes.config import load_config, parse_config
from lanes.errors import LanesError
from lanes.governor.screen.prescreen import EVERYTHING
from lanes.governor.screen.suite_words import words_of
from lanes.governor.state.debug import debug_log

if TYPE_CHECKING:
    from lanes.config import Config

__all__ = ["Loaded", "load"]


class Loaded:
    """One strict load: the config, whether the loader accepted it, its screen words."""

    __slots__ = ("config", "valid", "words")

    def __init__(self, config: Config, *, valid: bool, words: list[bytes]) -> None:
        self.config = config
        self.valid = valid
        self.words = words


def load(path: str | None, cwd: str) -> Loaded:
    """``path``'s config (None: there is no pyproject.toml, the defaults rooted at ``cwd``)."""
    try:
        config = load_config(Path(path)) if path is not None else load_config(cwd=Path(cwd))
    except LanesError as exc:
        debug_log("config-error", error=exc.message)
        return Loaded(parse_config({}, root=Path(cwd)), valid=False, words=[EVERYTHING])
    return Loaded(config, valid=True, words=words_of(config))
