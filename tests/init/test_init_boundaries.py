"""``lanes init`` in a tree someone else arranged: it writes inside
the project or not at all, never blocks on what it reads, and pastes no value
into a generated file unescaped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tomllib
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from tests.init.test_init import USER_PYPROJECT, _project, _snapshot

if TYPE_CHECKING:
    from pathlib import Path

THEIRS = b"# someone else's README\n"


def _dir(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "README.md").write_bytes(THEIRS)
    return outside


@pytest.mark.parametrize("linked", ["envelopes", ".github", ".claude", ".github/workflows"])
@pytest.mark.parametrize("force", [False, True])
def test_a_symlinked_directory_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], linked: str, force: bool
) -> None:
    root = _project(_dir(tmp_path))
    outside = _outside(tmp_path)
    (root / linked).parent.mkdir(parents=True, exist_ok=True)
    (root / linked).symlink_to(outside)
    before = _snapshot(root)
    code = main(["init", "--root", str(root), *(["--force"] if force else [])])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "is a symlink" in err
    assert "hint: " in err
    assert "Traceback" not in err
    assert sorted(p.name for p in outside.iterdir()) == ["README.md"]
    assert (outside / "README.md").read_bytes() == THEIRS
    assert _snapshot(root) == before


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", ["noxfile.py", "pyproject.toml", ".gitignore"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_fifo_or_a_device_is_refused_without_blocking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, kind: str
) -> None:
    root = _project(_dir(tmp_path))
    (root / name).unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(root / name)
    else:
        (root / name).symlink_to("/dev/zero")
    code = main(["init", "--root", str(root)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert name in err
    assert "Traceback" not in err
    assert not (root / ".github").exists()


def test_a_project_name_with_quotes_gives_a_noxfile_that_compiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = 'demo""" + __import__("os").system("id") + """\\'
    pyproject = USER_PYPROJECT.replace('name   =   "demo"', f"name = '''{hostile}'''")
    root = _project(_dir(tmp_path), pyproject)
    assert main(["init", "--root", str(root), "--no-hook"]) == 0, capsys.readouterr().err
    source = (root / "noxfile.py").read_text(encoding="utf-8")
    code = compile(source, "noxfile.py", "exec")
    assert code.co_consts[0].startswith(f"Lanes for {hostile}:")  # the docstring, verbatim


@pytest.mark.parametrize("python", ['3.12"\n    evil: true', "3.12 ", "latest", ""])
def test_python_is_validated_before_it_reaches_the_workflows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], python: str
) -> None:
    root = _project(_dir(tmp_path))
    before = _snapshot(root)
    assert main(["init", "--root", str(root), "--python", python]) == 2
    assert "--python must be a Python version" in capsys.readouterr().err
    assert _snapshot(root) == before


def test_a_crlf_pyproject_is_kept_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crlf = USER_PYPROJECT.replace("\n", "\r\n")
    root = _project(_dir(tmp_path))
    (root / "pyproject.toml").write_bytes(crlf.encode())
    (root / ".gitignore").write_bytes(b"__pycache__/\r\n")
    assert main(["init", "--root", str(root), "--no-hook"]) == 0, capsys.readouterr().err
    data = (root / "pyproject.toml").read_bytes()
    assert data.startswith(crlf.encode())
    assert b"\n" not in data.replace(b"\r\n", b"")  # every line ends in CRLF
    assert "lanes" in tomllib.loads(data.decode())["tool"]
    ignore = (root / ".gitignore").read_bytes()
    assert ignore.startswith(b"__pycache__/\r\n")
    assert b"\n" not in ignore.replace(b"\r\n", b"")


def test_a_configured_envelope_dir_is_honoured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(_dir(tmp_path), USER_PYPROJECT + '\n[tool.lanes]\nenvelope_dir = "out/lanes"\n')
    assert main(["init", "--root", str(root), "--no-hook"]) == 0
    out = capsys.readouterr().out
    assert (root / "out" / "lanes" / "README.md").is_file()
    assert not (root / "envelopes").exists()
    ignored = (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert {"/out/lanes/*", "!/out/lanes/README.md"} <= set(ignored)
    assert "out/lanes/summary.md" in out


def test_hook_settings_install_would_refuse_stop_init_before_any_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(_dir(tmp_path))
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("{", encoding="utf-8")
    before = _snapshot(root)
    assert main(["init", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "install will refuse it" in err
    assert "Traceback" not in err
    assert _snapshot(root) == before


def _limit_file_size() -> None:
    import resource  # noqa: PLC0415  # in the child only

    # Past the first write (pyproject.toml), short of noxfile.py: a real
    # write failure after init began, as a full disk would give.
    resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill


def test_a_write_that_fails_after_init_began_is_exit_3_and_undone(tmp_path: Path) -> None:
    root = _project(_dir(tmp_path))
    before = _snapshot(root)
    proc = subprocess.run(
        [sys.executable, "-m", "lanes", "init", "--root", str(root), "--no-hook"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=_limit_file_size,  # a single-threaded test process
    )
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "could not write" in proc.stderr
    assert "restored" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert _snapshot(root) == before  # pyproject.toml, written first, is back as it was
