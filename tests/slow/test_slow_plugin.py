"""The ratchet as a user meets it: real pytest sessions through pytester."""

from __future__ import annotations

import importlib.metadata

import pytest

from lanes.cli import main
from lanes.envelope import validate_envelope
from tests.slow.slow_helpers import (
    BAND,
    BAND_SLEEP,
    FAST,
    IN_PROCESS_RATCHET,
    SLOW,
    SLOW_SLEEP,
    make_project,
    verdicts,
    write_pins,
)
from tests.support.documents import read_json


def test_inert_by_default(pytester: pytest.Pytester) -> None:
    # Installed (the entry point is loaded) but not enabled: no header, no
    # section, no failure, and no working hooks registered.
    make_project(pytester)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    assert result.ret == 0
    result.stdout.no_fnmatch_line("*slow-test ratchet*")
    config = pytester.parseconfigure()
    assert config.pluginmanager.has_plugin("lanes.slow")
    assert not config.pluginmanager.has_plugin("lanes-slow-ratchet")
    assert not config.pluginmanager.has_plugin("lanes-slow-stopwatch")


def test_the_run_fails_naming_only_the_test_past_the_limit(pytester: pytest.Pytester) -> None:
    # On the controlled clock: the fast test takes exactly 0 s and the band test
    # exactly its planted time, so a loaded machine cannot lift either past the
    # limit (at load 20 a real 0.02 s test once landed in the band).
    make_project(pytester, clocked=True)
    out = pytester.path / "slow.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "--slow-json", str(out))
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # every test passed; the budget did not
    result.stdout.fnmatch_lines(
        [
            "*slow-test ratchet*",
            f"FAIL {SLOW} took * s: past 9 × the 'unit' tier budget 0.02 s (limit 0.18 s)",
            "*fix: speed it up*",
            "*or move it to a slower tier: @pytest.mark.integration (tier 'integration', 5 s)*",
            f"*lanes slow pin {SLOW} --reason '<why it is slow>' --tracking '<issue>' --ceiling *",
            f"band {BAND} took * s: over the 'unit' budget 0.02 s; fails past 0.18 s",
            "slow-test ratchet FAILED: 3 tests judged, 1 past their limit, 1 in the band*",
            # "*3 passed*": a warning count may stand between (in the slow lane's
            # serial run of this suite, this inner session once reported an
            # assertion-rewrite warning about the outer run's `tests` package).
            "*3 passed*1 past slow budget*",
        ]
    )
    result.stdout.no_fnmatch_line(f"FAIL {BAND}*")
    result.stdout.no_fnmatch_line(f"*FAIL {FAST}*")
    data = read_json(out)
    assert verdicts(data)["offenders"] == [SLOW]
    assert verdicts(data)["band"] == [BAND]
    assert data["verdict"] == "fail"


def test_enabled_from_pyproject_and_passes_once_pinned(pytester: pytest.Pytester) -> None:
    make_project(pytester, enabled="enabled = true")
    write_pins(pytester, {"nodeid": SLOW, "ceiling": SLOW_SLEEP * 3})
    out = pytester.path / "slow.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "--slow-json", str(out))
    assert result.ret == 0
    result.stdout.fnmatch_lines(["slow-test ratchet: unit 0.02 s, integration 5 s; *1 pinned*"])
    result.stdout.fnmatch_lines(["slow-test ratchet passed: *1 pinned (0 removable)"])
    assert verdicts(read_json(out))["pins"] == [f"{SLOW}=holding"]


def test_a_pinned_test_past_its_own_ceiling_fails(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    # Ceiling = the budget: limit 0.18 s, the test sleeps 0.6 s.
    write_pins(pytester, {"nodeid": SLOW, "ceiling": 0.02}, {"nodeid": FAST, "ceiling": 1.0})
    out = pytester.path / "slow.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "--slow-json", str(out))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            (
                f"FAIL {SLOW} took * s: past 9 × its pin ceiling 0.02 s (limit 0.18 s; pinned for "
                "'sleeps on purpose', tracked in '#1')"
            ),
            f"pin within budget: {FAST} took * s (1 of 3 runs in a row needed to call it removable)",
        ]
    )
    assert verdicts(read_json(out))["pins"] == [f"{FAST}=within-budget", f"{SLOW}=broken"]


