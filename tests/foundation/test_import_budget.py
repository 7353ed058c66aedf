"""The hot paths import only the standard library (docs/architecture.md, "Allowed imports").

Measured with ``python -X importtime`` in a fresh interpreter, minus what the
interpreter imports on its own at start-up (site, .pth hooks of the venv).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


@pytest.mark.parametrize(
    ("event", "command"),
    [
        ("PreToolUse", "pytest tests/unit -q"),
        # A full run's PostToolUse: the test economy used to load lanes.config
        # (dataclasses, pathlib, tomllib) for its knobs on every such call.
        ("PostToolUse", "pytest -q"),
    ],
)
def test_a_test_command_does_not_import_pathlib(tmp_path: Path, event: str, command: str) -> None:
    # The full hook path (a test run: parse, classify, gate) used to import
    # pathlib (with fnmatch, re's compiler, urllib.parse) on every test command,
    # and in a project without pyproject.toml lanes.config too. The first call
    # may fill the per-user caches; the second must stay lean. `-S` keeps
    # site (and an editable install's finder, which imports pathlib) out.
    import json  # noqa: PLC0415
    import os  # noqa: PLC0415

    repo = Path(__file__).resolve().parents[2]
    payload = json.dumps(
        {
            "session_id": "import-budget-0001",
            "cwd": str(tmp_path),
            "hook_event_name": event,
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    )
    env = {
        "PYTHONPATH": str(repo),
        "XDG_STATE_HOME": str(tmp_path / "xdg"),
        "LANES_STATE_DIR": str(tmp_path / "state"),
        "PATH": os.environ.get("PATH", ""),
    }
    for _warm_then_measure in range(2):
        proc = _hook_loading(payload, env, None, ("pathlib", "subprocess", "dataclasses"))
    assert proc.stdout.strip().splitlines()[-1].endswith(" []"), proc.stdout + proc.stderr


def _hook_loading(
    data: str, env: dict[str, str], cwd: Path | None, modules: tuple[str, ...]
) -> subprocess.CompletedProcess[str]:
    """One ``lanes hook`` call in a fresh interpreter (``-S`` keeps site and an
    editable install's finder out); it prints its exit status and which of
    ``modules`` it loaded."""
    code = (
        "import sys\n"
        "from lanes.cli import main\n"
        "status = main(['hook'])\n"
        f"print(status, sorted(m for m in {modules!r} if m in sys.modules))\n"
    )
    return subprocess.run(
        [sys.executable, "-S", "-c", code],
        input=data,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
        timeout=60,
    )


def test_a_dedup_hit_imports_neither_re_nor_json(tmp_path: Path) -> None:
    # The gate's busiest answer: a suite command whose PASS is fresh on this
    # tree, in a real repository. `re` (with enum, functools and collections
    # behind it) cost half an interpreter start there, loaded by the shell
    # lexer's four character-class regexes; json would bring re back.
    import json  # noqa: PLC0415

    from tests.support.git import make_repo  # noqa: PLC0415
    from tests.support.hooks import clean_env, payload  # noqa: PLC0415

    repo = make_repo(
        tmp_path / "repo",
        {
            "pyproject.toml": '[tool.lanes.suites.unit]\npaths = ["tests/unit"]\n'
            'command = "pytest tests/unit -q"\n',
            "tests/unit/test_a.py": "def test_a():\n    pass\n",
            "tests/integ/test_b.py": "def test_b():\n    pass\n",
        },
    )
    source = Path(__file__).resolve().parents[2]
    env = {**clean_env(tmp_path / "xdg"), "PYTHONPATH": str(source)}
    post = payload("pytest tests/unit -q", cwd=repo, event="PostToolUse")
    recorded = _hook_loading(json.dumps(post), env, repo, ())
    assert recorded.stdout.strip() == "0 []", recorded.stdout + recorded.stderr

    def pre(command: str) -> subprocess.CompletedProcess[str]:
        data = json.dumps(payload(command, cwd=repo, event="PreToolUse"))
        return _hook_loading(data, env, repo, ("re", "json", "enum"))

    hit = pre("pytest tests/unit -q")
    assert "unit green" in hit.stderr, hit.stderr
    assert hit.stdout.strip().splitlines()[-1] == "2 []", hit.stdout + hit.stderr
    # A -k selector is read by the keyword evaluator, which used a regex too.
    focused = pre("pytest tests/unit -q -k 'not slow'")
    assert focused.stdout.strip().splitlines()[-1].endswith(" []"), focused.stdout + focused.stderr
