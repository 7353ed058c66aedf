"""What ``lanes init`` plans to write, file by file, computed before anything is touched.

These call :func:`lanes.init.plan.build_plan` on small real projects: which
files it plans, what each action is and why, how the user's ``.gitignore``
and ``pyproject.toml`` are appended to in their own line endings, and what
the generated noxfile and workflows carry.
"""

from __future__ import annotations

import ast
import os
import sys
import tomllib
from pathlib import Path

import pytest

from lanes.errors import ConfigError, StateError, UsageError
from lanes.init.detect import detect_project
from lanes.init.plan import GITIGNORE_LINES, FileChange, Settings, build_plan, envelope_dir
from lanes.init.requirement import Source

PINNED = Source(spec="==0.1.0", origin="the test")
PLACEHOLDER = Source(spec=None, origin="a path on this machine")
HEADER = [
    "# lanekit: lane outputs are artifacts (only their README is committed);",
    "# baselines/ holds reviewed high-water marks and IS committed;",
    "# .claude/settings.local.json registers the hook by this machine's path.",
]
IGNORED = ["/envelopes/*", "!/envelopes/README.md", ".hypothesis/", "mutants/"]
EVERY_FILE = [
    "pyproject.toml",
    "noxfile.py",
    ".gitignore",
    "envelopes/README.md",
    ".github/workflows/lanes-pr.yml",
    ".github/workflows/lanes-nightly.yml",
    ".github/workflows/lanes-mutation.yml",
    ".github/dependabot.yml",
]


def _project(root: Path, pyproject: str | None = '[project]\nname = "demo"\n') -> Path:
    root.mkdir(exist_ok=True)
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject, encoding="utf-8", newline="")
    (root / "tests").mkdir(exist_ok=True)
    return root


def _plan(root: Path, **settings: object) -> dict[str, FileChange]:
    chosen = Settings(lanekit_source=PINNED, **settings)  # type: ignore[arg-type]  # the test's keywords are Settings' own
    return {change.path.as_posix(): change for change in build_plan(detect_project(root), chosen)}


def test_the_plan_lists_every_file_init_writes_in_order(tmp_path: Path) -> None:
    plan = _plan(_project(tmp_path))
    assert list(plan) == EVERY_FILE
    assert plan[".github/dependabot.yml"].why == "keeps the workflows' action pins current"
    assert {change.action for change in plan.values()} == {"create", "update"}


