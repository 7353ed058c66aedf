"""JUnit XML, CTRF, GitHub annotations, and the 1 MiB job-summary limit."""

from __future__ import annotations

import json
import os
import textwrap
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from lanes.report._collect import collect
from lanes.report._formats import github_annotations
from lanes.report._view import build_view
from lanes.report.render import SUMMARY_LIMIT, build_report, fit_markdown, render_markdown
from tests.report.lane_payloads import (
    bench_data,
    fuzz_data,
    fuzz_failure,
    offender,
    slow_data,
    torture_data,
    violation,
)
from tests.report.report_fixtures import HOSTILE, write_lane
from tests.support.processes import run_lanes

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.report.render import Report


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "LANES_GROUP_ID", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)


def _mixed(root: Path) -> Path:
    write_lane(
        root, "slow", "fail", slow_data(offenders=[offender("tests/test_b.py::test_sleepy", 3200)])
    )
    write_lane(root, "fuzz", "fail", fuzz_data(failures=[fuzz_failure("ledger", HOSTILE)]))
    write_lane(root, "torture", "fail", torture_data(violations=[violation(17)]))
    write_lane(root, "bench", "pass", bench_data(miss=True))
    write_lane(root, "crashy", "error")
    return root / "envelopes"


def _build(envelopes: Path, *, junit: Path | None = None, ctrf: Path | None = None) -> Report:
    return build_report(
        envelopes,
        out_md=envelopes / "summary.md",
        out_html=envelopes / "index.html",
        junit=junit,
        ctrf=ctrf,
    )


def test_junit_lists_every_verdict_and_finding(tmp_path: Path) -> None:
    envelopes = _mixed(tmp_path)
    _build(envelopes, junit=tmp_path / "out.xml")
    root = ET.parse(tmp_path / "out.xml").getroot()  # noqa: S314  # our own output
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    assert set(suites) == {"slow", "fuzz", "torture", "bench", "crashy"}
    cases = {
        (suite, case.get("name")): case
        for suite, s in suites.items()
        for case in s.iter("testcase")
    }
    sleepy = cases[("slow", "tests/test_b.py::test_sleepy")]
    assert sleepy.find("failure") is not None
    location = sleepy.find("system-out")  # junit-10.xsd has no file attribute on a testcase
    assert location is not None
    assert location.text == "location: tests/test_b.py"
    assert cases[("fuzz", "ledger: untyped")].find("failure") is not None
    assert cases[("torture", "seed 17: foreign-lock")].find("failure") is not None
    assert (
        cases[("bench", "slow-plugin-overhead")].find("skipped") is not None
    )  # a MISS: reported, not failing
    assert cases[("bench", "hook-latency")].find("failure") is None
    assert cases[("crashy", "verdict")].find("error") is not None
    assert root.get("failures") == "6"  # 3 verdicts + 3 findings
    assert root.get("errors") == "1"
    failure = cases[("fuzz", "ledger: untyped")].find("failure")
    assert failure is not None
    assert failure.text is not None
    assert HOSTILE in failure.text  # escaped in the file, intact for the reader


def test_ctrf_follows_the_schema_shape(tmp_path: Path) -> None:
    envelopes = _mixed(tmp_path)
    _build(envelopes, ctrf=tmp_path / "ctrf.json")
    document = json.loads((tmp_path / "ctrf.json").read_text(encoding="utf-8"))
    assert document["reportFormat"] == "CTRF"
    results = document["results"]
    assert results["tool"]["name"] == "lanekit"
    summary = results["summary"]
    assert summary["tests"] == len(results["tests"])
    assert summary["failed"] == 6
    assert summary["other"] == 2  # the crash and the MISS
    assert summary["start"] <= summary["stop"]
    sleepy = next(t for t in results["tests"] if t["name"] == "slow: tests/test_b.py::test_sleepy")
    assert sleepy["status"] == "failed"
    assert sleepy["filePath"] == "tests/test_b.py"
    assert {t["status"] for t in results["tests"]} <= {
        "passed",
        "failed",
        "skipped",
        "pending",
        "other",
    }


