"""What is the project's own code: a file under the root, outside any installed environment.

One predicate for the recorder (:mod:`lanes.affected.recorder`), the child
recorder (:mod:`lanes.affected.child`) and the static graph. Stdlib only, no
``lanes`` import: the child recorder's bootstrap copies this module into the
processes a recorded test starts (:func:`lanes.affected.child.write_bootstrap`).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # `typing` is not imported in the child: its import is not free
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["PACKAGE_DIRS", "ProjectCode", "in_environment"]

# Where installers put third-party code (pip; Debian's python3-* packages).
PACKAGE_DIRS = frozenset({"site-packages", "dist-packages"})


def in_environment(parts: list[str], is_venv: Callable[[str], bool]) -> bool:
    """A file (``parts``: its path below the project root, split) inside an
    installed environment: below a ``site-packages``/``dist-packages``
    directory, or below a virtualenv's (``is_venv``: the directory, relative
    to the root with a trailing "/", holds ``pyvenv.cfg``). Not the project's
    code, though under its root: ``.nox/``, ``.tox/``, ``.venv/``, ``venv/``."""
    directory = ""
    for part in parts[:-1]:
        if part in PACKAGE_DIRS:
            return True
        directory += part + "/"
        if is_venv(directory):
            return True
    return False


class ProjectCode:
    """Whether a file (an absolute path, like ``co_filename``) is the project's
    own code: under ``root`` and not inside an installed environment.

    A virtualenv inside the project (``.nox/tests``) holds every dependency's
    code under the root: counted as the project's, it bloated the map and, on
    3.12+, armed ``sys.monitoring`` on every site-packages function a test
    called. Excluded: this interpreter's prefixes and site-packages when they
    lie under the root, and :func:`in_environment`. The verdict is cached per
    file, so the per-event cost is one dict lookup.
    """

    def __init__(self, root: str) -> None:
        import site  # already imported at start-up (unless -S): free

        self.root = root.rstrip(os.sep) + os.sep
        places = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
        if hasattr(site, "getsitepackages"):  # a virtualenv's old site.py lacks it
            places.update(site.getsitepackages())
        places.add(site.getusersitepackages() or "")
        self.environments = tuple(
            directory
            for place in places
            if place
            and (directory := os.path.abspath(place).rstrip(os.sep) + os.sep).startswith(self.root)
            and directory != self.root
        )
        self.verdicts: dict[str, bool] = {}
        self.venvs: dict[str, bool] = {}

    def __call__(self, filename: str) -> bool:
        verdict = self.verdicts.get(filename)
        if verdict is None:
            verdict = self.verdicts[filename] = (
                filename.startswith(self.root)
                and not filename.startswith(self.environments)
                and not in_environment(filename[len(self.root) :].split(os.sep), self.is_venv)
            )
        return verdict

    def is_venv(self, directory: str) -> bool:
        known = self.venvs.get(directory)
        if known is None:
            path = os.path.join(self.root, directory, "pyvenv.cfg")
            known = self.venvs[directory] = os.path.isfile(path)
        return known
