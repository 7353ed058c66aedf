"""``lanes init`` on small generated projects: idempotent, --dry-run writes
nothing, the user's files are appended to and never reformatted."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from lanes.cli import main
from lanes.config import load_config
from lanes.errors import UsageError
from lanes.init.requirement import source_from_option

USER_PYPROJECT = """\
# The user's own comments and odd formatting must survive byte for byte.
[project]
name   =   "demo"
version = "0.1"
optional-dependencies = { tests = ["pytest>=8"] }

[tool.pytest.ini_options]
testpaths = ["tests"]
markers = ["integration: talks to the network"]
"""


# The script of this installation: what init registers, so the hook runs
# whether or not the agent's PATH has the virtualenv.
LANES_SCRIPT = Path(sys.executable).parent / "lanes"


def test_the_registered_hook_runs_without_the_virtualenv_on_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression: init registered a bare `lanes hook`, which an agent whose
    # PATH lacks the virtualenv cannot find: the hook silently ran nothing.
    root = _project(tmp_path)
    _init(root, capsys, "--no-workflows")
    # This machine's path: in the personal settings file, never the committed one.
    assert not (root / ".claude" / "settings.json").exists()
    settings = json.loads((root / ".claude" / "settings.local.json").read_text(encoding="utf-8"))
    commands = {
        hook["command"]
        for groups in settings["hooks"].values()
        for group in groups
        for hook in group["hooks"]
    }
    assert commands == {f"{LANES_SCRIPT} hook"}
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "session_id": "s",
        "cwd": str(root),
    }
    # The command init registered, run as the agent would, without the venv on PATH.
    ran = subprocess.run(
        ["/bin/sh", "-c", commands.pop()],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        cwd=root,
        check=False,
        timeout=60,
    )
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")


def test_without_testpaths_init_says_how_ci_replays_the_fuzz_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression: without testpaths, a CI running `pytest tests` is no
    # whole-suite run to the lanes.fuzz plugin, so the promoted corpus never
    # replayed there, and init did not say so.
    root = _project(tmp_path, USER_PYPROJECT.replace('testpaths = ["tests"]\n', ""))
    out = _init(root, capsys, "--no-hook", "--no-workflows")
    assert "no pytest testpaths: `pytest tests` replays the fuzz corpus" in out
    assert "`pytest --fuzz-corpus=on tests`" in out
    (tmp_path / "other").mkdir()
    with_testpaths = _init(_project(tmp_path / "other"), capsys, "--no-hook", "--no-workflows")
    assert "no pytest testpaths" not in with_testpaths


def _project(root: Path, pyproject: str = USER_PYPROJECT) -> Path:
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (root / "demo").mkdir()
    (root / "demo" / "__init__.py").write_text("", encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_demo.py").write_text("def test_ok():\n    pass\n", encoding="utf-8")
    (root / ".gitignore").write_text("__pycache__/\n.hypothesis/\n", encoding="utf-8")
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _init(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(["init", "--root", str(root), *args])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def test_init_writes_every_piece_and_a_loadable_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    out = _init(root, capsys)
    for written in (
        "pyproject.toml",
        "noxfile.py",
        ".gitignore",
        ".github/workflows/lanes-pr.yml",
        ".github/workflows/lanes-nightly.yml",
    ):
        assert written in out
    assert f".claude/settings.local.json: registered `{LANES_SCRIPT} hook`" in out
    assert ".github/dependabot.yml" in out
    # The next commands, as printed: the seeded budgets are sized from the first run.
    assert out.rstrip().splitlines()[-4:] == [
        "  nox -s slow      # your suite under the slow-test ratchet: envelopes/slow.json",
        (
            "  lanes slow propose --write   # size the seeded budgets to that run: "
            "3 x each tier's slowest test"
        ),
        "  nox -s fuzz      # after declaring a parser in [tool.lanes.fuzz.targets]",
        "  lanes report     # envelopes/summary.md and envelopes/index.html",
    ]
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith(USER_PYPROJECT), "the user's text must be kept as it was"
    config = load_config(root / "pyproject.toml")
    assert list(config.suites) == ["tests"]
    assert config.suites["tests"].paths == ("tests",)
    # A declared integration marker gets its own slow tier.
    assert config.slow.tiers["integration"].markers == ("integration",)
    assert config.fuzz.targets == {}
    ignored = (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert ignored[:2] == ["__pycache__/", ".hypothesis/"]
    assert ignored.count(".hypothesis/") == 1
    assert {"/envelopes/*", "!/envelopes/README.md", "mutants/"} <= set(ignored)
    assert ".claude/settings.local.json" in ignored  # the hook's path is this machine's
    assert not any(line.startswith("baselines") for line in ignored)


def test_init_twice_changes_nothing_the_second_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    _init(root, capsys)
    before = _snapshot(root)
    out = _init(root, capsys)
    assert _snapshot(root) == before
    assert "create" not in out
    assert "update" not in out
    assert f"`{LANES_SCRIPT} hook` already registered; nothing changed" in out


def test_dry_run_writes_nothing_and_shows_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    before = _snapshot(root)
    out = _init(root, capsys, "--dry-run")
    assert _snapshot(root) == before
    assert "+[tool.lanes.suites.tests]" in out
    assert "+++ b/noxfile.py" in out
    assert "+++ b/.claude/settings.local.json" in out
    assert out.rstrip().endswith("dry run: nothing was written")


def test_a_differing_file_is_kept_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    (root / "noxfile.py").write_text("# the user's own sessions\n", encoding="utf-8")
    out = _init(root, capsys)
    assert "kept      noxfile.py" in out
    assert (root / "noxfile.py").read_text(encoding="utf-8") == "# the user's own sessions\n"
    out = _init(root, capsys, "--force")
    assert "update    noxfile.py" in out
    assert "def slow(session: nox.Session)" in (root / "noxfile.py").read_text(encoding="utf-8")


def test_an_existing_lanes_table_is_never_touched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = USER_PYPROJECT + '\n[tool.lanes.suites.mine]\npaths = ["tests"]\n'
    root = _project(tmp_path, own)
    _init(root, capsys, "--force")
    assert (root / "pyproject.toml").read_text(encoding="utf-8") == own


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, '("-e", ".[tests]"),'),
        (
            {
                "pyproject.toml": '[project]\nname = "demo"\n[dependency-groups]\ntest = ["pytest"]\n'
            },
            'tuple(nox.project.dependency_groups(PYPROJECT, "test")),',
        ),
        (
            {"pyproject.toml": '[project]\nname = "demo"\n', "requirements-test.txt": "pytest\n"},
            '("-r", "requirements-test.txt"),',
        ),
        (
            {
                "pyproject.toml": '[project]\nname = "demo"\n',
                "tox.ini": "[testenv]\ndeps =\n    pytest\n    py311: old\n    attrs>=23\n",
            },
            '("pytest", "attrs>=23",),',
        ),
    ],
    ids=["extra", "dependency-group", "requirements-file", "tox-deps"],
)
def test_the_noxfile_installs_the_projects_test_dependencies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], expected: str
) -> None:
    root = _project(tmp_path)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    _init(root, capsys, "--no-hook", "--no-workflows")
    noxfile = (root / "noxfile.py").read_text(encoding="utf-8")
    assert expected in noxfile
    compile(noxfile, "noxfile.py", "exec")


def test_suites_follow_the_test_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path, '[project]\nname = "demo"\n')
    for part in ("unit", "integration"):
        (root / "tests" / part).mkdir()
        (root / "tests" / part / "test_x.py").write_text("def test_x(): pass\n", encoding="utf-8")
    _init(root, capsys, "--no-hook", "--no-workflows")
    config = load_config(root / "pyproject.toml")
    assert {name: (s.paths, s.tier) for name, s in config.suites.items()} == {
        "unit": (("tests/unit",), "unit"),
        "integration": (("tests/integration",), "integration"),
    }


def test_workflows_are_valid_thin_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path)
    _init(root, capsys, "--no-hook", "--python", "3.13")
    workflows = sorted((root / ".github" / "workflows").glob("*.yml"))
    assert workflows
    for path in workflows:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert document["permissions"] == {}  # each job asks for what it needs
        # YAML reads the bare key `on` as True.
        assert document[True]["workflow_dispatch"] is None
        for job in document["jobs"].values():
            assert job["permissions"] == {"contents": "read"}
            steps = job["steps"]
            assert steps[0]["with"]["persist-credentials"] is False
            assert steps[1]["with"]["python-version"] == "3.13"
            runs = [step["run"] for step in steps if "run" in step]
            assert all(r == "python -m pip install nox uv" or r.startswith("nox -s ") for r in runs)


def test_a_project_without_pyproject_gets_one_with_only_lanekits_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tests").mkdir()
    out = _init(tmp_path, capsys, "--no-hook", "--no-workflows")
    assert "create    pyproject.toml" in out
    document = tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))
    assert list(document) == ["tool"]
    # Nothing to install but lanekit: no `-e .` for a project that is not a package.
    assert '"-e"' not in (tmp_path / "noxfile.py").read_text(encoding="utf-8")


def test_a_bare_distribution_name_is_not_a_source(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        source_from_option("lanekit", cwd=tmp_path)  # no ./lanekit here, and no index has it
    assert "not a version, a URL or a lanekit clone" in caught.value.message


@pytest.mark.parametrize("settings", ["[" * 3000 + "]" * 3000, '["not", "an object"]', "{"])
def test_agent_settings_install_would_refuse_are_kept_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], settings: str
) -> None:
    root = _project(tmp_path)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(settings, encoding="utf-8")
    out = _init(root, capsys, "--dry-run")
    assert "install will refuse it" in out
    assert (root / ".claude" / "settings.json").read_text(encoding="utf-8") == settings