def test_annotations_point_at_the_offending_test_and_escape_the_message(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_b.py").write_text(
        "import time\n\n\ndef test_sleepy():\n    time.sleep(3)\n"
    )
    write_lane(
        tmp_path,
        "slow",
        "fail",
        slow_data(offenders=[offender("tests/test_b.py::test_sleepy", 3200)]),
    )
    write_lane(tmp_path, "fuzz", "fail", fuzz_data(failures=[fuzz_failure("ledger", "a\nb")]))
    view = build_view(collect(tmp_path / "envelopes"), directory="envelopes")
    lines = github_annotations(view, root=tmp_path)
    assert lines == [
        (
            "::error file=tests/test_b.py,line=4,title=slow%3A tests/test_b.py%3A%3Atest_sleepy::"
            "took 3.2 s, past the limit 2.0 s (budget 1.0 s, tier unit)"
        )
    ]  # the fuzz failure has no file: no annotation


def test_the_cli_prints_annotations_only_on_github_actions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_lane(
        tmp_path,
        "slow",
        "fail",
        slow_data(offenders=[offender("tests/test_b.py::test_sleepy", 3200)]),
    )
    monkeypatch.chdir(tmp_path)
    main(["report", "--dir", "envelopes"])
    assert "::error" not in capsys.readouterr().out
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    main(["report", "--dir", "envelopes"])
    assert "::error file=tests/test_b.py," in capsys.readouterr().out


@pytest.mark.integration  # renders ~1.3 MB of Markdown: seconds, not milliseconds
def test_a_hostile_envelope_set_keeps_the_summary_under_1_mib(tmp_path: Path) -> None:
    # Every value at the display cap, every row at the table cap, many files.
    data = {f"key{index}": HOSTILE * 10 for index in range(80)}
    first = write_lane(tmp_path, "hostile", "pass", data)
    document = json.loads(first.read_text(encoding="utf-8"))
    for copy in range(70):
        document["run_id"] = f"00000000-0000-4000-8000-{copy:012d}"
        (first.parent / f"hostile-{copy:03d}.json").write_text(
            json.dumps(document), encoding="utf-8"
        )
    report = _build(first.parent)
    size = len((first.parent / "summary.md").read_bytes())
    assert size < 1024 * 1024
    assert size <= SUMMARY_LIMIT
    assert "**Truncated:**" in report.markdown
    assert "index.html (in the envelopes artifact) has everything" in report.markdown
    # As many lane sections as fit are kept, and the rest are counted.
    kept = report.markdown.count("\n### ")
    assert 0 < kept < 71
    assert f"{71 - kept} lane section(s) were left out" in report.markdown
    assert "<script>" not in report.markdown
    assert len(report.view.lanes) == 71  # nothing was dropped from the page itself


def test_past_even_the_overview_the_summary_is_cut_at_a_line_and_marked(tmp_path: Path) -> None:
    view = build_view(collect(_mixed(tmp_path)), directory="envelopes")
    cut = fit_markdown(view, limit=700)
    assert len(cut.encode()) <= 700
    assert cut.rstrip().endswith("has everything.")
    assert "**Truncated:** the summary was cut" in cut
    assert all(line.count("|") != 1 for line in cut.splitlines())  # no half table row


def test_the_summary_cap_counts_utf_8_bytes_not_characters(tmp_path: Path) -> None:
    # GitHub's job-summary limit is in bytes: a summary of non-ASCII text (a
    # lane's values, the status marks) can fit in characters and not
    # in bytes, and must then be cut like any other.
    first = write_lane(tmp_path, "custom", "fail", {"note": "Größenprüfung " * 20})
    view = build_view(collect(first.parent), directory="envelopes")
    full = render_markdown(view)
    limit = len(full)  # room for every character, not for every byte
    assert len(full.encode()) > limit
    cut = fit_markdown(view, limit=limit)
    assert len(cut.encode()) <= limit
    assert "**Truncated:**" in cut


