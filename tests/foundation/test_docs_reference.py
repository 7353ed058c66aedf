"""The generated reference pages and completions equal what the code renders now,
and a CLI option missing from the reference fails the check ``nox -s docs`` runs."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lanes._cli_help import walk
from lanes._docs_reference import REGENERATE, generated_files, stale_files
from lanes.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("rel", sorted(generated_files()))
def test_the_committed_file_is_what_the_code_renders(rel: str) -> None:
    committed = (ROOT / rel).read_text(encoding="utf-8")
    assert committed == generated_files()[rel](), f"{rel} is stale: run `{REGENERATE}`"


def _section(page: str, path: str) -> str:
    heading = f"## `{f'lanes {path}'.strip()}`"
    start = page.index(heading + " ")
    end = page.find("\n## ", start + 1)
    return page[start : end if end != -1 else None]


def test_every_option_of_every_command_is_in_the_cli_reference() -> None:
    page = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    missing = [
        f"lanes {path} {option}".replace("  ", " ")
        for path, parser, _help in walk(build_parser())
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction)  # every command has -h; usage shows it
        for option in action.option_strings
        if f"`{option}`" not in _section(page, path)
    ]
    assert not missing, f"{missing} not in docs/reference/cli.md: run `{REGENERATE}`"


def _copy_generated(root: Path) -> None:
    for rel in generated_files():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, root / rel)


def test_the_docs_check_fails_on_an_option_missing_from_the_reference(tmp_path: Path) -> None:
    _copy_generated(tmp_path)
    assert stale_files(tmp_path) == []
    cli = tmp_path / "docs" / "reference" / "cli.md"
    lines = cli.read_text(encoding="utf-8").splitlines(keepends=True)
    cli.write_text(
        "".join(line for line in lines if not line.startswith("| `--seed-start`")), encoding="utf-8"
    )
    # What `nox -s docs` runs before building the site.
    proc = subprocess.run(
        [sys.executable, "-m", "lanes._docs_reference", "--check", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert "stale: docs/reference/cli.md" in proc.stderr
    assert REGENERATE in proc.stderr
