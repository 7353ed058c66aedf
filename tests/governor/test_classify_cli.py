"""``lanes classify``: human output, the ``--json`` contract and ``--jsonl``."""

from __future__ import annotations

import json
import os
import subprocess
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from tests.support.processes import lanes_command

if TYPE_CHECKING:
    from pathlib import Path


def _lanes(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    # A strict stdin decoder, as under a UTF-8 locale without surrogateescape.
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    return subprocess.run(
        [*lanes_command(), *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
        env=env,
    )


def test_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify", "LANES_TEST_FORCE=1 uv run pytest tests/a.py -k smoke -m fast"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "filtered",
        "  pytest (filtered): LANES_TEST_FORCE=1 uv run pytest tests/a.py -k smoke -m fast",
        "    selectors: tests/a.py -k smoke",
        "    markers: fast",
        "    env: LANES_TEST_FORCE=1",
    ]


def test_human_output_of_no_test_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify", "ls -la"]) == 0
    assert capsys.readouterr().out == "none\n"


def test_json_contract(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    command = "make lint && go test ./pkg/... && pytest tests"
    assert main(["classify", "--json", "--root", str(tmp_path), command]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {
        "scope": "full",
        "invocations": [
            {
                "runner": "go",
                "scope": "filtered",
                "selectors": ["./pkg/..."],
                "segment": "go test ./pkg/...",
                "env": {},
            },
            {
                "runner": "pytest",
                "scope": "full",
                "selectors": [],
                "segment": "pytest tests",
                "env": {},
            },
        ],
    }


def test_root_decides_the_whole_tree(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = qa\n", encoding="utf-8")
    assert main(["classify", "--json", "--root", str(tmp_path), "pytest qa"]) == 0
    assert json.loads(capsys.readouterr().out)["scope"] == "full"


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify"]) == 2
    err = capsys.readouterr().err
    assert "error: no COMMAND given" in err
    assert "hint: " in err


def test_jsonl_with_a_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classify", "--jsonl", "pytest"]) == 2
    assert "hint: " in capsys.readouterr().err


@pytest.mark.integration
def test_jsonl_answers_line_by_line_in_one_process() -> None:
    lines = ["pytest", "not json", "42", '"go test ./..."', '["pytest"]', '"echo pytest"', ""]
    stdin = "\n".join(lines).encode() + b"\n" + b'"pyt\xffest"\n' + b"\xfe\xff\n"
    done = _lanes("classify", "--jsonl", stdin=stdin)
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == len(lines) + 2
    assert results[-2] == {"scope": "none", "invocations": []}  # undecodable, still answered
    assert "error" in results[-1]
    results = results[: len(lines)]
    assert len(results) == len(lines)
    assert "error" in results[0]  # a bare word is not a JSON string
    assert "line 2" in results[1]["error"]
    assert "got int" in results[2]["error"]
    assert results[3] == {
        "scope": "full",
        "invocations": [
            {
                "runner": "go",
                "scope": "full",
                "selectors": [],
                "segment": "go test ./...",
                "env": {},
            }
        ],
    }
    assert "got list" in results[4]["error"]
    assert results[5] == {"scope": "none", "invocations": []}
    assert "error" in results[6]
    assert done.returncode == 2  # bad lines are reported, after every line was answered
    assert b"hint: " in done.stderr