def test_tier_by_marker_and_by_path_glob(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.path.joinpath("tests", "test_three.py").unlink()
    pytester.path.joinpath("tests", "test_marked.py").write_text(
        "import time, pytest\n"
        "@pytest.mark.integration\n"
        f"def test_marked():\n    time.sleep({BAND_SLEEP})\n"
    )
    integration = pytester.mkdir("tests/integration")
    integration.joinpath("test_globbed.py").write_text(
        f"import time\ndef test_globbed():\n    time.sleep({BAND_SLEEP})\n"
    )
    out = pytester.path / "slow.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "--slow-json", str(out))
    assert result.ret == 0, result.stdout.str()
    assert verdicts(read_json(out))["band"] == []  # each would be in the unit tier's band
    assert verdicts(read_json(out))["tiers"] == [
        "tests/integration/test_globbed.py::test_globbed=integration",
        "tests/test_marked.py::test_marked=integration",
    ]


def test_function_fixtures_are_charged_and_shared_fixtures_reported(
    pytester: pytest.Pytester,
) -> None:
    make_project(pytester)
    pytester.path.joinpath("tests", "test_three.py").unlink()
    pytester.path.joinpath("tests", "test_fixtures.py").write_text(
        "import time, pytest\n"
        "@pytest.fixture\n"
        f"def slow_function_fixture():\n    time.sleep({SLOW_SLEEP})\n"
        "@pytest.fixture(scope='module')\n"
        f"def slow_module_fixture():\n    time.sleep({SLOW_SLEEP})\n"
        # A function fixture over the slow module fixture: pytest sets the module
        # one up first, and only the function fixture's own time is charged.
        "@pytest.fixture\n"
        "def fast_function_fixture(slow_module_fixture):\n    pass\n"
        "def test_charged(slow_function_fixture):\n    pass\n"
        "def test_not_charged(fast_function_fixture):\n    pass\n"
    )
    out = pytester.path / "slow.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "--slow-json", str(out))
    data = read_json(out)
    assert verdicts(data)["offenders"] == ["tests/test_fixtures.py::test_charged"]
    assert [(f["name"], f["scope"], f["first"]) for f in data["fixtures"]] == [
        ("slow_module_fixture", "module", "tests/test_fixtures.py::test_not_charged")
    ]
    result.stdout.fnmatch_lines(
        [
            "shared fixture setup (scope wider than function; charged to no test):",
            "*module       slow_module_fixture (1×, *first for tests/test_fixtures.py::test_not_charged)",
        ]
    )


def test_fixtures_requested_with_getfixturevalue_are_charged_once(
    pytester: pytest.Pytester,
) -> None:
    # On the controlled clock: `inner` takes exactly BAND_SLEEP, so a fixture
    # counted twice shows as exactly twice that, whatever the machine's load.
    make_project(pytester, clocked=True)
    pytester.path.joinpath("tests", "test_three.py").unlink()
    pytester.path.joinpath("tests", "test_lazy.py").write_text(
        "import pytest\n"
        "@pytest.fixture\n"
        f"def inner(takes):\n    takes({BAND_SLEEP})\n"
        # Requests another inside its own setup: only its own time is its own.
        "@pytest.fixture\n"
        "def outer(request):\n    request.getfixturevalue('inner')\n"
        "def test_nested(outer):\n    pass\n"
        # Requested in the body: in the call's duration already, not charged again.
        "def test_in_the_body(request):\n    request.getfixturevalue('inner')\n"
    )
    out = pytester.path / "slow.json"
    pytester.runpytest("-p", "no:cacheprovider", "--slow-json", str(out))
    slowest = {t["nodeid"].partition("::")[2]: t for t in read_json(out)["slowest"]}
    ms = round(BAND_SLEEP * 1000)
    nested, in_the_body = slowest["test_nested"], slowest["test_in_the_body"]
    assert (nested["fixtures_ms"], nested["ms"]) == (ms, ms)
    assert (in_the_body["fixtures_ms"], in_the_body["call_ms"], in_the_body["ms"]) == (0, ms, ms)


def test_without_a_terminal_reporter_the_verdicts_are_the_same(
    pytester: pytest.Pytester,
) -> None:
    # The reports are read from the terminal reporter's record at the session
    # end; -p no:terminal takes it away, and the ratchet keeps them itself. On
    # the controlled clock, so both runs measure the same durations under load.
    make_project(pytester, clocked=True)
    with_terminal = pytester.path / "terminal.json"
    without = pytester.path / "no-terminal.json"
    pytester.runpytest("-p", "no:cacheprovider", "--slow-json", str(with_terminal))
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:terminal", "--slow-json", str(without)
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    data = read_json(without)
    assert verdicts(data) == verdicts(read_json(with_terminal))
    assert verdicts(data)["offenders"] == [SLOW]
    assert verdicts(data)["band"] == [BAND]
    assert data["outcomes"] == {"passed": 3}


def test_the_result_is_a_valid_slow_envelope_payload(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    out = pytester.path / "slow.json"
    pytester.runpytest("-p", "no:cacheprovider", "--slow-json", str(out))
    data = read_json(out)
    data["pytest_exit"] = 1  # added by `lanes slow run`, as is self_check
    data["self_check"] = None
    envelope = {
        "format": "lanekit.envelope",
        "schema_version": "1.0.0",
        "lane": "slow",
        "run_id": "00000000-0000-4000-8000-000000000000",
        "group_id": "g",
        "subject": {"commit": None, "dirty": False, "branch": None},
        "generated_by": {
            "name": "lanekit",
            "version": "0",
            "python": "3",
            "platform": "x",
            "tools": {},
        },
        "config_hash": "sha256:" + "0" * 64,
        "seed": None,
        "started_at": "2026-01-01T00:00:00.000Z",
        "duration_ms": 1,
        "result": "fail",
        "stage": "complete",
        "error": None,
        "data": data,
    }
    assert validate_envelope(envelope) == []
    data["counts"]["band"] = -1
    assert [p.path for p in validate_envelope(envelope)] == ["$.data.counts.band"]


def test_a_malformed_pin_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester, enabled="enabled = true")
    write_pins(pytester, {"nodeid": SLOW, "ceiling": "soon"})
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            (
                "ERROR: pin file */baselines/slow-tests.json: entry 0 ('tests/test_three.py::test_slow'): "
                "ceiling must be a finite number of seconds > 0, got 'soon'"
            ),
            "hint: set ceiling to the seconds this test may take, e.g. 4.5",
        ]
    )


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            "[tool.lanes.slow]\nenabled = 'yes'\n",
            "[tool.lanes.slow] enabled must be true or false, got 'yes'",
        ),
        (
            "[tool.lanes.slow]\nenabled = true\n[tool.lanes.slow.tiers.unit]\nbugdet = 1\n",
            "[tool.lanes.slow.tiers.unit] unknown key 'bugdet' — did you mean 'budget'?",
        ),
        (
            "[tool.lanes.slow]\nenabled = true\n[tool.lanes.slow.tiers.unit]\nbudget = -1\n",
            "[tool.lanes.slow.tiers.unit] budget must be a finite number > 0, got -1",
        ),
    ],
)
def test_a_bad_tier_table_is_a_usage_error(
    pytester: pytest.Pytester, table: str, message: str
) -> None:
    pytester.makepyprojecttoml(table)
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}", "hint: *"])


