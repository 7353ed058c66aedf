"""File options of `lanes mutation` verbs are paths: the envelope is written where asked."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lanes.cli import main
from tests.mutation.mutation_fixtures import (
    LOCK_PYPROJECT,
    mutant,
    shard_data,
    write_shard_envelope,
)

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_check_writes_its_envelope_where_envelope_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression: --envelope reached the envelope writer as a str and crashed
    # (exit 3, AttributeError) after the check had run.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(LOCK_PYPROJECT, encoding="utf-8")
    monkeypatch.delenv("GITHUB_RUN_ID", raising=False)
    monkeypatch.setenv("LANES_GROUP_ID", "sweep-1")
    shard = shard_data("lock", "1/1", [mutant("k1"), mutant("k2", "survived")], generated=2)
    write_shard_envelope(tmp_path / "shards" / "s1.json", [shard])
    merged = tmp_path / "envelopes" / "mutation" / "merged.json"  # merge's default
    merge = ["mutation", "merge", "--expect-shards", "1", str(tmp_path / "shards")]
    assert main(merge) == 0
    target = tmp_path / "out" / "check.json"
    code = main(["mutation", "check", "--merged", str(merged), "--envelope", str(target)])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    assert "crashed" not in err
    envelope = json.loads(target.read_text(encoding="utf-8"))
    assert (envelope["lane"], envelope["stage"]) == ("mutation", "complete")