def test_without_workflows_or_dependabot_the_plan_leaves_them_out(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert list(_plan(root, workflows=False)) == EVERY_FILE[:4]
    assert list(_plan(root, dependabot=False)) == EVERY_FILE[:-1]


def test_the_workflows_carry_the_python_the_schedules_and_the_retention(tmp_path: Path) -> None:
    plan = _plan(_project(tmp_path), python="3.13")
    pr = plan[".github/workflows/lanes-pr.yml"].new
    nightly = plan[".github/workflows/lanes-nightly.yml"].new
    weekly = plan[".github/workflows/lanes-mutation.yml"].new
    for text in (pr, nightly, weekly):
        assert 'python-version: "3.13"' in text
        # Envelopes are evidence for review, not an archive.
        assert "retention-days: 14\n" in text
        assert "PLACEHOLDER" not in text
    assert "nox -s fuzz -- --iterations 200\n" in pr
    assert 'cron: "17 3 * * *"' in nightly
    assert 'cron: "41 4 * * 6"' in weekly


def test_without_an_installable_lanekit_every_file_says_how_to_fix_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    changes = build_plan(detect_project(root), Settings(lanekit_source=PLACEHOLDER))
    plan = {change.path.as_posix(): change for change in changes}
    note = f"# PLACEHOLDER: noxfile.py has no lanekit a CI runner can install yet; fix: {PLACEHOLDER.fix}"
    for name in EVERY_FILE[4:7]:
        assert note in plan[name].new.splitlines(), name
    noxfile = plan["noxfile.py"].new
    assert "LANEKIT_SOURCE: str | None = None" in noxfile
    message = (
        "LANEKIT_SOURCE is a placeholder (no installable lanekit was found); "
        f"fix: {PLACEHOLDER.fix}"
    )
    assert f"raise SystemExit({message!r})".replace("'", '"') in noxfile
    ast.parse(noxfile)


def test_the_noxfile_has_a_session_for_every_lane_this_lanekit_has(tmp_path: Path) -> None:
    noxfile = _plan(_project(tmp_path))["noxfile.py"].new
    assert 'LANEKIT_SOURCE = "==0.1.0"' in noxfile
    assert 'LANE_SESSIONS: tuple[str, ...] = ("slow", "fuzz", "timing")' in noxfile
    assert "def timing(session: nox.Session)" in noxfile
    assert "nox -s mutation     the mutation ratchet" in noxfile
    assert noxfile.startswith('"""Lanes for demo: one nox session per lanekit lane')


def test_a_project_name_with_quotes_and_newlines_stays_inside_the_docstring(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path, '[project]\nname = \'x"""\\nimport os\'\n')
    noxfile = _plan(root)["noxfile.py"].new
    module = ast.parse(noxfile)
    docstring = ast.get_docstring(module)
    assert docstring is not None
    assert docstring.startswith('Lanes for x"""\\nimport os: one nox session')


def test_a_project_without_a_name_is_named_by_its_directory(tmp_path: Path) -> None:
    root = _project(tmp_path / "my-tool", "[tool.other]\n")
    assert _plan(root)["noxfile.py"].new.startswith('"""Lanes for my-tool: one nox session')


@pytest.mark.parametrize(
    ("files", "line", "label"),
    [
        (
            {"requirements-test.txt": "pytest\n"},
            '("-r", "requirements-test.txt"),',
            "requirements 'requirements-test.txt'",
        ),
        (
            {"tox.ini": "[testenv]\ndeps =\n    pytest\n    attrs>=23\n"},
            '("pytest", "attrs>=23",),',
            "tox.ini [testenv] deps",
        ),
    ],
    ids=["requirements", "tox"],
)
def test_the_noxfile_installs_the_project_then_its_test_dependencies(
    tmp_path: Path, files: dict[str, str], line: str, label: str
) -> None:
    root = _project(tmp_path)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    noxfile = _plan(root)["noxfile.py"].new
    # An installable project first (no extra names its tests), then the file's.
    assert f'        ("-e", "."),\n        {line}\n' in noxfile
    assert f"with its test dependencies ({label}), then lanekit." in noxfile


def test_a_project_with_a_tests_extra_installs_itself_with_it_and_not_bare(
    tmp_path: Path,
) -> None:
    root = _project(
        tmp_path,
        '[project]\nname = "demo"\n[project.optional-dependencies]\ntests = ["pytest"]\n',
    )
    noxfile = _plan(root)["noxfile.py"].new
    assert '        ("-e", ".[tests]"),\n        (lanekit(extra),),' in noxfile
    assert '("-e", ".")' not in noxfile
    assert "with its test dependencies (extra 'tests'), then lanekit." in noxfile


def test_a_setup_py_project_is_installed_and_one_without_packaging_is_not(
    tmp_path: Path,
) -> None:
    bare = _project(tmp_path / "bare", None)
    assert '("-e", ".")' not in _plan(bare)["noxfile.py"].new
    assert "with its test dependencies (none declared)" in _plan(bare)["noxfile.py"].new
    legacy = _project(tmp_path / "legacy", None)
    (legacy / "setup.cfg").write_text("[metadata]\nname = legacy\n", encoding="utf-8")
    assert '        ("-e", "."),\n' in _plan(legacy)["noxfile.py"].new


def test_a_differing_file_is_kept_with_why_and_forced_it_is_updated(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "noxfile.py").write_text("# theirs\n", encoding="utf-8")
    kept = _plan(root)["noxfile.py"]
    assert (kept.action, kept.old) == ("kept", "# theirs\n")
    assert kept.why == "differs from what init writes; --force replaces it"
    forced = _plan(root, force=True)["noxfile.py"]
    assert (forced.action, forced.why, forced.old) == ("update", "--force", "# theirs\n")
    assert forced.new == kept.new
    (root / "noxfile.py").write_text(kept.new, encoding="utf-8")
    same = _plan(root)["noxfile.py"]
    assert (same.action, same.why) == ("unchanged", "")
    assert same.old == same.new == kept.new


def test_a_new_gitignore_holds_the_header_and_every_line(tmp_path: Path) -> None:
    root = _project(tmp_path)
    change = _plan(root)[".gitignore"]
    assert (change.action, change.old, change.why) == ("create", None, "ignores lanekit's outputs")
    assert change.new == "\n".join([*HEADER, *GITIGNORE_LINES[len(HEADER) :]]) + "\n"


@pytest.mark.parametrize(
    ("theirs", "joined"),
    [("build/\n", "build/\n\n"), ("build/", "build/\n\n"), ("a\r\nb\r\n", "a\r\nb\r\n\r\n")],
    ids=["newline-ended", "unterminated", "crlf"],
)
def test_an_existing_gitignore_gets_the_missing_lines_after_a_blank_one(
    tmp_path: Path, theirs: str, joined: str
) -> None:
    root = _project(tmp_path)
    (root / ".gitignore").write_text(theirs, encoding="utf-8", newline="")
    change = _plan(root)[".gitignore"]
    newline = "\r\n" if "\r\n" in theirs else "\n"
    assert (change.action, change.old) == ("update", theirs)
    assert change.diff().startswith("--- a/.gitignore\n+++ b/.gitignore\n")
    assert (
        change.new
        == joined + newline.join([*HEADER, *IGNORED, ".claude/settings.local.json"]) + newline
    )


def test_a_gitignore_with_every_line_is_unchanged(tmp_path: Path) -> None:
    root = _project(tmp_path)
    text = "\n".join([*IGNORED, ".claude/settings.local.json"]) + "\n"
    (root / ".gitignore").write_text(text, encoding="utf-8")
    change = _plan(root)[".gitignore"]
    assert (change.action, change.old, change.new) == ("unchanged", text, text)


def test_a_configured_envelope_dir_is_the_one_ignored_and_given_a_readme(tmp_path: Path) -> None:
    root = _project(tmp_path, '[project]\nname = "demo"\n[tool.lanes]\nenvelope_dir = "out/env/"\n')
    assert envelope_dir(detect_project(root)) == "out/env"
    plan = _plan(root)
    ignored = plan[".gitignore"].new.splitlines()
    assert "/out/env/*" in ignored
    assert "!/out/env/README.md" in ignored
    assert "/envelopes/*" not in ignored
    readme = plan["out/env/README.md"].new
    assert readme.startswith("# out/env/\n")
    assert readme.count("out/env/") == 1  # only the title names the directory


def test_the_default_envelope_dir(tmp_path: Path) -> None:
    assert envelope_dir(detect_project(_project(tmp_path))) == "envelopes"
    other = _project(tmp_path / "other", "[tool.lanes.suites.unit]\npaths = ['tests']\n")
    assert envelope_dir(detect_project(other)) == "envelopes"


def test_pyproject_is_appended_to_in_its_own_line_endings(tmp_path: Path) -> None:
    theirs = '[project]\r\nname = "demo"\r\n'
    root = _project(tmp_path, theirs)
    change = _plan(root)["pyproject.toml"]
    assert (change.action, change.why, change.old) == ("update", "appends [tool.lanes]", theirs)
    assert change.new.startswith(theirs)
    appended = change.new[len(theirs) :]
    assert "[tool.lanes" in appended
    assert appended.count("\r\n") == appended.count("\n")


@pytest.mark.parametrize("ending", ["", "\n\n", "# the end"])
def test_a_crlf_pyproject_gets_the_same_section_as_an_lf_one(tmp_path: Path, ending: str) -> None:
    lf = '[project]\nname = "demo"\n' + ending
    with_lf = _plan(_project(tmp_path / "lf", lf))["pyproject.toml"].new
    crlf = lf.replace("\n", "\r\n")
    with_crlf = _plan(_project(tmp_path / "crlf", crlf))["pyproject.toml"].new
    assert with_crlf == with_lf.replace("\n", "\r\n")


def test_a_missing_pyproject_is_created_with_only_lanekits_table(tmp_path: Path) -> None:
    root = _project(tmp_path, None)
    change = _plan(root)["pyproject.toml"]
    assert (change.action, change.old) == ("create", None)
    assert "\r\n" not in change.new
    assert list(tomllib.loads(change.new)) == ["tool"]
    assert list(tomllib.loads(change.new)["tool"]) == ["lanes"]


def test_an_existing_lanes_table_leaves_pyproject_unchanged_and_says_why(tmp_path: Path) -> None:
    theirs = '[project]\nname = "demo"\n[tool.lanes.suites.mine]\npaths = ["tests"]\n'
    change = _plan(_project(tmp_path, theirs))["pyproject.toml"]
    assert (change.action, change.old, change.new) == ("unchanged", theirs, theirs)
    assert change.why == "[tool.lanes] already present"


def test_planning_without_jinja2_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path)
    monkeypatch.setitem(sys.modules, "jinja2", None)  # as where jinja2 is not installed
    with pytest.raises(UsageError) as caught:
        _plan(root)
    assert caught.value.message == "`lanes init` needs jinja2, which is not installed"
    assert caught.value.hint == (
        "install the lane dependencies: python3 -m pip install './lanekit[lanes]'"
    )


