"""Each lane's view answers its reviewer's question; unknown or unreadable payloads stay visible."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from lanes.report.render import build_report
from tests.report.lane_payloads import (
    bench_data,
    fuzz_data,
    fuzz_failure,
    mutation_check_data,
    offender,
    pin,
    slow_data,
    timing_data,
    torture_data,
    violation,
)
from tests.report.report_fixtures import HOSTILE, write_lane

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.payloads.planted import PlantedFault
    from lanes.payloads.slow import SlowSelfCheckOutcome
    from lanes.report.render import Report


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "LANES_GROUP_ID", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)


def _report(root: Path) -> Report:
    directory = root / "envelopes"
    return build_report(
        directory, out_md=directory / "summary.md", out_html=directory / "index.html"
    )


def test_slow_shows_the_offender_with_its_fix_and_each_pin_state(tmp_path: Path) -> None:
    data = slow_data(
        offenders=[offender("tests/test_b.py::test_sleepy", 3200)],
        pins=[
            pin("tests/test_c.py::test_holding", "holding", 2500),
            pin("tests/test_c.py::test_fast_now", "removable", 200),
        ],
    )
    write_lane(tmp_path, "slow", "fail", data)
    report = _report(tmp_path)
    assert report.view.lanes[0].status == "fail"
    md = report.markdown
    assert "| ❌ | `tests/test_b.py::test_sleepy` | unit | 3.2 s | 1.0 s | 2.0 s | no |" in md
    # The fix a reviewer can paste, with the ceiling the CLI would suggest (3.2 s × 1.25).
    assert (
        "lanes slow pin tests/test_b.py::test_sleepy --reason '<why it is slow>' --tracking '<issue>' --ceiling 4"
        in md
    )
    # Pins by name, not as pins[1].state, and what each state means.
    assert "| `tests/test_c.py::test_fast_now` | removable |" in md
    assert "removable: within the tier budget run after run: the pin protects nothing" in md
    assert "holding: over the tier budget, within its ceiling" in md
    assert "pins[1].state" not in md
    # The per-tier distribution chart, with its text alternative.
    assert "<title>Tests per tier against the tier budget</title>" in report.html
    # The chart's counts agree with the ratchet's verdicts (its legend carries them).
    assert "band (1× to limit): 1<" in report.html
    assert "over the limit: 1<" in report.html
    assert "≤ ¼ budget: 2<" in report.html  # 5 ms and 40 ms of a 1 s budget


def test_fuzz_shows_failures_with_repro_and_promote_and_explains_the_overhead(
    tmp_path: Path,
) -> None:
    write_lane(
        tmp_path, "fuzz", "fail", fuzz_data(failures=[fuzz_failure("ledger", HOSTILE)], run=0.35)
    )
    report = _report(tmp_path)
    md = report.markdown
    assert "lanes fuzz --input-file envelopes/fuzz/ledger-untyped-23a6a3302f92.json\n" in md
    assert (
        "lanes fuzz --input-file envelopes/fuzz/ledger-untyped-23a6a3302f92.json --append-corpus"
        in md
    )
    assert "Watchdog overhead: every case runs in a watchdog process" in md
    assert "MISS: over the goal" in md  # 35% of the run against a 20% goal
    assert "<title>Cases per second per target</title>" in report.html
    assert "<script>" not in report.html  # the hostile message stays escaped
    assert "&lt;script&gt;" in report.html


def test_a_users_fuzz_report_has_no_verdict_on_lanekits_own_watchdog_goal(
    tmp_path: Path,
) -> None:
    # Regression: a MISS box about lanekit's own watchdog goal appeared in a
    # user's report. Outside lanekit's repository the lane writes no goal, and
    # the report shows the figures without a verdict.
    write_lane(tmp_path, "fuzz", "pass", fuzz_data(run=0.35, goal=None))
    report = _report(tmp_path)
    assert "Watchdog overhead: every case runs in a watchdog process" in report.markdown
    assert "MISS" not in report.markdown
    assert "goal" not in report.markdown
    assert 'class="callout miss"' not in report.html


@pytest.mark.parametrize(
    ("real", "caught", "line"),
    [
        (
            "partial: stopped early",
            True,
            (
                "self-check: planted fault caught: forgets an early stop (expected partial: "
                "stopped early; the ratchet: partial: stopped early; the planted fault: not partial)"
            ),
        ),
        (
            "not partial",
            False,
            (
                "self-check: planted fault NOT caught: forgets an early stop (expected partial: "
                "stopped early; the ratchet: not partial; the planted fault: not partial)"
            ),
        ),
    ],
)
def test_slow_names_the_fault_its_self_check_planted_and_whether_it_was_caught(
    tmp_path: Path, real: str, caught: bool, line: str
) -> None:
    data = slow_data()
    outcome: SlowSelfCheckOutcome = {
        "pytest_exit": 1,
        "offenders": ["t.py::test_slow"],
        "band": ["t.py::test_band"],
    }
    plant: PlantedFault = {
        "fault": "forgets an early stop",
        "expected": "partial: stopped early",
        "real": real,
        "planted": "not partial",
        "caught": caught,
    }
    data["self_check"] = {
        "passed": caught,
        "expected": outcome,
        "observed": outcome,
        "planted": [plant],
    }
    write_lane(tmp_path, "slow", "pass" if caught else "fail", data)
    md = _report(tmp_path).markdown
    assert "self-check: the ratchet failed the planted slow test, as it must" in md
    assert line in md


def test_torture_shows_violations_with_replay_lines_and_the_self_check_table(
    tmp_path: Path,
) -> None:
    write_lane(tmp_path, "torture", "fail", torture_data(violations=[violation(17)]))
    report = _report(tmp_path)
    md = report.markdown
    assert "lanes torture --seed 17 --clients 4 --ops 40" in md
    assert "foreign-lock" in md
    assert "**Self-check (a bug counts as caught when either scheduler catches it)**" in md
    assert "| ✅ | no-ttl | pct | 0/20 | 0.0% |" in md  # caught by the other scheduler
    assert "**lock breaks:** own token 162, expired 540, owner dead 74" in md


def test_bench_names_every_miss_before_anything_else(tmp_path: Path) -> None:
    write_lane(tmp_path, "bench", "pass", bench_data(miss=True))
    report = _report(tmp_path)
    section = report.markdown.split("### ✅ bench: pass", 1)[1]
    first_block = section.split("\n\n> ", 1)[1]
    assert first_block.startswith("⚠️ **MISS:** slow-plugin-overhead: a tracked goal missed")
    # The missed goal leads the table too.
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows[0].startswith("| `slow-plugin-overhead` | MISS |")


def test_a_gating_only_bench_names_the_benchmarks_it_left_out(tmp_path: Path) -> None:
    data = bench_data(miss=False)
    data["left_out"] = ["gate-latency-50k", "economy-sim"]
    write_lane(tmp_path, "bench", "pass", data)
    md = _report(tmp_path).markdown
    assert "gate-latency-50k, economy-sim (no gating goal; the full bench runs them)" in md
    write_lane(tmp_path, "bench", "pass", bench_data(miss=False))
    assert "left out" not in _report(tmp_path).markdown


def test_an_unknown_lane_keeps_the_generic_view(tmp_path: Path) -> None:
    write_lane(tmp_path, "custom", "pass", {"widgets": 3, "nested": {"depth": 2}})
    report = _report(tmp_path)
    assert "| widgets | 3 |" in report.markdown
    assert "| nested.depth | 2 |" in report.markdown
    assert "<details open><summary>all data (2 rows)</summary>" in report.html


def test_a_payload_of_another_shape_still_renders_with_all_its_data(tmp_path: Path) -> None:
    # stage error: the schema's per-lane block does not apply, so anything goes;
    # the slow view only ever sees a payload of its type, so this one gets the
    # data table, with the reason in front of it.
    write_lane(
        tmp_path, "slow", "error", {"counts": [1, 2], "tiers": "unit", "offenders": {"x": 1}}
    )
    report = _report(tmp_path)
    lane = report.view.lanes[0]
    assert lane.status == "error"
    assert "this slow envelope's data does not match the slow lane's payload type" in (
        report.markdown
    )
    assert "tests judged" not in report.markdown  # the view itself never ran
    assert ("counts", "[1, 2]") in lane.rows  # and the data table keeps everything
    assert "all data (3 rows)" in report.html


def test_a_replay_envelope_is_grouped_apart_and_never_fails_the_report(tmp_path: Path) -> None:
    write_lane(tmp_path, "torture", "pass", torture_data())
    replay = write_lane(tmp_path, "fuzz", "fail", fuzz_data(mode="replay"))
    replay.rename(replay.with_name("fuzz-replay.json"))
    report = _report(tmp_path)
    assert report.ok  # the leftover replay does not decide the verdict
    assert [lane.label for lane in report.view.main] == ["torture"]
    assert [(lane.label, lane.side) for lane in report.view.side] == [
        ("fuzz (fuzz-replay.json)", "replay")
    ]
    assert "**Side runs**" in report.markdown
    assert "crashed" not in report.view.title


def test_a_failed_self_check_still_fails_the_report(tmp_path: Path) -> None:
    write_lane(tmp_path, "torture", "pass", torture_data())
    check = write_lane(tmp_path, "fuzz", "fail", fuzz_data(mode="self-check"))
    check.rename(check.with_name("fuzz-self-check.json"))
    report = _report(tmp_path)
    assert not report.ok
    assert report.view.side[0].side == "self-check"


def test_every_view_survives_hostile_strings_in_every_field(tmp_path: Path) -> None:
    payloads = {
        "slow": slow_data(
            offenders=[offender(f"tests/{HOSTILE}.py::t", 3000)],
            pins=[pin(HOSTILE, "broken", 9000)],
        ),
        "fuzz": fuzz_data(failures=[fuzz_failure(HOSTILE, HOSTILE)]),
        "torture": torture_data(
            violations=[{**violation(3), "message": HOSTILE, "replay": HOSTILE}]
        ),
        "bench": {
            "iterations": 1,
            "benchmarks": [{**bench_data()["benchmarks"][1], "note": HOSTILE, "goal": HOSTILE}],
        },
    }
    for lane, data in payloads.items():
        write_lane(tmp_path, lane, "fail", json.loads(json.dumps(data)))
    report = _report(tmp_path)
    assert all(lane.blocks for lane in report.view.lanes), [
        lane.label for lane in report.view.lanes
    ]
    assert "<script>" not in report.html
    # Inside a fenced code block (a repro command) text is literal; outside, escaped.
    fence = re.compile(r"^(`{3,})sh\n.*?^\1$", re.MULTILINE | re.DOTALL)
    prose = fence.sub("", report.markdown)
    assert "<script>" not in prose
    assert "[link](http" not in prose
    for block in fence.finditer(report.markdown):
        assert "```" not in block.group(0)[len(block.group(1)) : -len(block.group(1))]


def test_a_payload_a_view_cannot_read_is_caught_before_the_view_and_shown(
    tmp_path: Path,
) -> None:
    # "caught" should map a target to a list of kinds; a number cannot be iterated.
    data = {"mode": "self-check", "self_check": {"expected": {"a": "stall"}, "caught": {"a": 5}}}
    write_lane(tmp_path, "fuzz", "error", data)
    report = _report(tmp_path)
    assert "this fuzz envelope's data does not match the fuzz lane's payload type (data" in (
        report.markdown
    )
    assert ("self_check.caught.a", "5") in report.view.lanes[0].rows


def test_mutation_shows_score_against_baseline_and_the_surviving_mutant(tmp_path: Path) -> None:
    write_lane(tmp_path, "mutation", "fail", mutation_check_data())
    report = _report(tmp_path)
    lane = report.view.lanes[0]
    assert lane.status == "fail"
    md = report.markdown
    assert "| ❌ | `lock` | 82.0% | 85.0% | -3.0 pts | regression | gating | 82 | 18 | 100 |" in md
    assert "`lanes/governor/state/lock.py:42`" in md
    assert "-    if age &gt; ttl: +    if age &gt;= ttl:" in md  # the changed lines, escaped
    assert "<title>Mutation score per module</title>" in report.html
    survivor = next(f for f in lane.findings if f.name.startswith("lock: surviving mutant"))
    assert (survivor.file, survivor.line, survivor.failed) == (
        "lanes/governor/state/lock.py",
        42,
        True,
    )


def test_timing_shows_the_per_suite_table_with_its_delta(tmp_path: Path) -> None:
    write_lane(tmp_path, "timing", "fail", timing_data(cpu_delta_pct=12.5))
    report = _report(tmp_path)
    md = report.markdown
    assert "| ❌ | unit | 2 | 5.1s \\[5.0-5.2\\] | 1.4s | 47 MiB |" in md
    assert "| unit | cpu | 1.3 s | 1.4 s | +12.5% | 65 ms | regressed |" in md
    assert "exceeds max\\_regression 10%" in md
    assert "unit — runs configured: 2 runs per arm, as configured" in md
    assert [f.failed for f in report.view.lanes[0].findings] == [True]


def test_a_regressed_figure_the_gate_does_not_judge_is_a_warning_not_a_failure(
    tmp_path: Path,
) -> None:
    data = timing_data(cpu_delta_pct=3.0, failed=False)
    wall = data["suites"][0]["comparison"]["metrics"][0]
    wall.update({"current": 6900, "delta": 1897, "delta_pct": 37.9, "flag": "regressed"})
    write_lane(tmp_path, "timing", "pass", data)
    report = _report(tmp_path)
    assert report.ok
    assert "| ⚠️ | unit | 2 |" in report.markdown  # the suites row: worth a look
    assert "| unit | wall | 5.0 s | 6.9 s | +37.9% | 460 ms | regressed |" in report.markdown
    assert [f.failed for f in report.view.lanes[0].findings] == [False]


def test_a_benchmark_with_dozens_of_figures_shows_the_first_few_and_a_count(tmp_path: Path) -> None:
    data = bench_data(miss=False)
    data["benchmarks"][0]["figures"] = {f"shape_{index}_ms": float(index) for index in range(60)}
    write_lane(tmp_path, "bench", "pass", data)
    md = _report(tmp_path).markdown
    assert "shape\\_7\\_ms 7" in md
    assert "shape\\_8\\_ms" not in md
    assert "… 52 more in the envelope" in md


def test_a_passing_mutation_lane_shows_no_failing_row(tmp_path: Path) -> None:
    # Regression: a score drop before graduation passes the lane, yet its
    # module row was red FAIL under a green "✓ mutation: pass" heading. The
    # rows say what the verdict says: that drop is a warning.
    write_lane(
        tmp_path,
        "mutation",
        "pass",
        mutation_check_data(gating=False, regressed=False),
    )
    report = _report(tmp_path)
    assert report.view.lanes[0].status == "pass"
    assert 'class="row-fail"' not in report.html
    assert 'class="callout fail"' not in report.html
    assert "| ❌ |" not in report.markdown
    assert "score graduating (3/3 stable runs)" in report.markdown


def test_a_regressed_mutant_is_a_failing_row_before_graduation(tmp_path: Path) -> None:
    write_lane(tmp_path, "mutation", "fail", mutation_check_data(gating=False))
    report = _report(tmp_path)
    assert '<tr class="row-fail"><td class="state">FAIL</td><td><code>lock</code>' in report.html
    assert [f.failed for f in report.view.lanes[0].findings] == [True]