def test_another_lanes_broken_section_does_not_stop_the_test_run(
    pytester: pytest.Pytester,
) -> None:
    # The plugin reads [tool.lanes]'s keys, its own section and envelope_dir;
    # a typo in the fuzz lane's section is the fuzz lane's error, not a reason
    # to refuse every pytest run. A misspelt section name is still refused.
    enabled = "[tool.lanes.slow]\nenabled = true\n[tool.lanes.slow.tiers.unit]\nbudget = 5\n"
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    pytester.makepyprojecttoml(enabled + "[tool.lanes.fuzz]\niteratons = 5\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    result.stdout.fnmatch_lines(["slow-test ratchet passed: 1 tests judged*"])
    pytester.makepyprojecttoml(enabled + "[tool.lanes.slwo]\nconfirm = 0\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ?tool.lanes? unknown key 'slwo'*"])


def test_dash_p_lanes_slow_works_without_the_entry_point(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A source checkout on PYTHONPATH: no installed distribution, so no entry
    # point; `-p lanes.slow` imports the package, which pulls in the plugin.
    monkeypatch.setattr(importlib.metadata, "distributions", lambda **_: iter([]))
    make_project(pytester)
    result = pytester.runpytest(
        *IN_PROCESS_RATCHET,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"FAIL {SLOW} took *"])
    config = pytester.parseconfigure("-p", "lanes.slow")
    assert config.pluginmanager.has_plugin("lanes.slow.plugin")


