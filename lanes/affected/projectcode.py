"""What is the project's own code: a file under the root, outside any installed
environment, or an exact copy of one elsewhere.

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
# A copy larger than this is not compared: no source file of a package is.
_MAX_COPY_BYTES = 4 * 1024 * 1024


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
        self.paths: dict[str, str | None] = {}
        self.tops: frozenset[str] | None = None

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

    def code_path(self, filename: str) -> str | None:
        """The path below the root of the code in ``filename`` (a ``co_filename``):
        the project's own file, or an exact copy of one (None: neither).

        A test that copies the package into a temporary directory, or installs
        it from the tree into a virtualenv, and runs that copy runs the
        project's code: a change to the file changes the copy it makes next
        time. Counted as third-party code, its test was vouched for while the
        recording saw none of what it ran. Same bytes, same code: a copy that
        differs (built from another commit, a generated file) stays third-party.
        """
        try:
            return self.paths[filename]
        except KeyError:
            pass
        path = filename[len(self.root) :] if self(filename) else self.copied(filename)
        self.paths[filename] = path
        return path

    def copied(self, filename: str) -> str | None:
        """The project's file that ``filename`` is a byte-for-byte copy of, if any."""
        if self.tops is None:
            self.tops = self.top_level()
        parts = filename.split(os.sep)
        # Innermost first (the file itself: a single-module project's copy):
        # .../copy/pkg/sub/pkg/mod.py is pkg/mod.py if that exists.
        for index in range(len(parts) - 1, -1, -1):
            if parts[index] not in self.tops:
                continue
            tail = os.sep.join(parts[index:])
            for prefix in ("", "src" + os.sep):
                if self.same_bytes(filename, self.root + prefix + tail):
                    return prefix + tail
        return None

    def top_level(self) -> frozenset[str]:
        """The names a copy of the project's code starts with: the packages and
        modules at the root and in ``src/``."""
        names: set[str] = set()
        for directory in (self.root, self.root + "src" + os.sep):
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                try:
                    module = entry.name.endswith(".py") and entry.is_file()
                    package = entry.is_dir() and os.path.isfile(
                        os.path.join(entry.path, "__init__.py")
                    )
                except OSError:
                    continue
                if module or package:
                    names.add(entry.name)
        return frozenset(names)

    @staticmethod
    def same_bytes(copy: str, original: str) -> bool:
        try:
            size = os.stat(original).st_size
            if size > _MAX_COPY_BYTES or os.stat(copy).st_size != size:
                return False
            with open(copy, "rb") as first, open(original, "rb") as second:
                return first.read() == second.read()
        except (OSError, ValueError):
            return False
