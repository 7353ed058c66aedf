"""Where ``build_report`` writes, and what it says when it cannot.

The Markdown and HTML pages, the optional JUnit, CTRF and in-toto outputs
(a folder of statements or one ``.jsonl`` file), the job summary appended to
``$GITHUB_STEP_SUMMARY`` — and, for a path it cannot write or a summary that
is not a regular file, a typed error naming the path, the reason and the fix.
Real files and a real FIFO; ``build_report`` called in this process.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import resource
import signal
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest

from lanes.errors import StateError
from lanes.report.render import build_report
from tests.report.report_fixtures import write_lane

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

SUMMARY_HINT = "unset GITHUB_STEP_SUMMARY outside GitHub Actions, or point it at a regular file"


@pytest.fixture(autouse=True)
def _no_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "GITHUB_ACTIONS", "LANES_GROUP_ID"):
        monkeypatch.delenv(name, raising=False)


def _envelopes(tmp_path: Path) -> Path:
    write_lane(tmp_path, "alpha", "pass")
    write_lane(tmp_path, "beta", "fail")
    return tmp_path / "envelopes"


def test_every_output_asked_for_is_written_where_it_was_asked(tmp_path: Path) -> None:
    envelopes = _envelopes(tmp_path)
    out = tmp_path / "out"
    before = dt.datetime.now(tz=dt.UTC)
    report = build_report(
        envelopes,
        out_md=out / "md" / "summary.md",  # folders made as needed
        out_html=out / "html" / "index.html",
        junit=out / "junit.xml",
        ctrf=out / "ctrf.json",
        in_toto=out / "statements.jsonl",
        root=tmp_path / "project-elsewhere",
    )
    after = dt.datetime.now(tz=dt.UTC)
    assert (out / "md" / "summary.md").read_text(encoding="utf-8") == report.markdown
    assert (out / "html" / "index.html").read_text(encoding="utf-8") == report.html
    assert "<testsuites" in (out / "junit.xml").read_text(encoding="utf-8")
    # The CTRF run spans the report's own start and stop, in milliseconds.
    summary = json.loads((out / "ctrf.json").read_text(encoding="utf-8"))["results"]["summary"]
    start, stop = summary["start"], summary["stop"]
    assert int(before.timestamp() * 1000) - 1 <= start <= stop <= after.timestamp() * 1000 + 1
    assert summary["duration"] == stop - start
    # A .jsonl path holds every lane's statement, one a line.
    lines = (out / "statements.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    assert {json.loads(line)["predicate"]["result"] for line in lines} == {"PASSED", "FAILED"}


def test_without_a_jsonl_suffix_in_toto_is_a_folder_of_one_statement_per_lane(
    tmp_path: Path,
) -> None:
    envelopes = _envelopes(tmp_path)
    build_report(
        envelopes,
        out_md=envelopes / "summary.md",
        out_html=envelopes / "index.html",
        in_toto=tmp_path / "attest.json",
        root=tmp_path,
    )
    names = sorted(path.name for path in (tmp_path / "attest.json").iterdir())
    assert names == ["alpha.intoto.json", "beta.intoto.json"]


def test_only_the_outputs_asked_for_are_written(tmp_path: Path) -> None:
    envelopes = _envelopes(tmp_path)
    before = sorted(path.name for path in tmp_path.iterdir())
    build_report(envelopes, out_md=envelopes / "summary.md", out_html=envelopes / "index.html")
    assert sorted(path.name for path in tmp_path.iterdir()) == before
    assert sorted(path.name for path in envelopes.iterdir()) == [
        "alpha.json",
        "beta.json",
        "index.html",
        "summary.md",
    ]


@pytest.mark.parametrize(
    ("option", "name"),
    [
        ("--out-md", "out.md"),
        ("--out-html", "out.html"),
        ("--junit", "out.xml"),
        ("--ctrf", "out.json"),
        ("--in-toto", "out.jsonl"),
        ("--in-toto", "attest"),  # a folder of statements
    ],
)
def test_an_output_that_cannot_be_written_names_the_path_and_its_option(
    tmp_path: Path, option: str, name: str
) -> None:
    envelopes = _envelopes(tmp_path)
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder must go\n", encoding="utf-8")
    target = blocker / name
    # A folder of statements fails at its first statement's file.
    written = target if target.suffix else target / "alpha.intoto.json"
    reason = "File exists" if target.suffix else "Not a directory"
    paths = {
        "out_md": envelopes / "summary.md",
        "out_html": envelopes / "index.html",
    }
    extra = {option.strip("-").replace("-", "_"): target}
    with pytest.raises(StateError) as info:
        build_report(envelopes, **{**paths, **extra})  # type: ignore[arg-type]  # paths by option name
    assert info.value.message == f"cannot write the report to {str(written)!r}: {reason}"
    assert info.value.hint == f"choose a writable location with {option} PATH"


def test_an_output_inside_the_project_is_written_there(tmp_path: Path) -> None:
    envelopes = _envelopes(tmp_path)
    build_report(
        envelopes,
        out_md=tmp_path / "reports" / "summary.md",
        out_html=tmp_path / "reports" / "index.html",
        root=tmp_path,
    )
    assert (tmp_path / "reports" / "summary.md").read_text(encoding="utf-8").startswith("## ")


@pytest.mark.parametrize(
    ("option", "name"),
    [
        ("--out-md", "out.md"),
        ("--out-html", "out.html"),
        ("--junit", "out.xml"),
        ("--ctrf", "out.json"),
        ("--in-toto", "out.jsonl"),
        ("--in-toto", "attest"),  # a folder of statements
    ],
)
def test_an_output_inside_the_project_is_not_written_through_a_linked_folder(
    tmp_path: Path, option: str, name: str
) -> None:
    envelopes = _envelopes(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (tmp_path / "reports").symlink_to(outside)
    paths = {"out_md": envelopes / "summary.md", "out_html": envelopes / "index.html"}
    linked = {option.strip("-").replace("-", "_"): tmp_path / "reports" / name}
    with pytest.raises(StateError) as info:
        build_report(envelopes, root=tmp_path, **{**paths, **linked})  # type: ignore[arg-type]  # paths by option name
    assert info.value.hint == f"choose a writable location with {option} PATH"
    assert list(outside.iterdir()) == []


def test_the_job_summary_is_appended_to_a_regular_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    envelopes = _envelopes(tmp_path)
    summary = tmp_path / "step" / "summary.md"
    summary.parent.mkdir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    first = build_report(envelopes, out_md=envelopes / "s.md", out_html=envelopes / "i.html")
    assert summary.read_text(encoding="utf-8") == first.markdown  # created when missing
    assert summary.stat().st_mode & 0o777 == 0o644 & ~_umask()
    build_report(envelopes, out_md=envelopes / "s.md", out_html=envelopes / "i.html")
    assert summary.read_text(encoding="utf-8").count("lanekit lanes") == 2


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_an_empty_step_summary_variable_writes_no_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    envelopes = _envelopes(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "")
    before = sorted(path.name for path in tmp_path.iterdir())
    build_report(envelopes, out_md=envelopes / "s.md", out_html=envelopes / "i.html")
    assert sorted(path.name for path in tmp_path.iterdir()) == before


@pytest.mark.timeout(60)
def test_a_fifo_nobody_reads_as_the_step_summary_is_refused_without_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    envelopes = _envelopes(tmp_path)
    fifo = tmp_path / "summary-fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(fifo))
    with pytest.raises(StateError) as info:
        build_report(envelopes, out_md=envelopes / "s.md", out_html=envelopes / "i.html")
    assert (
        info.value.message == f"$GITHUB_STEP_SUMMARY {str(fifo)!r} is not a regular file (a FIFO)"
    )
    assert info.value.hint == SUMMARY_HINT


@pytest.mark.timeout(60)
def test_a_fifo_someone_reads_as_the_step_summary_is_refused_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    envelopes = _envelopes(tmp_path)
    fifo = tmp_path / "summary-fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the open for writing now succeeds
    try:
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(fifo))
        with pytest.raises(StateError) as info:
            build_report(envelopes, out_md=envelopes / "s.md", out_html=envelopes / "i.html")
        assert os.read(reader, 100) == b""  # nothing was written into it
    finally:
        os.close(reader)
    assert info.value.message == f"$GITHUB_STEP_SUMMARY {str(fifo)!r} is not a regular file"
    assert info.value.hint == SUMMARY_HINT


def test_a_step_summary_that_cannot_be_opened_names_it_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    envelopes = _envelopes(tmp_path)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(folder))
    with pytest.raises(StateError) as info:
        build_report(envelopes, out_md=envelopes / "s.md", out_html=envelopes / "i.html")
    assert info.value.message == (
        f"cannot append to $GITHUB_STEP_SUMMARY {str(folder)!r}: Is a directory"
    )
    assert info.value.hint == SUMMARY_HINT


@contextmanager
def _file_size_limit(limit: int) -> Iterator[None]:
    """No file of this process may grow past ``limit`` bytes (a full disk, for one file).

    SIGXFSZ is ignored so that the write fails with EFBIG instead of ending
    the process; both are restored after.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)


@pytest.mark.parametrize("repeat", [1, 40], ids=["a short summary", "a long summary"])
def test_a_step_summary_that_cannot_take_the_append_names_it_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repeat: int
) -> None:
    # Short or long (buffered until the file is closed, or written at once),
    # the failed append is the same typed error, never a traceback.
    envelopes = tmp_path / "envelopes"
    for index in range(repeat):
        write_lane(tmp_path, f"lane{index}", "pass")
    summary = tmp_path / "summary.md"
    limit = 1 << 20
    with summary.open("wb") as handle:
        handle.truncate(limit)  # already at the limit: the append cannot grow it
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    with _file_size_limit(limit), pytest.raises(StateError) as info:
        build_report(envelopes, out_md=envelopes / "s.md", out_html=envelopes / "i.html")
    assert info.value.message == (
        f"cannot append to $GITHUB_STEP_SUMMARY {str(summary)!r}: File too large"
    )
    assert info.value.hint == SUMMARY_HINT
