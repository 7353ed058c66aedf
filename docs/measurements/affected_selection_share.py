"""The share of test files `lanes affected` selects for `--recall`'s plants, without running them.

    python docs/measurements/affected_selection_share.py PROJECT N [--map FILE]

`lanes affected --recall N` plants a bug in N functions (a fixed seed) and
runs the whole suite for each, to check every failing test was selected: on
lanekit itself that is N runs of a suite of several CPU minutes. This script
takes the same N plants and makes only the plans, with the recorded map (else
PROJECT/envelopes/affected-map.json) and without: the selection share, per
plant and mean, in minutes instead of hours. Recall needs `--recall`.
PROJECT must be a clean git checkout of the commit the map was recorded on
(each plant is reverted with `git checkout`).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
from pathlib import Path

from lanes.affected.changes import changed_files, tracked_files
from lanes.affected.lane import build_plan
from lanes.affected.plan import Project, make_plan
from lanes.affected.recall import SEED, _plant, plant_sites
from lanes.affected.record import default_map_path
from lanes.affected.testmap import read_map
from lanes.config import load_config


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("project", type=Path)
    parser.add_argument("count", type=int)
    parser.add_argument("--map", type=Path)
    ns = parser.parse_args()
    root: Path = ns.project.resolve()
    config = load_config(cwd=root)
    files = tracked_files(root)
    tests = Project.scan(config, files).tests
    # Plant only in committed files: each plant is undone with `git checkout`,
    # which cannot restore an untracked file (a virtualenv inside the checkout).
    committed = set(
        subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    sites = [site for site in plant_sites(root, files, set(tests)) if site[0] in committed]
    # The same reproducible choice as --recall, not a secret.
    chosen = random.Random(SEED).sample(sites, min(ns.count, len(sites)))  # noqa: S311
    mapped: list[float] = []
    static: list[float] = []
    # Tests per file, as recorded: a file the plan runs whole counts all of them.
    recorded = read_map(ns.map or default_map_path(config))
    per_file: dict[str, int] = {}
    for test in recorded.document["tests"] if recorded is not None else []:
        per_file[test["file"]] = per_file.get(test["file"], 0) + 1
    total_tests = sum(per_file.values()) or 1
    id_shares: list[float] = []
    for path, function, line in chosen:
        _plant(root / path, line)
        try:
            with_map = build_plan(config, "HEAD", ns.map)
            # The same change with the static rules alone (no map at all).
            alone = make_plan(Project.scan(config, files), changed_files(root, "HEAD"))
        finally:
            subprocess.run(["git", "checkout", "--", path], cwd=root, check=True)
        share = len(with_map.tests) / len(tests)
        mapped.append(share)
        ids = sum(
            len(with_map.nodes[f]) if f in with_map.nodes else per_file.get(f, 0)
            for f in with_map.tests
        )
        id_shares.append(ids / total_tests)
        row = {
            "plant": f"{path}:{function}",
            "map_files": len(with_map.tests),
            "node_ids": sum(len(ids) for ids in with_map.nodes.values()),
            "test_ids": ids,
            "files": sorted(with_map.tests),
            "narrowed_files": len(with_map.nodes),
            "full": with_map.full,
            "detail": with_map.selections[0].detail[:120],
        }
        static.append(len(alone.tests) / len(tests))
        row["static_files"] = len(alone.tests)
        print(json.dumps(row), flush=True)
    print(
        "SUMMARY",
        json.dumps(
            {
                "test_files": len(tests),
                "plants": len(chosen),
                "map": with_map.map_state,
                "mean_share_with_map": round(sum(mapped) / len(mapped), 4),
                "mean_share_static": round(sum(static) / len(static), 4),
                "recorded_tests": total_tests,
                "mean_test_id_share_with_map": round(sum(id_shares) / len(id_shares), 4),
            }
        ),
    )


if __name__ == "__main__":
    main()
