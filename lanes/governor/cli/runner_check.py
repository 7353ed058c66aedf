"""Whether the governor's pytest plugin can load where this project's pytest runs.

The plugin (:mod:`lanes.governor.runner.plugin`) is authoritative for pytest;
where it cannot load, the hook's shell judgement is the only gate again. It cannot load when lanekit is not installed in the environment
that runs the project's pytest, when the project's pytest configuration says
``-p no:lanes.governor``, or when ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` is set.
``lanes governor status`` shows what this module finds, and ``lanes governor
install`` tells how to add the plugin; both record the verdict in the state
dir (:mod:`lanes.governor.state.plugin_note`), where the hook reads it cheaply
to tell an agent that it is pytest's only gate here.

The environments looked at: the project's ``.venv`` and ``venv``, the
interpreter of the ``pytest`` on PATH, and this one. Each is asked — one short
process each — whether its ``pytest11`` entry points include ``lanes.governor``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

__all__ = [
    "PluginCheck",
    "check_runner",
    "disabled_by",
    "plugin_verdict",
    "record_verdict",
    "render_checks",
]

_ENTRY_POINT = "lanes.governor"
_ASK = (
    "import importlib.metadata as m, sys; "
    f"sys.exit(0 if any(e.name == {_ENTRY_POINT!r} for e in m.entry_points(group='pytest11')) "
    "else 3)"
)
# pytest's configuration files, in its own order of precedence.
_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


class PluginCheck:
    """One environment: its interpreter, whether the plugin loads there
    (None: could not ask), and where it was found."""

    __slots__ = ("found_as", "interpreter", "loads")

    def __init__(self, interpreter: str, found_as: str, *, loads: bool | None) -> None:
        self.interpreter = interpreter
        self.found_as = found_as
        self.loads = loads

    def to_dict(self) -> dict[str, object]:
        return {"interpreter": self.interpreter, "found_as": self.found_as, "loads": self.loads}


def _shebang_python(script: str) -> str | None:
    try:
        with open(script, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    program = (
        shutil.which(words[1])
        if os.path.basename(words[0]) == "env" and len(words) > 1
        else words[0]
    )
    # A shim in another language (pyenv's is bash) says nothing about pytest's python.
    if program is None or not os.path.basename(program).startswith("python"):
        return None
    return program


def _interpreters(root: Path) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for name in (".venv", "venv"):
        venv_python = root / name / "bin" / "python"
        if venv_python.exists():
            found.append((str(venv_python), f"{name}/"))
    pytest_script = shutil.which("pytest")
    if pytest_script is not None:
        script_python = _shebang_python(pytest_script)
        if script_python is not None:
            found.append((script_python, f"the `pytest` on PATH ({pytest_script})"))
    found.append((sys.executable, "this lanekit's own environment"))
    unique: dict[str, tuple[str, str]] = {}
    for python, where in found:
        unique.setdefault(os.path.realpath(python), (python, where))
    return list(unique.values())


def _loads(python: str, root: Path) -> bool | None:
    try:
        # From the project's directory, as its pytest runs: a checkout
        # installed in develop mode is found there.
        proc = subprocess.run(
            [python, "-c", _ASK],
            cwd=root,
            capture_output=True,
            timeout=30,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode in (0, 3):
        return proc.returncode == 0
    return None


def disabled_by(root: Path, environ: Mapping[str, str]) -> list[str]:
    """What turns the plugin off for every run of this project: the
    environment, or ``-p no:lanes.governor`` in a pytest config file."""
    reasons: list[str] = []
    if environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "") not in ("", "0"):
        reasons.append("PYTEST_DISABLE_PLUGIN_AUTOLOAD is set in this environment")
    if "no:" + _ENTRY_POINT in environ.get("PYTEST_ADDOPTS", ""):
        reasons.append("PYTEST_ADDOPTS says -p no:lanes.governor")
    for name in _CONFIGS:
        try:
            text = (root / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "no:" + _ENTRY_POINT in text:
            reasons.append(f"{name} says -p no:lanes.governor")
    return reasons


def check_runner(root: Path) -> tuple[list[PluginCheck], list[str]]:
    """(each environment's answer, what disables the plugin for the project)."""
    checks = [
        PluginCheck(python, where, loads=_loads(python, root))
        for python, where in _interpreters(root)
    ]
    return checks, disabled_by(root, os.environ)


def plugin_verdict(checks: list[PluginCheck], disabled: list[str]) -> tuple[bool | None, str]:
    """(is the plugin active for this project's pytest, why not) — None when
    no environment could be asked. The project's own environment decides when
    it has one: the first with an answer in :func:`_interpreters`' order
    (``.venv``, ``venv``, the ``pytest`` on PATH, then lanekit's own)."""
    if disabled:
        return False, "; ".join(disabled)
    answered = next((check for check in checks if check.loads is not None), None)
    if answered is None:
        return None, ""
    if answered.loads:
        return True, ""
    return False, f"lanekit is not installed for {answered.found_as} ({answered.interpreter})"


def record_verdict(
    state_dir: str | None, checks: list[PluginCheck], disabled: list[str], *, source: str
) -> None:
    """Keep the verdict where the hook reads it; nothing when there is no
    verdict or no state dir. A write that fails only loses the advice."""
    from lanes.governor.state.debug import debug_log
    from lanes.governor.state.env import OSEnvironment
    from lanes.governor.state.plugin_note import PluginNote, write_note

    active, reason = plugin_verdict(checks, disabled)
    if active is None or state_dir is None:
        return
    env = OSEnvironment()
    note = PluginNote(active=active, ts=env.now(), source=source, reason=reason)
    try:
        os.makedirs(state_dir, exist_ok=True)
        write_note(env, state_dir, note)
    except OSError as exc:
        debug_log("plugin-note-failed", error=str(exc))


def render_checks(checks: list[PluginCheck], disabled: list[str], *, advise: bool) -> list[str]:
    """Lines for ``status`` (and, with ``advise``, how to add the plugin)."""
    lines: list[str] = []
    words = {True: "loads", False: "NOT installed", None: "unknown (could not ask)"}
    lines.extend(
        f"  {words[check.loads]:<24} {check.interpreter} — {check.found_as}" for check in checks
    )
    lines.extend(f"  {'DISABLED':<24} {reason}" for reason in disabled)
    missing = [c for c in checks if c.loads is False]
    if disabled or missing or not any(c.loads for c in checks):
        lines.append(
            "  where the plugin cannot load, the hook's shell judgement is the only gate "
            "for pytest (computed commands, `python -c 'pytest.main()'` ... pass it)"
        )
    if advise:
        lines.extend(
            f"  add it: {check.interpreter} -m pip install lanekit "
            "(or add lanekit to the test dependencies that build that environment: "
            "a dependency group, tox `deps`, nox `session.install`)"
            for check in missing
        )
        if disabled:
            lines.append(
                "  remove `-p no:lanes.governor` / PYTEST_DISABLE_PLUGIN_AUTOLOAD, or add "
                "`-p lanes.governor` to the project's pytest addopts"
            )
    return lines
