"""Where the scaffold installs lanekit from: an index version, a clone's remote at a commit, or a refusal.

Real git repositories in temporary directories; the end-to-end cases run
``lanes init`` from a copy of this lanekit (a clone with or without a remote),
as a new user would, in a separate process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import lanes
from lanes import __version__
from lanes.errors import UsageError
from lanes.init.requirement import (
    FIX_FLAG,
    running_source,
    source_from_checkout,
    source_from_direct_url,
    source_from_option,
)
from tests.support.git import GIT_ENV, git, git_repo

ROOT = Path(__file__).parents[2]
HTTPS = "https://example.org/team/lanekit.git"


def _clone(path: Path, remote: str | None, *, pushed: bool = True) -> tuple[Path, str]:
    """A git checkout holding lanekit's pyproject (and, optionally, an origin remote)."""
    repo = git_repo(path)
    shutil.copy(ROOT / "pyproject.toml", repo / "pyproject.toml")
    git(repo, "add", "pyproject.toml")
    git(repo, "commit", "-q", "-m", "lanekit")
    if remote is not None:
        git(repo, "remote", "add", "origin", remote)
        if pushed:  # what a fetch would leave: origin/main at this commit
            git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    return repo, git(repo, "rev-parse", "HEAD").strip()


def test_a_clone_with_a_remote_installs_from_the_remote_at_its_commit(tmp_path: Path) -> None:
    repo, commit = _clone(tmp_path / "lanekit", HTTPS)
    source = source_from_checkout(repo)
    assert source.spec == f" @ git+{HTTPS}@{commit}"
    assert source.notes == ()
    assert source.fix == ""


def test_an_unpushed_commit_or_a_dirty_tree_is_said(tmp_path: Path) -> None:
    repo, commit = _clone(tmp_path / "lanekit", HTTPS, pushed=False)
    (repo / "pyproject.toml").write_text("# edited\n", encoding="utf-8")
    source = source_from_checkout(repo)
    assert source.spec == f" @ git+{HTTPS}@{commit}"
    assert any("push it before CI runs" in note for note in source.notes)
    assert any("uncommitted changes" in note for note in source.notes)


@pytest.mark.parametrize(
    "remote", ["git@github.com:team/lanekit.git", "ssh://git@github.com:22/team/lanekit.git"]
)
def test_an_ssh_remote_becomes_https_a_runner_can_fetch(tmp_path: Path, remote: str) -> None:
    repo, commit = _clone(tmp_path / "lanekit", remote)
    assert source_from_checkout(repo).spec == (
        f" @ git+https://github.com/team/lanekit.git@{commit}"
    )


@pytest.mark.parametrize("remote", [None, "/srv/git/lanekit.git", "file:///srv/git/lanekit.git"])
def test_a_clone_without_an_installable_remote_is_no_source(
    tmp_path: Path, remote: str | None
) -> None:
    repo, _ = _clone(tmp_path / "lanekit", remote)
    source = source_from_checkout(repo)
    assert source.spec is None
    assert FIX_FLAG in source.fix
    assert ("no remote" if remote is None else "local path") in source.origin


