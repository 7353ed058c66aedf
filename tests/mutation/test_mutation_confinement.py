"""A shard or merged envelope is a CI artifact: the mutant paths in it are data.

``lanes mutation check`` read whatever file a mutant's
``path`` named (``/proc/self/environ``, ``../../etc/hostname``) into
``mutation.json`` and ``mutation.html``, which the weekly workflow uploads.
Paths are now confined to the module's registry paths, and nothing else is read.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lanes.cli import main
from lanes.mutation.merge import MergedModule
from lanes.mutation.results import MutantRecord
from tests.mutation.mutation_fixtures import (
    LOCK_PYPROJECT,
    PROVENANCE,
    mutant,
    write_merged_envelope,
)

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

SECRET = "TOKEN=hunter2-from-outside"  # noqa: S105  # a planted file's text, not a credential


def test_check_never_reads_a_mutant_path_outside_the_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "secret.env"
    outside.write_text(SECRET, encoding="utf-8")
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "calc.py").write_text("def f():\n    return old\n", encoding="utf-8")
    (project / "pyproject.toml").write_text(LOCK_PYPROJECT, encoding="utf-8")
    monkeypatch.chdir(project)
    monkeypatch.setenv("LANES_GROUP_ID", "sweep-1")
    hostile = [mutant("k1", "survived"), mutant("k2", "survived"), mutant("k3")]
    hostile[0]["path"] = str(outside)
    hostile[1]["path"] = "../secret.env"
    module = MergedModule(
        name="lock",
        shards=["1/1"],
        provenance={key: str(value) for key, value in PROVENANCE.items()},
        mutants=[MutantRecord.from_dict(dict(raw)) for raw in hostile],
        duration_ms=1,
        slowest_shard_ms=1,
        phases_ms={},
    )
    merged = write_merged_envelope(project / "merged.json", {"lock": module.to_dict()})
    target = project / "check.json"
    code = main(["mutation", "check", "--merged", str(merged), "--envelope", str(target)])
    capsys.readouterr()
    assert code == 1
    reports = project / "envelopes" / "mutation"
    for name in ("mutation.json", "mutation.html"):
        report = reports / name
        assert not report.exists() or SECRET not in report.read_text(encoding="utf-8")
    problems = json.loads(target.read_text(encoding="utf-8"))["data"]["problems"]
    assert any(repr(str(outside)) in p and "registry paths" in p for p in problems), problems
    assert any("'../secret.env'" in p for p in problems), problems
