"""The noxfile ``lanes init`` writes, run by real nox: a session installs only
when its inputs changed (reinstalling cost 28 s of a 39 s
``nox -s slow``), and a change to any input, or LANES_REINSTALL=1, installs."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main

if TYPE_CHECKING:
    from pathlib import Path

# A session of the scaffolded file's own install_once, with steps pip can do
# offline: pip is already in a fresh virtualenv, so "install pip" succeeds
# without an index, and the requirements file is an input the digest must see.
PROBE = """

@nox.session
def probe(session: nox.Session) -> None:
    install_once(session, ("--no-index", "-r", "requirements-probe.txt"))
"""

INSTALLED = "pip install --no-index -r requirements-probe.txt"
REUSED = "install inputs unchanged (.lanes-install-digest): not reinstalling"


def _nox(root: Path, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("LANES_", "NOX"))}
    # Offline: the virtualenv backend's `--upgrade pip` finds pip already there.
    environment |= {"PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", **env}
    done = subprocess.run(
        # The virtualenv backend, whether or not uv is installed: the probe's
        # offline install of pip needs the pip a virtualenv seeds (a uv venv has none).
        [sys.executable, "-m", "nox", "--force-venv-backend", "virtualenv", "-s", "probe"],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stderr


@pytest.mark.integration
def test_a_session_installs_again_only_when_an_input_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "demo"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0.1"\ndependencies = []\n', encoding="utf-8"
    )
    (root / "requirements-probe.txt").write_text("pip\n", encoding="utf-8")
    assert main(["init", "--root", str(root), "--no-hook", "--no-workflows"]) == 0
    capsys.readouterr()
    noxfile = root / "noxfile.py"
    noxfile.write_text(noxfile.read_text(encoding="utf-8") + PROBE, encoding="utf-8")

    first = _nox(root)
    assert INSTALLED in first
    assert (root / ".nox" / "probe" / ".lanes-install-digest").is_file()

    second = _nox(root)
    assert REUSED in second
    assert INSTALLED not in second

    # A requirement file the steps name is an input.
    (root / "requirements-probe.txt").write_text("pip  # pinned later\n", encoding="utf-8")
    assert INSTALLED in _nox(root)

    # So is the project's dependency metadata.
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0.2"\ndependencies = []\n', encoding="utf-8"
    )
    assert INSTALLED in _nox(root)

    # And the documented force.
    assert INSTALLED in _nox(root, LANES_REINSTALL="1")
    assert REUSED in _nox(root)
