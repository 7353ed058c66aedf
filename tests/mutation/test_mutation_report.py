"""The check envelope as the report shows it: every surviving mutant in one row, in its group."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from lanes.cli import main
from tests.mutation.mutation_fixtures import mutant, shard_data, write_shard_envelope

if TYPE_CHECKING:
    import pytest

DATA = Path(__file__).with_name("data")


def test_the_report_shows_each_surviving_mutant_once_in_its_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression: a mutant killed in the baseline that survives was listed
    # both as a regression and as a new survivor, so the report showed it
    # twice (54 rows for 27 mutants).
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_RUN_ID", raising=False)
    monkeypatch.setenv("LANES_GROUP_ID", "sweep-1")
    baseline = tmp_path / "baseline.json"
    shutil.copy(DATA / "baseline-lock.json", baseline)
    # k2 was killed in the baseline (a regression); k5 is not in it (new).
    mutants = [
        mutant("k1"),
        mutant("k2", "survived"),
        mutant("k3"),
        mutant("k4", "survived"),
        mutant("k5", "survived"),
    ]
    shard = shard_data("lock", "1/1", mutants, generated=5)
    write_shard_envelope(tmp_path / "shards" / "s1.json", [shard])
    assert main(["mutation", "merge", "--expect-shards", "1", str(tmp_path / "shards")]) == 0
    merged = tmp_path / "envelopes" / "mutation" / "merged.json"
    check = ["mutation", "check", "--merged", str(merged), "--baseline", str(baseline)]
    assert main(check) == 1  # lock has graduated (2 stable runs): the regression fails
    # Only the lane's envelope: the shard and merged ones are steps on the way.
    shutil.rmtree(tmp_path / "envelopes" / "mutation")
    main(["report", "--dir", str(tmp_path / "envelopes")])
    capsys.readouterr()
    summary = (tmp_path / "envelopes" / "summary.md").read_text(encoding="utf-8")
    rows = [line for line in summary.splitlines() if "| `pkg/calc.py:2` |" in line]
    assert [row.split("|")[3].strip() for row in rows] == ["regression", "new"], rows
    assert "2 surviving mutant(s) the baseline did not have" in summary
