"""A private working copy of the project for one mutmut run, and mutmut's settings in it.

mutmut writes a ``mutants/`` tree and its caches into the directory it runs
in, reads its settings from that directory's ``pyproject.toml`` and keeps
results cached by each function's source: a survivor stays a survivor after
someone adds the test that kills it. So every shard runs in a fresh copy of
the tree in a temporary directory: the user's tree stays clean, two shards on
one machine cannot trample each other, and no result is ever cached from an
earlier sweep — every survivor of the baseline is re-run on every sweep.

The copy is the working tree as git sees it (tracked files plus untracked,
not-ignored ones: what the user would commit), so a dirty tree is measured as
it is. Outside git every file is copied except the usual build and cache
directories.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from lanes._jsondoc import failing_with
from lanes._textdoc import load_toml
from lanes.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from lanes.mutation.settings import MutationModule

__all__ = ["copy_tree", "mutmut_settings", "source_digest", "write_mutmut_settings"]

# Outside git: directories never worth copying (caches, environments, builds).
_SKIP_DIRS: Final = frozenset({
    ".git", ".nox", ".tox", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
    ".pytest_cache", ".hypothesis", "mutants", "build", "dist", "node_modules", "envelopes",
})  # fmt: skip
# Settings of mutmut the lane decides for each module; the user's other
# [tool.mutmut] keys (pytest_add_cli_args, also_copy, ...) are kept.
_OWNED: Final = frozenset({
    "paths_to_mutate", "source_paths", "only_mutate", "tests_dir",
    "pytest_add_cli_args_test_selection", "timeout_multiplier",
})  # fmt: skip
_XDIST_FLAGS: Final = ("-n", "--numprocesses", "--dist", "--maxprocesses")


def _git_files(root: Path) -> list[str] | None:
    try:
        done = subprocess.run(
            [
                "git",
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],  # git from PATH, as every lane uses it
            cwd=root,
            capture_output=True,
            check=False,
        )
    except OSError:
        return None
    if done.returncode != 0:
        return None
    return [name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name]


def _walk_files(root: Path) -> list[str]:
    found: list[str] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.endswith(".egg-info"))
        rel = Path(directory).relative_to(root)
        found.extend(str(rel / name) for name in sorted(files))
    return found


def copy_tree(root: Path, target: Path, *, exclude: Iterable[Path] = ()) -> dict[str, str]:
    """Copy the project at ``root`` into the empty directory ``target``.

    Returns what was copied: each file's path (from ``root``, POSIX) and the
    SHA-256 of its bytes — the tree a mutation plan is checked against. The
    directories in ``exclude`` (a plan, shard envelopes: the lane's own
    outputs, which appear between the plan and its shards) are left out.
    """
    names = _git_files(root)
    if names is None:
        names = _walk_files(root)
    skipped = [_relative(root, path) for path in exclude]
    copied: dict[str, str] = {}
    for name in sorted(names):
        if name.split("/", 1)[0] == "mutants":
            continue  # a stale mutmut tree of the user's must not seed the copy
        if any(name == part or name.startswith(part + "/") for part in skipped if part):
            continue
        source = root / name
        if not source.is_file():  # deleted but still tracked, or a submodule
            continue
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            # Copied as the link it is (never followed); its digest is its target's name.
            shutil.copy2(source, destination, follow_symlinks=False)
            copied[name] = "link:" + str(source.readlink())
            continue
        data = source.read_bytes()
        destination.write_bytes(data)
        shutil.copystat(
            source, destination
        )  # mutmut compares mtimes (a mutant newer than its source)
        copied[name] = hashlib.sha256(data).hexdigest()
    return copied


def _relative(root: Path, path: Path) -> str | None:
    """``path`` as a POSIX path under ``root``, or None when it lies outside."""
    try:
        return path.absolute().relative_to(root.absolute()).as_posix().strip("/") or None
    except ValueError:
        return None


def source_digest(root: Path, paths: Iterable[str]) -> str:
    """``sha256:<hex>`` over the mutated files' bytes: provenance of a score."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.encode() + b"\0")
        try:
            digest.update((root / path).read_bytes())
        except OSError:
            digest.update(b"<missing>")
        digest.update(b"\0")
    return "sha256:" + digest.hexdigest()


