"""Where the scaffolded noxfile installs lanekit from.

lanekit is not on a package index, so ``pip install lanekit`` in a user's nox
session would fail. ``lanes init`` therefore writes the source the running
lanekit came from — the directory it was installed from, the git URL and
commit, or failing both its version — unless ``--lanekit-requirement`` says
otherwise (a path, a URL, a version or a whole requirement).

The noxfile needs the source apart from the extras (``lanekit[lanes] @ ...``
for the lanes, ``lanekit[mutation] @ ...`` for the mutation lane), so a
requirement here is the part after the name: ``" @ file:///..."`` or
``"==0.1.0"``.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import tomllib
from pathlib import Path
from typing import Final

from lanes import __version__
from lanes.errors import UsageError

__all__ = ["DISTRIBUTION", "running_source", "source_from_option"]

DISTRIBUTION: Final = "lanekit"
_VERSION_RE: Final = re.compile(
    r"^(==|>=|<=|~=|!=|>|<)?\s*\d+(\.\d+)*([a-z0-9.+-]*)$", re.IGNORECASE
)
_URL_SCHEMES: Final = ("git+", "https://", "http://", "file://")


def _direct_url() -> dict[str, object] | None:
    """PEP 610 ``direct_url.json`` of the installed lanekit that is running, if any."""
    here = Path(__file__).resolve()
    for dist in importlib.metadata.distributions(name=DISTRIBUTION):
        text = dist.read_text("direct_url.json")
        if not text:
            continue
        files = dist.files or []
        # A distribution found on sys.path may be a stale egg-info of another
        # checkout; trust it only when it is the one this code came from (or
        # an editable install, whose files list does not include the code).
        located = any(Path(str(dist.locate_file(f))).resolve() == here for f in files)
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        editable = bool((data.get("dir_info") or {}).get("editable"))
        if located or editable:
            return data
    return None


def _checkout() -> Path | None:
    """The source tree this lanekit runs from (a clone), when it is one."""
    root = Path(__file__).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    project = document.get("project")
    if isinstance(project, dict) and project.get("name") == DISTRIBUTION:
        return root
    return None


def running_source() -> str:
    """The running lanekit's source, as the part of a requirement after the name."""
    checkout = _checkout()
    if checkout is not None:
        return f" @ {checkout.as_uri()}"
    data = _direct_url()
    if data is not None:
        url = str(data.get("url", ""))
        vcs = data.get("vcs_info")
        if isinstance(vcs, dict) and vcs.get("vcs") == "git" and url:
            commit = vcs.get("commit_id")
            return f" @ git+{url}@{commit}" if commit else f" @ git+{url}"
        if url.startswith("file://"):
            return f" @ {url}"
    return f"=={__version__}"


def source_from_option(text: str, *, cwd: Path) -> str:
    """``--lanekit-requirement``: a path, a URL, a version or a ``lanekit...`` requirement."""
    value = text.strip()
    if not value:
        msg = "--lanekit-requirement is empty"
        raise UsageError(msg, hint=_HINT)
    # A directory first: a clone is often called "lanekit" too.
    path = (cwd / value).resolve()
    if path.is_dir():
        if not (path / "pyproject.toml").is_file():
            msg = f"--lanekit-requirement {text!r} is a directory without a pyproject.toml"
            raise UsageError(
                msg, hint="pass the top of a lanekit clone (the directory with pyproject.toml)"
            )
        return f" @ {path.as_uri()}"
    if value.lower().startswith(DISTRIBUTION):
        rest = value[len(DISTRIBUTION) :].strip()
        if rest.startswith("["):
            msg = f"--lanekit-requirement {text!r} names extras; the noxfile adds them per session"
            raise UsageError(msg, hint=_HINT)
        if rest.startswith(("=", ">", "<", "~", "!")):
            return rest
        if rest.startswith("@"):
            return f" {rest}"
    elif value.startswith(_URL_SCHEMES):
        return f" @ {value}"
    elif _VERSION_RE.match(value):
        return value if value[0] in "=<>~!" else f"=={value}"
    msg = f"--lanekit-requirement {text!r} is not a directory, a URL or a version"
    raise UsageError(msg, hint=_HINT)


_HINT: Final = (
    "pass a lanekit clone's path (../lanekit), a URL (git+https://host/lanekit.git@v0.1.0) "
    "or a version (0.1.0)"
)
