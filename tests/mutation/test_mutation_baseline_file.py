"""The committed mutation baseline is read by the one strict reader (lanes/_jsondoc)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from lanes.errors import StateError
from lanes.mutation.baseline import read_baseline

if TYPE_CHECKING:
    from pathlib import Path


def test_a_fifo_at_the_baseline_path_is_refused_without_blocking(tmp_path: Path) -> None:
    # Regression: read_text() on a FIFO waits for a writer forever.
    path = tmp_path / "mutation.json"
    os.mkfifo(path)
    with pytest.raises(StateError, match="not a regular file") as caught:
        read_baseline(path)
    assert "lanes mutation baseline" in caught.value.hint


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "is not valid JSON"),
        ("[]", "must hold a JSON object"),
        ("[" * 3000 + "]" * 3000, "nested too deeply"),
    ],
)
def test_a_damaged_baseline_is_a_typed_error(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "mutation.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StateError, match=why):
        read_baseline(path)
