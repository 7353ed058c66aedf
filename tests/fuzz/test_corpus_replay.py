"""Replay every promoted fuzz case (baselines/fuzz-regressions.json) through the watchdog.

A case lands here by ``lanes fuzz --input-file ... --append-corpus``. Each one
must now be handled cleanly: accepted, or rejected with a typed error and a
hint. A promoted hang fails after one case budget; it cannot wedge the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lanes.config import load_config
from lanes.fuzz.artifacts import load_corpus
from lanes.fuzz.lane import corpus_path, replay_corpus

_CONFIG = load_config(Path(__file__).resolve().parents[2] / "pyproject.toml")


def test_corpus_file_is_a_readable_v1_corpus() -> None:
    load_corpus(corpus_path(_CONFIG))


@pytest.mark.integration  # starts one worker process per target in the corpus
def test_every_promoted_case_is_handled_cleanly() -> None:
    failed = [
        f"{entry.id} ({entry.target}, was {entry.kind}): {outcome.summary()}"
        for entry, outcome in replay_corpus(_CONFIG)
        if outcome.failed
    ]
    assert not failed, "promoted fuzz cases fail again:\n" + "\n".join(failed)
