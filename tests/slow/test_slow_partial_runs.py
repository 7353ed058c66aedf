"""Which runs the slow ratchet calls *partial*, and the reason it gives.

A run that judged only part of the suite must say so (its "pass" says nothing
about the rest): given only some paths or node ids, narrowed by ``-k``, ``-m``,
``--last-failed`` or ``--deselect``, cut short by ``-x``/``--maxfail`` or
``--stepwise``. A run of the whole suite must not.

Real pytest sessions in this process (``pytester.inline_run``): the reasons
are asked at the session's end from the session's own config, as the ratchet's
plugin asks them, so the partial marking is checked on exactly what pytest
decided about the run.
"""

from __future__ import annotations

import pytest

from lanes.slow.selection import partial_reasons

pytestmark = pytest.mark.integration

TWO_TESTS = "def test_one():\n    pass\n\ndef test_two():\n    pass\n"
# Runs first (file order), so -x / --maxfail stop before tests/test_a.py.
FAILING = "def test_fails():\n    assert 0\n\ndef test_fails_too():\n    assert 0\n"


class _AtSessionEnd:
    """Asks ``partial_reasons`` when the session finishes, as the ratchet does."""

    def __init__(self) -> None:
        self.deselected = 0
        self.reasons: list[str] | None = None

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += len(items)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.reasons = partial_reasons(session.config, session, self.deselected)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """tests/test_a.py and tests/unit/test_b.py, ``testpaths = ["tests"]``."""
    # Only the plugins a test names: an installed plugin must not change the run.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeini("[pytest]\ntestpaths = tests\nmarkers =\n    slow: a slow test\n")
    pytester.mkdir("tests")
    pytester.mkdir("tests/unit")
    pytester.path.joinpath("tests", "test_a.py").write_text(TWO_TESTS)
    pytester.path.joinpath("tests", "unit", "test_b.py").write_text(
        "import pytest\n\n@pytest.mark.slow\ndef test_marked():\n    pass\n"
    )
    return pytester


def _reasons(pytester: pytest.Pytester, *args: str, cache: bool = False) -> list[str]:
    judge = _AtSessionEnd()
    plugins = () if cache else ("-p", "no:cacheprovider")
    pytester.inline_run(*plugins, *args, plugins=[judge])
    assert judge.reasons is not None, "the session never finished"
    return judge.reasons


# -- paths ---------------------------------------------------------------------


def test_a_run_of_the_configured_testpaths_is_the_whole_suite(project: pytest.Pytester) -> None:
    assert _reasons(project) == []
    assert _reasons(project, "tests") == []
    # Wider than the testpaths (the project root holds them): still everything.
    assert _reasons(project, ".") == []


def test_a_run_given_only_some_paths_is_partial_and_names_them(project: pytest.Pytester) -> None:
    assert _reasons(project, "tests/test_a.py") == ["selected paths: tests/test_a.py"]
    assert _reasons(project, "tests/test_a.py", "tests/unit") == [
        "selected paths: tests/test_a.py tests/unit"
    ]


def test_a_run_of_one_node_id_is_partial(project: pytest.Pytester) -> None:
    assert _reasons(project, "tests/test_a.py::test_one") == [
        "selected paths: tests/test_a.py::test_one"
    ]


def test_a_node_id_under_a_testpaths_file_is_partial(project: pytest.Pytester) -> None:
    # The configured testpaths is one file; one test of it is still a subset.
    project.makeini("[pytest]\ntestpaths = tests/test_a.py\n")
    assert _reasons(project, "tests/test_a.py") == []
    assert _reasons(project, "tests/test_a.py::test_one") == [
        "selected paths: tests/test_a.py::test_one"
    ]


def test_without_testpaths_a_directory_whose_name_has_a_space_is_a_directory(
    project: pytest.Pytester,
) -> None:
    project.makeini("[pytest]\n")
    project.mkdir("more tests").joinpath("test_c.py").write_text(TWO_TESTS)
    assert _reasons(project, "more tests") == []
    assert _reasons(project, "more tests/test_c.py") == ["selected paths: more tests/test_c.py"]


def test_without_testpaths_a_directory_is_the_whole_suite_and_a_file_a_subset(
    project: pytest.Pytester,
) -> None:
    project.makeini("[pytest]\n")
    assert _reasons(project) == []
    assert _reasons(project, "tests") == []
    assert _reasons(project, "tests/test_a.py") == ["selected paths: tests/test_a.py"]


