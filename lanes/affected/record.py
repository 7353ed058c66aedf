"""``lanes affected --record``: run the suite once under the recorder and write the map; load a map for a plan.

The recording run is pytest as the project configures it (its testpaths and
addopts), plus ``-p lanes.affected.recorder`` for this run only, serial
(``-p no:xdist``: the recorder sees one process), in the environment lanekit
measures in. The map is written only when the run could record: a tree with
uncommitted Python changes has no commit to key the map by. The recorder is
handed the project's computed-import call sites (the static scan's), to note
which of them ran.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lanes.affected.changes import tracked_files
from lanes.affected.discover import read_rules
from lanes.affected.recorder import ENV_HYPOTHESIS_SEED, ENV_OUTPUT, ENV_SITES
from lanes.affected.rules import Project
from lanes.affected.testmap import (
    MAP_FILE_NAME,
    build_map,
    config_digest,
    head_commit,
    read_map,
    write_map,
)
from lanes.errors import UsageError

if TYPE_CHECKING:
    from lanes.affected.mapdoc import TestMapDocument
    from lanes.affected.testmap import TestMap
    from lanes.config import Config

__all__ = ["RecordResult", "default_map_path", "load_map", "record_map"]


def default_map_path(config: Config) -> Path:
    return config.root / config.envelope_dir / MAP_FILE_NAME


@dataclass(frozen=True)
class RecordResult:
    path: Path
    tests: int
    unvouched: int
    # Which Hypothesis tests are vouched for, and what for (_seeded_note).
    seeded: str
    nodes: int
    exit_code: int
    cpu_seconds: float
    wall_seconds: float


def _digest(config: Config) -> str:
    rules = read_rules(config.root, config.affected.test_patterns)
    return config_digest(config.root, rules)


def _dirty_python(root: Path) -> list[str]:
    proc = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", "-z"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    entries = [e.decode()[3:] for e in proc.stdout.split(b"\0") if len(e) > 3]
    return [path for path in entries if path.endswith(".py")]


def record_map(config: Config, env: dict[str, str], target: Path | None) -> RecordResult:
    root = config.root
    commit = head_commit(root)
    if commit is None:
        msg = f"lanes affected --record needs a commit to key the map by; {str(root)!r} has none"
        raise UsageError(
            msg, hint="commit first, then record: git commit -m ... && lanes affected --record"
        )
    dirty = _dirty_python(root)
    if dirty:
        msg = f"lanes affected --record needs committed Python files; uncommitted: {', '.join(dirty[:5])}"
        raise UsageError(
            msg, hint="commit or stash the changes first: the map's line ranges are the commit's"
        )
    path = target if target is not None else default_map_path(config)
    with tempfile.TemporaryDirectory(prefix="lanes-record-") as scratch:
        raw = Path(scratch) / "raw.json"
        sites = Path(scratch) / "sites.json"
        project = Project.scan(config, tracked_files(root))
        sites.write_text(
            json.dumps([[spot.file, spot.line, spot.end] for spot in project.computed]),
            encoding="utf-8",
        )
        argv = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "lanes.affected.recorder",
            "-p",
            "no:xdist",
        ]
        run_env = {**env, ENV_OUTPUT: str(raw), ENV_SITES: str(sites)}
        if config.affected.hypothesis_seed is not None:
            run_env[ENV_HYPOTHESIS_SEED] = str(config.affected.hypothesis_seed)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        code = subprocess.run(argv, cwd=root, env=run_env, check=False).returncode
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if not raw.is_file():
            msg = f"the recording run wrote no recording (pytest exit {code}): {' '.join(argv)}"
            raise UsageError(msg, hint="run that command yourself to see why pytest stopped")
        document = build_map(raw, root, commit, _digest(config))
    write_map(path, document)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return RecordResult(
        path=path,
        tests=len(document["tests"]),
        unvouched=sum(1 for t in document["tests"] if "unvouched" in t),
        seeded=_seeded_note(document),
        nodes=len(document["nodes"]),
        exit_code=code,
        cpu_seconds=round(cpu, 2),
        wall_seconds=round(wall, 2),
    )


def load_map(config: Config, given: Path | None) -> tuple[TestMap | None, str]:
    """The map to narrow a plan with, and the one sentence saying which, or why none."""
    path = given if given is not None else default_map_path(config)
    test_map = read_map(path)
    if test_map is None:
        if given is not None:
            msg = f"--map {str(given)!r} does not exist"
            raise UsageError(msg, hint="record one with `lanes affected --record`, or fix the path")
        return None, "no recorded map: static rules only (record one: lanes affected --record)"
    digest = _digest(config)
    if test_map.document["config_digest"] != digest:
        return None, (
            f"the map {str(path)!r} is from another configuration "
            f"({test_map.document['config_digest']} != {digest}): static rules only"
        )
    known = subprocess.run(
        ["git", "cat-file", "-e", f"{test_map.commit}^{{commit}}"],
        cwd=config.root,
        capture_output=True,
        check=False,
    )
    if known.returncode != 0:
        return (
            None,
            f"the map's commit {test_map.commit[:12]} is not in this repository: static rules only",
        )
    recorded = len(test_map.document["tests"])
    where = os.path.relpath(path, config.root)
    seeded = _seeded_note(test_map.document)
    return test_map, f"using {where} (commit {test_map.commit[:12]}, {recorded} tests{seeded})"


def _seeded_note(document: TestMapDocument) -> str:
    """What the map's vouching for Hypothesis tests assumes, when it does."""
    seeded = sum(1 for t in document["tests"] if t.get("seeded"))
    if not seeded:
        return ""
    seed = document["hypothesis_seed"]
    drew = f"with --hypothesis-seed={seed}" if seed is not None else "derandomized"
    tests, are = ("tests", "are") if seeded > 1 else ("test", "is")
    return (
        f"; {seeded} Hypothesis {tests} drew {drew} and {are} vouched for: "
        "the same seed draws the same examples"
    )
