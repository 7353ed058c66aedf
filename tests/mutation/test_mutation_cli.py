"""`lanes mutation` on bad input: exit 2 with an error and a hint, nothing run."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.cli import main

if TYPE_CHECKING:
    from pathlib import Path

PYPROJECT = """\
[tool.lanes.mutation.modules.core]
paths = ["pkg/core.py"]
shards = 2
"""


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["run", "--shard", "3/2"], "error: --shard '3/2' is out of range"),
        (
            ["run", "--module", "nope"],
            "error: --module 'nope' is not in the registry (modules: core)",
        ),
        (["check"], "error: no merged mutation envelope at"),
        (["baseline"], "error: no mutation envelope at"),
        (
            ["affected", "--base", "no-such-ref"],
            "error: git diff against --base 'no-such-ref' failed",
        ),
    ],
)
def test_bad_input_is_exit_2_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], error: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    code = main(["mutation", *args, "--config", str(tmp_path / "pyproject.toml")])
    err = capsys.readouterr().err
    assert code == 2
    assert error in err
    assert "\nhint: " in err
    assert not (tmp_path / "envelopes").exists()


def test_matrix_prints_the_registry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    assert main(["mutation", "matrix", "--config", str(tmp_path / "pyproject.toml")]) == 0
    assert capsys.readouterr().out == (
        '{"include":[{"module":"core","shard":"1/2"},{"module":"core","shard":"2/2"}]}\n'
    )