def test_a_tree_outside_git_is_no_source(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "lanekit"\n', encoding="utf-8")
    assert source_from_checkout(tmp_path).spec is None


def test_an_installed_lanekit_names_its_index_version_or_its_url(tmp_path: Path) -> None:
    assert source_from_direct_url(None, "1.2.3").spec == "==1.2.3"
    vcs = {"url": HTTPS, "vcs_info": {"vcs": "git", "commit_id": "a" * 40}}
    assert source_from_direct_url(vcs, "1.2.3").spec == f" @ git+{HTTPS}@{'a' * 40}"
    archive = {"url": "https://example.org/lanekit-1.2.3.tar.gz", "archive_info": {}}
    assert source_from_direct_url(archive, "1.2.3").spec == f" @ {archive['url']}"
    # Installed from a local wheel or a local clone: only the clone's remote can help.
    wheel = tmp_path / "lanekit-1.2.3-py3-none-any.whl"
    assert source_from_direct_url({"url": wheel.as_uri()}, "1.2.3").spec is None
    repo, commit = _clone(tmp_path / "lanekit", HTTPS)
    editable = {"url": repo.as_uri(), "dir_info": {"editable": True}}
    assert source_from_direct_url(editable, "1.2.3").spec == f" @ git+{HTTPS}@{commit}"
    lonely, _ = _clone(tmp_path / "lonely", None)
    assert source_from_direct_url({"url": lonely.as_uri(), "dir_info": {}}, "1.2.3").spec is None


def test_the_option_takes_a_version_a_url_or_a_clone_with_a_remote(tmp_path: Path) -> None:
    assert source_from_option("0.1.0", cwd=tmp_path).spec == "==0.1.0"
    assert source_from_option(">=0.1", cwd=tmp_path).spec == ">=0.1"
    url = "git+https://example.org/lanekit.git@v0.1.0"
    assert source_from_option(url, cwd=tmp_path).spec == f" @ {url}"
    assert source_from_option(f"lanekit @ {url}", cwd=tmp_path).spec == f" @ {url}"
    _, commit = _clone(tmp_path / "lanekit", HTTPS)
    assert source_from_option("lanekit", cwd=tmp_path).spec == f" @ git+{HTTPS}@{commit}"


@pytest.mark.parametrize(
    "value",
    ["", "no/such/dir", "lanekit[lanes]==0.1", "file:///home/me/lanekit", "lonely"],
)
def test_the_option_refuses_what_a_runner_cannot_install(tmp_path: Path, value: str) -> None:
    _clone(tmp_path / "lonely", None)
    with pytest.raises(UsageError) as caught:
        source_from_option(value, cwd=tmp_path)
    assert repr(value) in caught.value.message or not value
    assert "CI runner cannot install from a path" in caught.value.hint


def test_the_running_lanekit_is_judged_by_where_it_came_from() -> None:
    source = running_source()
    if Path(lanes.__file__).resolve().is_relative_to(ROOT):
        assert source == source_from_checkout(ROOT)
    else:  # the built wheel (nox -s tests-wheel), installed from a local file
        assert source.spec is None or source.spec == f"=={__version__}"
    assert source.spec is None or "file:" not in source.spec


# ---------------------------------------------------------------- end to end


def _lanekit_copy(path: Path, remote: str | None) -> Path:
    """This lanekit's package and pyproject, committed in a fresh clone-like repository."""
    repo = git_repo(path)
    shutil.copytree(ROOT / "lanes", repo / "lanes", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", repo / "pyproject.toml")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "lanekit")
    if remote is not None:
        git(repo, "remote", "add", "origin", remote)
        git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    return repo


def _init_from(clone: Path, project: Path) -> subprocess.CompletedProcess[str]:
    """``lanes init`` run by the lanekit in ``clone`` (its source on sys.path), in ``project``."""
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    (project / "tests").mkdir()
    (project / "tests" / "test_demo.py").write_text("def test_ok():\n    pass\n", encoding="utf-8")
    env = {**os.environ, **GIT_ENV, "PYTHONPATH": str(clone)}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from lanes.cli import main; sys.exit(main())",
            "init",
            "--no-hook",
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _written(project: Path) -> str:
    return "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted(project.rglob("*"))
        if path.is_file() and path.suffix in (".py", ".yml", ".toml")
    )


@pytest.mark.integration  # a process and a copy of the package: about a second
def test_init_from_a_clone_with_a_remote_installs_from_that_remote(tmp_path: Path) -> None:
    clone = _lanekit_copy(tmp_path / "lanekit", HTTPS)
    commit = git(clone, "rev-parse", "HEAD").strip()
    done = _init_from(clone, tmp_path / "demo")
    assert done.returncode == 0, done.stdout + done.stderr
    noxfile = (tmp_path / "demo" / "noxfile.py").read_text(encoding="utf-8")
    assert f'LANEKIT_SOURCE = " @ git+{HTTPS}@{commit}"' in noxfile
    written = _written(tmp_path / "demo")
    assert "file://" not in written
    assert str(tmp_path) not in written
    assert "PLACEHOLDER" not in written
    assert f"origin {HTTPS} at {commit[:12]}" in done.stdout


@pytest.mark.integration  # a process and a copy of the package: about a second
def test_init_from_a_clone_without_a_remote_writes_a_placeholder_and_says_the_flag(
    tmp_path: Path,
) -> None:
    """Regression: the noxfile pinned " @ file:///…/lanekit", and CI's first run failed."""
    clone = _lanekit_copy(tmp_path / "lanekit", None)
    done = _init_from(clone, tmp_path / "demo")
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.splitlines()
    assert "a PLACEHOLDER" in summary[0]
    # Among the notes (the project's own, e.g. no testpaths, come first).
    assert any(f"lanes init --force {FIX_FLAG} SPEC" in line for line in summary[1:4])
    project = tmp_path / "demo"
    written = _written(project)
    assert "file://" not in written
    assert str(clone) not in written
    noxfile = (project / "noxfile.py").read_text(encoding="utf-8")
    assert "LANEKIT_SOURCE: str | None = None" in noxfile
    assert f"Fix: lanes init --force {FIX_FLAG} SPEC" in noxfile
    for workflow in (project / ".github" / "workflows").glob("*.yml"):
        assert "PLACEHOLDER: noxfile.py has no lanekit" in workflow.read_text(encoding="utf-8")
    # The placeholder stops a session with the fix, before pip sees anything.
    namespace: dict[str, object] = {}
    assignment = next(line for line in noxfile.splitlines() if line.startswith("LANEKIT_SOURCE"))
    function = "def lanekit(" + noxfile.split("def lanekit(", 1)[1].split("\n\n\n", 1)[0]
    exec(f"{assignment}\n{function}\n", namespace)  # noqa: S102  # the file init just wrote
    lanekit = namespace["lanekit"]
    assert callable(lanekit)
    with pytest.raises(SystemExit, match=f"fix: lanes init --force {FIX_FLAG} SPEC"):
        lanekit("lanes")
