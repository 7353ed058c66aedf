"""The pyproject.toml a pytest run belongs to, for lanekit's pytest plugins.

The plugins (the slow ratchet, the fuzz corpus) are loaded by every pytest run
in an environment with lanekit installed, used or not: they must not import
:mod:`lanes.config` to find out whether they have anything to do. This is the
same upward search as :func:`lanes.config.find_pyproject`, starting from what
pytest already decided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

__all__ = ["pyproject_of"]


# Not named pytest_*: the plugins import it, and pluggy would take it for a hook.
def pyproject_of(config: pytest.Config) -> Path | None:
    """pytest's own configuration file when it is a pyproject.toml, else the
    nearest pyproject.toml at or above the rootdir; None when there is none."""
    inipath = config.inipath
    if inipath is not None and inipath.name == "pyproject.toml":
        return inipath
    for directory in (config.rootpath, *config.rootpath.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None