def test_paths_given_in_a_subdirectory_are_read_from_there(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.path / "tests")
    # "." here is tests/, the configured testpaths: the whole suite.
    assert _reasons(project, ".") == []
    assert _reasons(project, "test_a.py") == ["selected paths: test_a.py"]
    # Without testpaths the same file, named from its own directory, is a subset too.
    project.makeini("[pytest]\n")
    assert _reasons(project, "test_a.py") == ["selected paths: test_a.py"]


def test_a_run_without_arguments_from_a_subdirectory_is_partial(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pytest collects only the directory it was started in when that is not
    # the root: `cd tests/unit && pytest` judges tests/unit alone.
    unit = project.path / "tests" / "unit"
    monkeypatch.chdir(unit)
    assert _reasons(project) == [f"selected paths: {unit}"]
    # Started in tests/, the configured testpaths: the whole suite.
    monkeypatch.chdir(project.path / "tests")
    assert _reasons(project) == []


# -- options that narrow the selection -------------------------------------------


def test_k_and_m_are_named_and_their_deselections_not_counted_again(
    project: pytest.Pytester,
) -> None:
    assert _reasons(project, "-k", "two") == ["-k two"]
    assert _reasons(project, "-m", "slow") == ["-m slow"]
    assert _reasons(project, "-k", "one", "-m", "not slow") == ["-k one", "-m not slow"]


def test_deselect_names_the_node_ids_it_was_given(project: pytest.Pytester) -> None:
    # Named, not counted: under xdist the controller never hears of the deselection.
    assert _reasons(
        project,
        "--deselect",
        "tests/test_a.py::test_one",
        "--deselect",
        "tests/test_a.py::test_two",
    ) == ["--deselect tests/test_a.py::test_one tests/test_a.py::test_two"]


def test_tests_deselected_by_a_plugin_are_counted(project: pytest.Pytester) -> None:
    project.makeconftest(
        "def pytest_collection_modifyitems(config, items):\n"
        "    dropped = [i for i in items if i.name != 'test_one']\n"
        "    items[:] = [i for i in items if i.name == 'test_one']\n"
        "    config.hook.pytest_deselected(items=dropped)\n"
    )
    assert _reasons(project) == ["2 deselected"]


def test_last_failed_is_partial_only_where_the_cache_plugin_runs(
    project: pytest.Pytester,
) -> None:
    assert _reasons(project, "--lf", cache=True) == ["--last-failed"]
    # Without the cache plugin there is no --lf: a run of everything is whole.
    assert _reasons(project) == []


# -- runs cut short ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stop", "why"),
    [
        ("-x", "stopping after 1 failures"),
        ("--maxfail=2", "stopping after 2 failures"),
    ],
)
def test_a_run_stopped_by_a_failure_is_partial_and_says_why(
    project: pytest.Pytester, stop: str, why: str
) -> None:
    project.path.joinpath("tests", "test_0_fails.py").write_text(FAILING)
    assert _reasons(project, stop) == [f"stopped early: {why}"]
    # The same failures without a stop: every test ran, the run is whole.
    assert _reasons(project) == []


def test_a_run_stopped_by_stepwise_is_partial_and_says_why(project: pytest.Pytester) -> None:
    project.path.joinpath("tests", "test_0_fails.py").write_text(FAILING)
    assert _reasons(project, "--stepwise", cache=True) == [
        "stopped early: Test failed, continuing from this test next run."
    ]


def test_every_reason_is_given_in_one_order(project: pytest.Pytester) -> None:
    project.path.joinpath("tests", "test_0_fails.py").write_text(FAILING)
    reasons = _reasons(
        project,
        "tests/test_0_fails.py",
        "tests/test_a.py",
        "-k",
        "fails or one",
        "-m",
        "not slow",
        "--lf",
        "--deselect",
        "tests/test_a.py::test_one",
        "-x",
        cache=True,
    )
    assert reasons == [
        "selected paths: tests/test_0_fails.py tests/test_a.py",
        "-k fails or one",
        "-m not slow",
        "--last-failed",
        "--deselect tests/test_a.py::test_one",
        "stopped early: stopping after 1 failures",
    ]
