"""The hot paths import only the standard library (DESIGN.md: Speed).

Measured with ``python -X importtime`` in a fresh interpreter, minus what the
interpreter imports on its own at start-up (site, .pth hooks of the venv).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration


def _imported(code: str) -> set[str]:
    # importtime also lists failed probes (copy.py tries Jython's
    # `org.python.core`), so keep only what ended up in sys.modules.
    code += "\nimport sys\nprint('\\n'.join(sys.modules))"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = set(proc.stdout.split())
    names = set()
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        names.add(line.rsplit("|", 1)[1].strip())
    return names & loaded


@pytest.fixture(scope="module")
def startup() -> set[str]:
    return _imported("pass")


@pytest.mark.parametrize(
    "module",
    [
        "lanes",
        "lanes.cli",
        "lanes.governor",
        "lanes.governor.hook",
        "lanes.errors",
        "lanes._atomic",
    ],
)
def test_only_stdlib(startup: set[str], module: str) -> None:
    added = _imported(f"import {module}") - startup
    assert module in added or module in startup
    third_party = sorted(
        name
        for name in added
        if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "lanes"
    )
    assert third_party == []


def test_the_parser_loads_no_lane_dependency(startup: set[str]) -> None:
    # `lanes --help` builds every subcommand's parser: still no jinja2,
    # hypothesis, mutmut, pytest or jsonschema.
    code = "import contextlib, lanes.cli\nwith contextlib.suppress(SystemExit): lanes.cli.main(['--help'])"
    added = {name.split(".")[0] for name in _imported(code) - startup}
    assert added <= set(sys.stdlib_module_names) | {"lanes"}, sorted(added)
