"""weekly-mutation.yml: thin, least-privilege, and wired plan -> shards -> merge (checked as text)."""

from __future__ import annotations

import re
from pathlib import Path

TEXT = (Path(__file__).parents[2] / ".github" / "workflows" / "weekly-mutation.yml").read_text(
    encoding="utf-8"
)


def test_scheduled_and_dispatchable_and_locked_down() -> None:
    assert re.search(r"^  schedule:\n    - cron: ", TEXT, re.MULTILINE)
    assert "  workflow_dispatch:\n" in TEXT
    assert re.search(r"^permissions: \{\}", TEXT, re.MULTILINE)
    jobs = TEXT.count("    runs-on: ubuntu-latest")
    assert jobs == 3
    assert TEXT.count("    timeout-minutes: ") == jobs
    assert TEXT.count("    permissions:\n      contents: read\n") == jobs
    assert TEXT.count("persist-credentials: false") == TEXT.count("uses: actions/checkout@")
    # Every action pinned to a full commit SHA.
    for ref in re.findall(r"uses: (\S+)", TEXT):
        assert re.fullmatch(r"[\w-]+/[\w-]+@[0-9a-f]{40}", ref), ref


def test_thin_every_step_is_nox() -> None:
    for command in re.findall(r"^\s+(?:- )?run: (.+)$", TEXT, re.MULTILINE):
        assert command == "python -m pip install nox uv" or command.startswith("nox -s "), command


def test_a_plan_feeds_shards_that_feed_a_merge_that_expects_all_of_them() -> None:
    assert "nox -s mutation -- plan --output plan --github-output" in TEXT
    assert "matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}" in TEXT
    # The shards download the plan job's artifact and run from it.
    assert TEXT.count("name: mutation-plan-${{ github.run_id }}") == 2
    assert TEXT.index("upload-artifact") < TEXT.index("download-artifact")
    assert (
        'nox -s mutation -- run --module "${MODULE}" --shard "${SHARD}" --plan plan --out shards'
        in TEXT
    )
    assert "EXPECT_SHARDS: ${{ needs.plan.outputs.count }}" in TEXT
    assert "needs: [plan, shard]" in TEXT
    assert 'merge --expect-shards "${EXPECT_SHARDS}"' in TEXT
    assert TEXT.index("-- merge ") < TEXT.index("nox -s mutation -- check")
    names = re.findall(r"name: (mutation-[\w-]+-\$\{\{.+)", TEXT)
    assert any("strategy.job-index" in name and "github.run_id" in name for name in names)
    assert TEXT.count("retention-days:") == TEXT.count("uses: actions/upload-artifact@")
    assert "envelopes/mutation/proposed-baseline.json" in TEXT
    assert "envelopes/mutation/mutation.html" in TEXT