@pytest.mark.parametrize(
    "packaging",
    [
        {"pyproject.toml": '[build-system]\nrequires = ["hatchling"]\n'},
        {"setup.py": "from setuptools import setup\nsetup()\n"},
    ],
    ids=["build-system", "setup.py"],
)
def test_a_project_with_only_packaging_metadata_is_installed(
    tmp_path: Path, packaging: dict[str, str]
) -> None:
    root = _project(tmp_path, None)
    for name, text in packaging.items():
        (root / name).write_text(text, encoding="utf-8")
    assert '        ("-e", "."),\n' in _plan(root)["noxfile.py"].new


def test_every_test_dependency_source_is_named_in_the_install_docstring(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        '[project]\nname = "demo"\n[project.optional-dependencies]\ntests = ["pytest"]\n'
        '[dependency-groups]\ntest = ["pytest"]\n',
    )
    noxfile = _plan(root)["noxfile.py"].new
    assert "with its test dependencies (extra 'tests', group 'test'), then lanekit." in noxfile


def test_every_planned_file_ends_with_a_newline(tmp_path: Path) -> None:
    for name, change in _plan(_project(tmp_path)).items():
        assert change.new.endswith("\n"), name


def test_the_placeholder_noxfile_says_the_fix_where_the_source_would_be(tmp_path: Path) -> None:
    root = _project(tmp_path)
    changes = build_plan(detect_project(root), Settings(lanekit_source=PLACEHOLDER))
    noxfile = next(change.new for change in changes if change.path == Path("noxfile.py"))
    assert f"# from a path on its machine only). Fix: {PLACEHOLDER.fix}\n" in noxfile


