"""``lanes mutation --self-check``: the lane must prove it can fail, on a project planted in tmp.

The planted module has ten mutants and tests that kill all of them. The
check passes only if, running the real lane (real mutmut, real envelopes):

1. a baseline taken over two shards with the real tests scores 1.0;
2. the same module with tests that assert nothing scores near zero and the
   ratchet against that baseline names a gating regression;
3. a merge with one of the two shards dropped is refused;
4. a suite that fails before any mutation ends the run with
   ``stage: "error"``, never a score;
5. a wrong-but-plausible fault planted in the lane's own logic
   (:mod:`lanes.payloads.planted`) is caught: mutant keys whose hash takes in
   the changed line's index inside its function. A docstring added to the
   planted function above a mutated line must leave the mutant's key (and so
   its history and its entry in the equivalents list) as it was; under the
   planted fault the key changes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes._planted import judge
from lanes.config import load_config, parse_config
from lanes.envelope import lane_run, read_envelope
from lanes.exitcodes import ExitCode, exit_rule
from lanes.lane import drive
from lanes.mutation.baseline import Baseline
from lanes.mutation.keys import MutantSource, describe_mutants
from lanes.mutation.lane import RunLane
from lanes.mutation.merge import merge_shards, registry_paths
from lanes.mutation.ratchet import ratchet
from lanes.mutation.runner import MutmutRunError, find_mutmut

if TYPE_CHECKING:
    from lanes.config import Config
    from lanes.payloads.mutation import MutationPlantedCheck, MutationSelfCheck
    from lanes.payloads.planted import PlantedFault

__all__ = ["PLANTED_MODULE", "planted_key_fault", "self_check"]

PLANTED_MODULE: Final = """\
def price(quantity, unit):
    if quantity > 10:
        return quantity * unit - 5
    return quantity * unit


def label(count):
    if count == 1:
        return "1 item"
    return f"{count} items"
"""
_REAL_TESTS: Final = """\
from pkg.planted import label, price


def test_price():
    assert price(3, 3) == 9
    assert price(10, 2) == 20
    assert price(11, 2) == 17


def test_label():
    assert label(1) == "1 item"
    assert label(2) == "2 items"
"""
# Runs every line, asserts nothing: full coverage, no protection.
_WEAK_TESTS: Final = """\
from pkg.planted import label, price


def test_price():
    price(3, 3)
    price(11, 2)


def test_label():
    label(1)
    label(2)
"""
_BROKEN_TESTS: Final = """\
from pkg.planted import price


def test_price():
    assert price(3, 3) == 10
"""
_WEAK_SCORE_CEILING: Final = 0.2
_CHECKS: Final = 5  # the numbered checks of the module docstring

# The mutant the key check describes: mutmut's comparison-operator mutation.
_MUTANT_NAME: Final = "pkg.planted.x_price__mutmut_1"
_PRICE_DEF: Final = "def price(quantity, unit):\n"
_PRICE_DOC: Final = '    """The price of ``quantity`` units, five off past ten."""\n'


def _mutmut_copies(source: str) -> str:
    """``price`` of ``source`` laid out as mutmut 3 writes its mutants file: the
    original as ``x_price__mutmut_orig`` and the mutant ``>`` -> ``>=``."""
    function = source[source.index(_PRICE_DEF) : source.index("\n\n\n")] + "\n"
    orig = function.replace("def price(", "def x_price__mutmut_orig(", 1)
    mutant = function.replace("def price(", "def x_price__mutmut_1(", 1)
    return orig + mutant.replace("if quantity > 10:", "if quantity >= 10:", 1)


def _described(source: str) -> MutantSource:
    return describe_mutants("pkg/planted.py", source, _mutmut_copies(source), [_MUTANT_NAME])[
        _MUTANT_NAME
    ]


def _with_line_index(mutant: MutantSource, source: str) -> str:
    """The planted fault: the key also hashes the changed line's index in its function."""
    index = (mutant.line or 0) - (source.splitlines().index(_PRICE_DEF.rstrip("\n")) + 1)
    return f"{mutant.key}@{index}"


def planted_key_fault() -> PlantedFault:
    """Keys before and after a docstring is added above the mutated line, real and planted."""
    documented = PLANTED_MODULE.replace(_PRICE_DEF, _PRICE_DEF + _PRICE_DOC, 1)
    before, after = _described(PLANTED_MODULE), _described(documented)
    real = "same key" if before.key == after.key else "the key changed"
    faulty = (_with_line_index(before, PLANTED_MODULE), _with_line_index(after, documented))
    return judge(
        "mutant keys that hash the changed line's index inside its function "
        "(a docstring added above the change re-keys the mutant)",
        expected="same key",
        real=real,
        planted="same key" if faulty[0] == faulty[1] else "the key changed",
    )


def plant(root: Path, tests: str = _REAL_TESTS) -> Config:
    """Write the planted project under ``root``; return its configuration."""
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    (root / "tests").mkdir(exist_ok=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "planted.py").write_text(PLANTED_MODULE, encoding="utf-8")
    (root / "tests" / "test_planted.py").write_text(tests, encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "planted"\nversion = "0"\n', encoding="utf-8"
    )
    return parse_config(
        {
            "mutation": {
                "required_stable_runs": 0,
                "modules": {
                    "planted": {
                        "paths": ["pkg/planted.py"],
                        "tests": ["tests/test_planted.py"],
                        "shards": 2,
                    }
                },
            }
        },
        root=root,
        source=root / "pyproject.toml",
    )