def test_the_enabled_ratchet_skips_assertion_rewriting_but_test_modules_keep_it(
    pytester: pytest.Pytester,
) -> None:
    # A fresh interpreter, as every real run is (in-process, the modules are
    # imported already). `-p lanes.slow` marks the package for rewriting, as
    # the entry point of a wheel-installed lanekit marks all of `lanes`
    # (this venv's editable install marks nothing). pytest would load the
    # modules through its rewriting hook — a quarter of the ratchet's cost on
    # a suite of fast tests (bench slow-plugin-overhead); the ratchet imports
    # them with the interpreter's own loader, and the user's tests are still
    # rewritten.
    pytester.makepyprojecttoml("[tool.lanes.slow.tiers.unit]\nbudget = 5.0\n")
    pytester.makepyfile(
        test_loaders="""
        import sys

        def test_loaders():
            loaders = {
                name: type(module.__loader__).__name__
                for name, module in sys.modules.items()
                if name.startswith("lanes.slow.") and name != "lanes.slow.plugin"
            }
            assert loaders, "the ratchet's modules are not loaded"
            print("LOADERS", *sorted(set(loaders.values())))

        def test_still_rewritten():
            assert [1, 2] == [1, 3]
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-s", "-p", "lanes.slow", "--slow-ratchet"
    )  # fmt: skip
    result.assert_outcomes(passed=1, failed=1)
    assert "LOADERS SourceFileLoader\n" in result.stdout.str()
    # Only a rewritten assert explains a list comparison.
    result.stdout.fnmatch_lines(["*At index 1 diff: 2 != 3*"])


def test_the_last_run_records_the_tests_that_could_need_a_pin(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The band and slow tests (at half their budget or more) and a pinned
    # test, however fast: `lanes slow pin` defaults a ceiling from them. A
    # test far within its budget is not recorded, and pinning it says why.
    # The controlled clock keeps the fast test at 0 s: a stalled machine must
    # not lift it to half its budget.
    make_project(pytester, clocked=True)
    pinned = "tests/test_pinned.py::test_pinned_fast"
    pytester.path.joinpath("tests", "test_pinned.py").write_text(
        "def test_pinned_fast():\n    pass\n"
    )
    write_pins(pytester, {"nodeid": pinned, "ceiling": 1.0})
    result = pytester.runpytest("-p", "no:cacheprovider", "--slow-ratchet")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # SLOW is past its limit
    record = read_json(pytester.path / "envelopes" / ".slow-last-run.json")
    assert sorted(record["tests"]) == sorted([BAND, SLOW, pinned])
    assert record["tests"][SLOW][0] == "unit"
    assert record["tests"][SLOW][1] == round(SLOW_SLEEP * 1000)
    monkeypatch.chdir(pytester.path)
    reason = ["--reason", "sleeps on purpose", "--tracking", "#1"]
    assert main(["slow", "pin", BAND, *reason]) == 0
    assert f"pinned {BAND} (tier 'unit', ceiling " in capsys.readouterr().out
    assert main(["slow", "pin", FAST, *reason]) == 2
    err = capsys.readouterr().err
    assert "the last run's record (which keeps the tests at half their budget or more)" in err
    assert "a test far within its budget needs no pin" in err
