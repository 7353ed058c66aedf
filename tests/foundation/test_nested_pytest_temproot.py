"""A pytest that a test starts keeps its temporary files inside this session's.

Every pytest deletes old numbered directories in its temporary root when it
exits. A child sharing /tmp/pytest-of-USER with whole earlier sessions would
delete them while its test waits, and would count toward that test's time.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest


def test_a_child_pytest_makes_its_temporary_files_inside_this_session(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    (tmp_path / "test_where.py").write_text(
        "def test_where(tmp_path):\n    print('TMP=' + str(tmp_path))\n", encoding="utf-8"
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-s", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    where = next(line[4:] for line in run.stdout.splitlines() if line.startswith("TMP="))
    session = tmp_path_factory.getbasetemp().resolve()
    assert session in Path(where).resolve().parents