def run_planted(config: Config, shard: str, out: Path) -> tuple[int, Path]:
    """One shard of the planted module through the real lane; (exit code, envelope path)."""
    ns = argparse.Namespace(module=None, shard=shard, out=str(out), max_children=None)
    lane = RunLane()
    options = lane.resolve(ns, config)
    out.mkdir(parents=True, exist_ok=True)
    try:
        code = drive(lane, ns, config=config, path=options.envelope)
    except MutmutRunError as exc:
        code = exit_rule(exc).code  # what `lanes mutation run` exits with
    return code, options.envelope


def _record(checks: list[MutationPlantedCheck], name: str, *, ok: bool, observed: str) -> None:
    checks.append({"name": name, "ok": ok, "observed": observed})
    print(f"self-check: {'ok  ' if ok else 'FAIL'} {name}: {observed}", file=sys.stderr)


def _sweep(config: Config, checks: list[MutationPlantedCheck], work: Path) -> None:
    root = config.root
    strong = [run_planted(config, f"{i}/2", work / "strong") for i in (1, 2)]
    merged = merge_shards(
        [path for _, path in strong], expect_shards=2, registry=registry_paths(config)
    )
    verdicts, baseline = ratchet(merged.modules, Baseline(), required_stable_runs=0)
    strong_score = verdicts[0].score if verdicts else None
    _record(
        checks,
        "real tests kill every planted mutant (two shards, merged)",
        ok=not merged.problems and strong_score == 1.0,
        observed=f"score {strong_score}; problems {merged.problems}",
    )
    dropped = merge_shards([strong[0][1]], expect_shards=2, registry=registry_paths(config))
    _record(
        checks,
        "a merge with one shard dropped is refused",
        ok=bool(dropped.problems) and not dropped.modules,
        observed="; ".join(dropped.problems) or "merged anyway",
    )
    (root / "tests" / "test_planted.py").write_text(_WEAK_TESTS, encoding="utf-8")
    _, weak_path = run_planted(config, "1/1", work / "weak")
    weak = merge_shards([weak_path], expect_shards=1, registry=registry_paths(config))
    weak_verdicts, _ = ratchet(weak.modules, baseline, required_stable_runs=0)
    verdict = weak_verdicts[0] if weak_verdicts else None
    ok = (
        verdict is not None
        and verdict.fails
        and verdict.score is not None
        and verdict.score <= _WEAK_SCORE_CEILING
        and bool(verdict.regressions)
    )
    _record(
        checks,
        "tests that assert nothing score near zero and fail the ratchet",
        ok=ok,
        observed="no result"
        if verdict is None
        else (
            f"score {verdict.score} vs baseline {verdict.baseline_score}, verdict {verdict.verdict}, "
            f"{len(verdict.regressions)} regression(s); merge problems {weak.problems}"
        ),
    )
    (root / "tests" / "test_planted.py").write_text(_BROKEN_TESTS, encoding="utf-8")
    code, broken_path = run_planted(config, "1/1", work / "broken")
    stage = read_envelope(broken_path).get("stage") if broken_path.is_file() else None
    has_score = (
        bool(read_envelope(broken_path).get("data", {}).get("shards"))
        if broken_path.is_file()
        else False
    )
    _record(
        checks,
        "a suite failing before any mutation ends in stage 'error', no score",
        ok=code == ExitCode.CRASH and stage == "error" and not has_score,
        observed=f"exit {int(code)}, stage {stage!r}, scored {has_score}",
    )
    key_fault = planted_key_fault()
    _record(
        checks,
        f"planted fault caught: {key_fault['fault']}",
        ok=key_fault["caught"],
        observed=f"the lane: {key_fault['real']}; the planted fault: {key_fault['planted']}",
    )


def self_check(ns: argparse.Namespace) -> int:
    config = load_config(getattr(ns, "config", None))
    find_mutmut()
    checks: list[MutationPlantedCheck] = []
    path = config.root / config.envelope_dir / "mutation-self-check.json"
    # lane_run marks an error from here on as exit 3, not "nothing ran".
    with lane_run("mutation", config=config, sections=("mutation",), path=path) as run:
        # The planted shards are one sweep: they share a group_id, as a CI run's do.
        previous = os.environ.get("LANES_GROUP_ID")
        os.environ["LANES_GROUP_ID"] = f"self-check-{uuid.uuid4()}"
        try:
            with tempfile.TemporaryDirectory(prefix="lanes-mutation-self-check-") as tmp:
                planted = plant(Path(tmp) / "project")
                _sweep(planted, checks, Path(tmp) / "envelopes")
        finally:
            if previous is None:
                del os.environ["LANES_GROUP_ID"]
            else:
                os.environ["LANES_GROUP_ID"] = previous
            # A self-check that crashes still shows the checks it finished.
            payload: MutationSelfCheck = {"kind": "self-check", "checks": checks}
            run.publish(payload)
        run.verdict(passed=len(checks) == _CHECKS and all(check["ok"] for check in checks))
    passed = bool(run.passed)
    print(f"self-check: {'pass' if passed else 'FAIL'} ({path})", file=sys.stderr)
    return ExitCode.OK if passed else ExitCode.FAIL