def _source_paths(paths: Iterable[str]) -> list[str]:
    """The directories mutmut copies into ``mutants/``: each path's top package."""
    tops: list[str] = []
    for path in paths:
        parts = path.split("/")
        if len(parts) == 1:
            top = path
        elif parts[0] in ("src", "source", "lib") and len(parts) > 2:  # src/<pkg>/...
            top = "/".join(parts[:2])
        else:
            top = parts[0]
        if top not in tops:
            tops.append(top)
    return tops


def _without_xdist(args: Iterable[str]) -> list[str]:
    """mutmut runs each mutant's tests in one forked process: pytest-xdist's -n must go."""
    kept: list[str] = []
    skip_value = False
    for arg in args:
        if skip_value:
            skip_value = False
            continue
        if arg in _XDIST_FLAGS:
            skip_value = True
            continue
        if any(arg.startswith(flag) and arg != flag for flag in _XDIST_FLAGS):
            continue  # -n4, --numprocesses=auto, --dist=load
        kept.append(arg)
    return kept


def _read_pyproject(path: Path) -> dict[str, Any]:
    # Strict (lanes._textdoc): a FIFO, a device or a huge file is refused, not waited on.
    document = load_toml(
        path,
        what=f"{path} (as TOML)",
        fail=failing_with(ConfigError, "fix pyproject.toml: mutmut reads its settings from it"),
        follow_symlinks=True,
    )
    return {} if document is None else document


def mutmut_settings(
    root: Path, module: MutationModule, *, timeout_multiplier: float, xdist: bool
) -> dict[str, Any]:
    """The ``[tool.mutmut]`` table one module's run uses: the user's, with the lane's keys."""
    user = _read_pyproject(root / "pyproject.toml").get("tool", {}).get("mutmut", {})
    settings = {key: value for key, value in user.items() if key not in _OWNED}
    settings["source_paths"] = list(user.get("source_paths") or _source_paths(module.paths))
    settings["only_mutate"] = list(module.paths)
    settings["pytest_add_cli_args_test_selection"] = list(module.tests)
    settings["timeout_multiplier"] = timeout_multiplier
    cli_args = _without_xdist(str(arg) for arg in user.get("pytest_add_cli_args", []))
    if xdist:
        # An addopts "-n auto" would still reach pytest; "-n 0" is xdist's own off switch.
        cli_args += ["-n", "0"]
    settings["pytest_add_cli_args"] = cli_args
    return settings


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    msg = f"[tool.mutmut] holds a value the lane cannot copy: {value!r}"
    raise ConfigError(
        msg, hint="mutmut's settings are strings, numbers, booleans and lists of them"
    )


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(ch if ch >= " " else f"\\u{ord(ch):04x}" for ch in escaped)
    return f'"{escaped}"'


def _drop_table(text: str, header: str) -> str:
    """``text`` without the TOML table ``[header]`` (up to the next table header)."""
    kept: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("["):
            inside = stripped.replace(" ", "") == f"[{header}]"
        if not inside:
            kept.append(line)
    return "".join(kept)


def write_mutmut_settings(copy_root: Path, settings: Mapping[str, Any]) -> None:
    """Write ``settings`` as the copy's ``[tool.mutmut]`` (mutmut reads no other place first)."""
    pyproject = copy_root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8") if pyproject.is_file() else ""
    text = _drop_table(text, "tool.mutmut").rstrip("\n")
    lines = [f"{key} = {_toml_value(value)}" for key, value in sorted(settings.items())]
    text = (text + "\n\n" if text else "") + "[tool.mutmut]\n" + "\n".join(lines) + "\n"
    try:
        written = tomllib.loads(text).get("tool", {}).get("mutmut")
    except tomllib.TOMLDecodeError:
        written = None  # the user's table survived in a form _drop_table does not see
    if written != dict(settings):
        msg = "pyproject.toml defines [tool.mutmut] in a form the lane cannot replace (dotted keys or an inline table)"
        raise ConfigError(
            msg, hint="write mutmut's settings as a plain [tool.mutmut] table in pyproject.toml"
        )
    pyproject.write_text(text, encoding="utf-8")
