"""Where the scaffolded noxfile installs lanekit from: something CI can install, or a refusal.

The noxfile and workflows ``lanes init`` writes are committed and run on CI
runners, so the requirement must be installable from anywhere:

- ``==<version>`` when the running lanekit came from a package index (its
  dist-info has no ``direct_url.json``, or one naming a remote archive);
- ``@ git+<remote>@<commit>`` when it came from a git clone that has a
  ``remote.origin.url`` (an editable or local install of that clone, or the
  clone's source tree itself), or from a git URL;
- never a local path (``file://``): a runner has no such directory, so the
  first CI run of the project would fail. With only a local path there is no
  source: init writes a placeholder that stops the noxfile with the fix, and
  says which flag fixes it (``--lanekit-requirement``) in its summary and in
  the files.

The noxfile needs the source apart from the extras (``lanekit[lanes] @ ...``
for the lanes, ``lanekit[mutation] @ ...`` for the mutation lane), so a
requirement here is the part after the name: ``" @ git+https://..."`` or
``"==0.1.0"``.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes import __version__
from lanes.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "DISTRIBUTION",
    "FIX_FLAG",
    "Source",
    "running_source",
    "source_from_checkout",
    "source_from_direct_url",
    "source_from_option",
]

DISTRIBUTION: Final = "lanekit"
FIX_FLAG: Final = "--lanekit-requirement"
_VERSION_RE: Final = re.compile(
    r"^(==|>=|<=|~=|!=|>|<)?\s*\d+(\.\d+)*([a-z0-9.+-]*)$", re.IGNORECASE
)
_URL_SCHEMES: Final = ("git+", "https://", "http://")
# ssh://[user@]host[:port]/path, and git's scp-like user@host:path (no scheme).
_SSH_URL: Final = re.compile(r"^ssh://(?:[\w.-]+@)?(?P<host>[\w.-]+)(?::\d+)?/(?P<path>\S+)$")
_SCP_LIKE: Final = re.compile(r"^(?:[\w.-]+@)?(?P<host>[\w.-]+):(?P<path>(?!/)[^\s]+)$")
_HINT: Final = (
    "pass a version (0.1.0), a git URL with a commit or tag "
    "(git+https://host/lanekit.git@v0.1.0) or a lanekit clone that has a remote "
    "(remote.origin.url): a CI runner cannot install from a path on this machine"
)


@dataclass(frozen=True)
class Source:
    """What the noxfile installs lanekit from, and how init found it."""

    spec: str | None
    """The requirement after the name (``"==0.1.0"``, ``" @ git+…@<commit>"``); None: none found."""
    origin: str
    """Where it came from, for init's summary."""
    notes: tuple[str, ...] = ()

    @property
    def fix(self) -> str:
        """The command that replaces a placeholder (empty when there is a source)."""
        if self.spec is not None:
            return ""
        return (
            f"lanes init --force {FIX_FLAG} SPEC  (SPEC: a version such as {__version__}, or "
            "git+https://<host>/<lanekit>.git@<commit>)"
        )


def _git(root: Path, *args: str) -> str | None:
    """``git -C root *args``'s stdout, stripped; None when git fails or is absent."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _installable_remote(url: str) -> str | None:
    """A remote URL as pip's ``git+`` URL, or None when it is a path on this machine."""
    if url.startswith(("https://", "http://", "git://")):
        return f"git+{url}"
    # A CI runner has no ssh key for the host: the same repository over https.
    ssh = _SSH_URL.match(url) or _SCP_LIKE.match(url)
    if ssh is not None:
        return f"git+https://{ssh['host']}/{ssh['path']}"
    return None  # a local path or file:// URL: only this machine has it


