"""The timing lane's figures: spread over repeats, the median run, its offenders, xdist's memory.

- Every figure is ``{median, min, max}`` over an arm's repeats; the offenders
  come from the run with the median wall clock (the lower middle of an even
  count).
- Offenders: the slowest tests, files (their tests summed) and fixture
  setups (summed over every process), ties broken by name.
- Under xdist a run's peak memory is the sum of every process's own peak
  (they run at once); one process's run is the tree's peak.
"""

from __future__ import annotations

from lanes.timing.figures import arm_summary, median_sample, offenders, stat
from lanes.timing.measure import ProcessFigures, Sample


def _sample(wall_ms: int, **fields: object) -> Sample:
    base: dict[str, object] = {
        "arm": "serial",
        "argv": ["pytest", "-q"],
        "exit_code": 0,
        "wall_ms": wall_ms,
        "cpu_ms": wall_ms // 2,
        "user_ms": wall_ms // 3,
        "system_ms": wall_ms // 6,
        "tree_peak_rss_kib": 50_000,
    }
    return Sample(**{**base, **fields})  # type: ignore[arg-type]  # the test's own field bag


def test_a_figure_is_the_median_and_the_spread() -> None:
    assert stat([30, 10, 20]) == {"median": 20, "min": 10, "max": 30}
    assert stat([10, 11]) == {"median": 10, "min": 10, "max": 11}  # 10.5 rounds to even
    assert stat([7]) == {"median": 7, "min": 7, "max": 7}


def test_the_median_run_is_the_lower_middle() -> None:
    runs = [_sample(400), _sample(100), _sample(300), _sample(200)]
    assert median_sample(runs).wall_ms == 200
    assert median_sample(runs[:3]).wall_ms == 300


def test_xdist_memory_is_the_sum_of_every_process_peak() -> None:
    processes = [
        ProcessFigures("gw1", 30_000, 900),
        ProcessFigures("controller", 20_000, 100),
        ProcessFigures("gw0", 40_000, 1_000),
    ]
    parallel = _sample(100, processes=processes)
    assert (parallel.peak_rss_kib, parallel.workers) == (90_000, 2)
    alone = _sample(100, processes=[ProcessFigures("controller", 20_000, 100)])
    assert (alone.peak_rss_kib, alone.workers) == (50_000, 0)


def test_an_arm_summary_holds_every_figure_and_sample() -> None:
    processes = [
        ProcessFigures("gw10", 3, 30),
        ProcessFigures("gw2", 2, 20),
        ProcessFigures("helper", 4, 40),
        ProcessFigures("controller", 1, 10),
    ]
    runs = [
        _sample(300, tree_peak_rss_kib=9),
        _sample(100, tree_peak_rss_kib=7),
        _sample(200, tree_peak_rss_kib=8, processes=processes, argv=["pytest", "-n", "2"]),
    ]
    summary = arm_summary(runs, "xdist")
    assert summary["arm"] == "xdist"
    assert (summary["argv"], summary["repeat"], summary["workers"]) == (["pytest", "-n", "2"], 3, 3)
    assert summary["wall_ms"] == {"median": 200, "min": 100, "max": 300}
    assert summary["cpu_ms"] == {"median": 100, "min": 50, "max": 150}
    assert summary["peak_rss_kib"] == {"median": 9, "min": 7, "max": 10}
    assert summary["tree_peak_rss_kib"] == {"median": 8, "min": 7, "max": 9}
    # Controller first, then the workers in numeric order, anything else last.
    assert summary["processes"] == [
        {"role": "controller", "peak_rss_kib": 1, "cpu_ms": 10},
        {"role": "gw2", "peak_rss_kib": 2, "cpu_ms": 20},
        {"role": "gw10", "peak_rss_kib": 3, "cpu_ms": 30},
        {"role": "helper", "peak_rss_kib": 4, "cpu_ms": 40},
    ]
    assert summary["samples"][1] == {
        "wall_ms": 100,
        "cpu_ms": 50,
        "user_ms": 33,
        "system_ms": 16,
        "peak_rss_kib": 7,
        "tree_peak_rss_kib": 7,
        "exit_code": 0,
    }


def test_offenders_are_the_slowest_tests_files_and_fixtures() -> None:
    # Names in the opposite order of their times, and ties, so only the times decide.
    run = _sample(
        100,
        tests={
            "tests/z.py::t1": 0.5,
            "tests/z.py::t2": 0.25,
            "tests/y.py::t::sub": 0.6,
            "tests/x.py::t": 0.25,
            "tests/w.py::t": 0.25,
        },
        fixtures=[
            {"name": "z_db", "scope": "session", "where": "conftest.py", "setups": 1, "total": 0.4, "max": 0.4},
            {"name": "z_db", "scope": "session", "where": "conftest.py", "setups": 2, "total": 0.3, "max": 0.15},
            {"name": "y_tmp", "scope": "function", "where": "tests/z.py", "setups": 4, "total": 0.5, "max": 0.2},
            {"name": "x_env", "scope": "function", "where": "tests/z.py", "setups": 9, "total": 0.5, "max": 0.1},
            {"name": "w_app", "scope": "module", "where": "tests/w.py", "setups": 1, "total": 0.05, "max": 0.6},
        ],
        startup_ms=120,
        collection_ms=80,
        first_test_ms=210,
    )  # fmt: skip
    assert offenders(run, 3) == {
        "tests": [
            {"nodeid": "tests/y.py::t::sub", "ms": 600},
            {"nodeid": "tests/z.py::t1", "ms": 500},
            {"nodeid": "tests/w.py::t", "ms": 250},
        ],
        "files": [
            {"path": "tests/z.py", "ms": 750, "tests": 2},
            {"path": "tests/y.py", "ms": 600, "tests": 1},
            {"path": "tests/w.py", "ms": 250, "tests": 1},
        ],
        "fixtures": [
            {"name": "z_db", "scope": "session", "where": "conftest.py", "setups": 3, "total_ms": 700, "max_ms": 400},
            {"name": "x_env", "scope": "function", "where": "tests/z.py", "setups": 9, "total_ms": 500, "max_ms": 100},
            {"name": "y_tmp", "scope": "function", "where": "tests/z.py", "setups": 4, "total_ms": 500, "max_ms": 200},
        ],
        "startup_ms": 120,
        "collection_ms": 80,
        "first_test_ms": 210,
    }  # fmt: skip
    assert [t["nodeid"] for t in offenders(run, 1)["tests"]] == ["tests/y.py::t::sub"]