def test_a_fifo_where_init_reads_is_refused_with_the_fix(tmp_path: Path) -> None:
    root = _project(tmp_path)
    os.mkfifo(root / "noxfile.py")
    with pytest.raises(StateError) as caught:
        _plan(root)
    assert str(root / "noxfile.py") in caught.value.message
    assert caught.value.hint == (
        "make it a regular UTF-8 file you can read (not a FIFO, device or symlink), "
        "or move it aside"
    )


def test_a_pyproject_broken_after_detection_is_refused_with_the_fix(tmp_path: Path) -> None:
    root = _project(tmp_path)
    project = detect_project(root)
    (root / "pyproject.toml").write_text("[project\n", encoding="utf-8")  # edited meanwhile
    with pytest.raises(ConfigError) as caught:
        build_plan(project, Settings(lanekit_source=PINNED))
    assert caught.value.message.startswith(f"{root / 'pyproject.toml'} ")
    assert caught.value.hint == "fix the TOML syntax at the line and column shown"


@pytest.mark.parametrize("name", [*EVERY_FILE[3:]])
def test_a_differing_generated_file_is_replaced_only_when_forced(tmp_path: Path, name: str) -> None:
    root = _project(tmp_path)
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text("# ours\n", encoding="utf-8")
    assert _plan(root)[name].action == "kept"
    assert _plan(root, force=True)[name].action == "update"


def test_the_placeholder_note_is_the_only_difference_in_the_workflows(tmp_path: Path) -> None:
    root = _project(tmp_path)
    pinned = _plan(root)
    changes = build_plan(detect_project(root), Settings(lanekit_source=PLACEHOLDER))
    placeholder = {change.path.as_posix(): change.new for change in changes}
    note = f"\n#\n# PLACEHOLDER: noxfile.py has no lanekit a CI runner can install yet; fix: {PLACEHOLDER.fix}"
    for name in EVERY_FILE[4:7]:
        assert note in placeholder[name], name
        assert placeholder[name].replace(note, "") == pinned[name].new, name