def source_from_checkout(root: Path) -> Source:
    """A lanekit clone at ``root``: its origin remote at its HEAD commit, or no source."""
    where = f"the lanekit clone at {root}"
    if _git(root, "rev-parse", "--is-inside-work-tree") != "true":
        return Source(None, f"{where} (not a git checkout, so no remote to install from)")
    url = _git(root, "config", "--get", "remote.origin.url")
    remote = _installable_remote(url) if url else None
    if remote is None:
        why = f"its remote.origin.url {url!r} is a local path" if url else "it has no remote"
        return Source(None, f"{where} ({why})")
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None:
        return Source(None, f"{where} (no commit yet)")
    notes = []
    if _git(root, "status", "--porcelain", "--untracked-files=no"):
        notes.append(
            f"{where} has uncommitted changes; CI installs commit {commit[:12]} without them"
        )
    if not _git(root, "branch", "--remotes", "--contains", commit):
        notes.append(
            f"commit {commit[:12]} is on no branch of origin known here: push it before CI runs"
        )
    return Source(f" @ {remote}@{commit}", f"{where}: origin {url} at {commit[:12]}", tuple(notes))


def source_from_direct_url(data: Mapping[str, object] | None, version: str) -> Source:
    """An installed lanekit's PEP 610 ``direct_url.json`` (None: installed from an index)."""
    if data is None:
        return Source(f"=={version}", f"a package index (lanekit {version})")
    url = str(data.get("url", ""))
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and url:
        remote = _installable_remote(url)
        commit = vcs.get("commit_id")
        if remote is not None:
            spec = f" @ {remote}@{commit}" if commit else f" @ {remote}"
            return Source(spec, f"the git URL it was installed from ({url})")
    if url.startswith("file://"):
        local = Path(url.removeprefix("file://"))
        if local.is_dir():
            return source_from_checkout(local)
        return Source(None, f"a local file ({url}), which CI runners do not have")
    if url.startswith(("https://", "http://")):
        return Source(f" @ {url}", f"the URL it was installed from ({url})")
    return Source(None, f"an install whose origin cannot be installed elsewhere ({url!r})")


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
    return root if _is_lanekit_tree(root) else None


def _is_lanekit_tree(root: Path) -> bool:
    try:
        document = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    project = document.get("project")
    return isinstance(project, dict) and project.get("name") == DISTRIBUTION


def running_source() -> Source:
    """Where the running lanekit came from, as something CI can install (or no source)."""
    checkout = _checkout()
    if checkout is not None:
        return source_from_checkout(checkout)
    return source_from_direct_url(_direct_url(), __version__)


def source_from_option(text: str, *, cwd: Path) -> Source:
    """``--lanekit-requirement``: a version, a URL, a ``lanekit...`` requirement or a clone."""
    value = text.strip()
    if not value:
        msg = f"{FIX_FLAG} is empty"
        raise UsageError(msg, hint=_HINT)
    given = f"{FIX_FLAG} {text!r}"
    # A directory first: a clone is often called "lanekit" too.
    path = (cwd / value).resolve()
    if path.is_dir():
        if not _is_lanekit_tree(path):
            msg = f"{given} is a directory without lanekit's pyproject.toml"
            raise UsageError(msg, hint=_HINT)
        source = source_from_checkout(path)
        if source.spec is None:
            msg = f"{given} is {source.origin}: nothing a CI runner can install"
            raise UsageError(msg, hint=_HINT)
        return source
    if value.lower().startswith(DISTRIBUTION):
        rest = value[len(DISTRIBUTION) :].strip()
        if rest.startswith("["):
            msg = f"{given} names extras; the noxfile adds them per session"
            raise UsageError(msg, hint=_HINT)
        if rest.startswith(("=", ">", "<", "~", "!")):
            return Source(rest, given)
        if rest.startswith("@"):
            return source_from_option(rest[1:], cwd=cwd)
    elif value.startswith("file:"):
        msg = f"{given} is a path on this machine"
        raise UsageError(msg, hint=_HINT)
    elif value.startswith(_URL_SCHEMES):
        return Source(f" @ {value}", given)
    elif _VERSION_RE.match(value):
        return Source(value if value[0] in "=<>~!" else f"=={value}", given)
    msg = f"{given} is not a version, a URL or a lanekit clone"
    raise UsageError(msg, hint=_HINT)
