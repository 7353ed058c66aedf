"""The GitHub workflows stay thin and locked down (checked as text: no YAML
parser is a dependency, and these are the lines that matter)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

WORKFLOWS = Path(__file__).parents[2] / ".github" / "workflows"


@pytest.mark.parametrize("name", ["ci.yml", "nightly.yml"])
def test_locked_down(name: str) -> None:
    text = (WORKFLOWS / name).read_text(encoding="utf-8")
    assert re.search(r"^permissions:\n  contents: read\n", text, re.MULTILINE)
    assert re.search(
        r"^concurrency:\n  group: .+\n  cancel-in-progress: true\n", text, re.MULTILINE
    )
    checkouts = text.count("uses: actions/checkout@")
    assert checkouts >= 1
    assert text.count("persist-credentials: false") == checkouts
    # Thin: every `run:` step installs nox or calls a nox session.
    for command in re.findall(r"^\s+- run: (.+)$", text, re.MULTILINE):
        assert command == "python -m pip install nox" or command.startswith("nox -s "), command


def test_ci_runs_lint_and_tests_on_the_declared_pythons() -> None:
    text = (WORKFLOWS / "ci.yml").read_text(encoding="utf-8")
    assert "nox -s lint" in text
    assert "nox -s tests" in text
    pyproject = tomllib.loads((WORKFLOWS.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    declared = sorted(
        c.rsplit(" :: ", 1)[1]
        for c in pyproject["project"]["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    )
    matrix = re.search(r"python-version: \[(.+)\]", text)
    assert matrix is not None
    assert sorted(v.strip().strip('"') for v in matrix[1].split(",")) == declared


def test_nightly_runs_the_main_job_and_keeps_its_evidence() -> None:
    text = (WORKFLOWS / "nightly.yml").read_text(encoding="utf-8")
    assert "- run: nox -s lanes" in text
    assert re.search(r"^  schedule:\n    - cron: ", text, re.MULTILINE)
    assert "workflow_dispatch:" in text
    # The Hypothesis database is restored before the lanes and saved after, always.
    restore = text.index("actions/cache/restore@")
    save = text.index("actions/cache/save@")
    assert restore < text.index("- run: nox -s lanes") < save
    assert "path: .hypothesis/" in text
    uploads = re.findall(
        r"if: always\(\)\n\s+uses: actions/upload-artifact@v4\n\s+with:\n\s+name: .+\n\s+path: (\S+)",
        text,
    )
    assert set(uploads) == {".hypothesis/", "envelopes/"}