@pytest.mark.integration
def test_junit_after_a_failing_slow_lane_holds_the_offender_as_a_failed_case(
    tmp_path: Path,
) -> None:
    """The acceptance check as a user runs it: a real slow lane, then lanes report --junit."""
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [project]
            name = "demo"

            [tool.lanes.suites.unit]
            paths = ["tests"]

            [tool.lanes.slow.tiers.unit]
            budget = 0.05
            """
        )
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_demo.py").write_text(
        "import time\n\n\ndef test_quick():\n    pass\n\n\ndef test_sleepy():\n    time.sleep(0.3)\n"
    )
    env = {**os.environ, "LANES_PROGRESS": "0"}
    env.pop("GITHUB_ACTIONS", None)
    run = run_lanes("slow", "run", "--", "tests", "-p", "no:cacheprovider", cwd=tmp_path, env=env)
    assert run.returncode == 1, run.stdout + run.stderr
    report = run_lanes("report", "--junit", "out.xml", cwd=tmp_path, env=env)
    assert report.returncode == 1, report.stdout + report.stderr
    root = ET.parse(tmp_path / "out.xml").getroot()  # noqa: S314  # our own output
    failed = {
        case.get("name") for case in root.iter("testcase") if case.find("failure") is not None
    }
    assert "tests/test_demo.py::test_sleepy" in failed
    assert "tests/test_demo.py::test_quick" not in failed


def test_in_toto_writes_one_test_result_statement_per_lane(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "example/project")
    monkeypatch.setenv("GITHUB_RUN_ID", "42")
    check = write_lane(tmp_path, "fuzz", "pass", fuzz_data(mode="self-check"))
    check.rename(check.with_name("fuzz-self-check.json"))
    envelopes = _mixed(tmp_path)
    build_report(
        envelopes,
        out_md=envelopes / "summary.md",
        out_html=envelopes / "index.html",
        in_toto=tmp_path / "attest",
    )
    written = sorted(path.name for path in (tmp_path / "attest").iterdir())
    # One per lane envelope; the side run (a self-check) is not a lane verdict.
    assert written == [
        f"{lane}.intoto.json" for lane in ("bench", "crashy", "fuzz", "slow", "torture")
    ]
    slow = json.loads((tmp_path / "attest" / "slow.intoto.json").read_text(encoding="utf-8"))
    assert slow["_type"] == "https://in-toto.io/Statement/v1"
    assert slow["predicateType"] == "https://in-toto.io/attestation/test-result/v0.1"
    predicate = slow["predicate"]
    assert predicate["result"] == "FAILED"
    assert predicate["failedTests"] == ["slow: verdict", "slow: tests/test_b.py::test_sleepy"]
    assert predicate["url"] == "https://github.com/example/project/actions/runs/42"
    assert predicate["configuration"][0]["name"] == "envelopes/slow.json"
    assert len(predicate["configuration"][0]["digest"]["sha256"]) == 64
    # Outside git the subject is the envelope file itself, by digest.
    assert slow["subject"] == [
        {"name": "slow.json", "digest": predicate["configuration"][0]["digest"]}
    ]
    bench = json.loads((tmp_path / "attest" / "bench.intoto.json").read_text(encoding="utf-8"))
    assert bench["predicate"]["warnedTests"] == ["bench: slow-plugin-overhead"]


def test_an_annotation_follows_the_node_ids_class_to_the_right_method(tmp_path: Path) -> None:
    # unittest-style suites repeat method names in every class (found on more-itertools).
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_c.py").write_text(
        "class FirstTests:\n"
        "    def test_basic(self):\n"
        "        pass\n"
        "\n"
        "\n"
        "class SecondTests:\n"
        "    def test_other(self):\n"
        "        pass\n"
        "\n"
        "    def test_basic(self):\n"
        "        pass\n"
    )
    write_lane(
        tmp_path,
        "slow",
        "fail",
        slow_data(offenders=[offender("tests/test_c.py::SecondTests::test_basic[case-1]", 3200)]),
    )
    view = build_view(collect(tmp_path / "envelopes"), directory="envelopes")
    (line,) = github_annotations(view, root=tmp_path)
    assert line.startswith("::error file=tests/test_c.py,line=10,")
