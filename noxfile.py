"""lanekit's sessions. CI calls these and nothing else (workflows stay thin).

    nox -s tests            the unit suite (pytest, xdist)
    nox -s lint             ruff check, ruff format --check, mypy --strict
    nox -s lanes            the main job: every lane, then the report
    nox -s bench            the governor's own cost (hook latency ratio, classify throughput)
    nox -s build            sdist + wheel in dist/, checked (twine, check-sdist, tests from the sdist)
    nox -s timing           what each suite costs, the xdist verdict, Δ vs baselines/timing.json
    nox -s docs             the documentation site in site/ (strict: broken links fail it)

Sessions use the interpreter nox runs under, so `python3 -m pip install nox uv`
on a machine with only python3 and pip is enough (uv is optional; it makes each
session's install take seconds); CI picks the Python version by installing nox
under it.

A session reuses its virtualenv and installs only when what decides it changed
(the install arguments, pyproject.toml's dependency metadata, lanekit's version;
a digest kept in the venv as .lanes-install-digest), so a second `nox -s slow`
costs what `nox -R -s slow` does. LANES_REINSTALL=1 forces the install (a new
release inside a version range); `nox --reuse-venv=no` rebuilds the venv. uv is
nox's backend where it is installed, virtualenv otherwise.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
import uuid
from typing import TYPE_CHECKING

import nox

if TYPE_CHECKING:
    from collections.abc import Sequence

# uv when it is installed (it installs several times faster than pip), else virtualenv.
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests", "lint"]

# One group_id for every envelope of one nox invocation (GITHUB_RUN_ID wins in
# CI), so `lanes report` can tell this run's envelopes from stale ones.
os.environ.setdefault("LANES_GROUP_ID", f"nox-{uuid.uuid4()}")

PYPROJECT = nox.project.load_toml("pyproject.toml")
LANES = ".[lanes]"
# The unit suite covers the mutation lane too, so mutmut comes with its extra.
TESTS = ".[lanes,mutation]"


# Kept in a session's venv: the digest of the inputs its last complete install had.
INSTALL_DIGEST = ".lanes-install-digest"


def _version_line() -> str:
    """lanekit's own version as declared (pyproject reads it from lanes/__init__.py)."""
    text = pathlib.Path("lanes/__init__.py").read_text(encoding="utf-8")
    return next((line for line in text.splitlines() if line.startswith("__version__")), "")


def _tree_digest() -> str:
    """The package's files, for a regular (non-editable) install, which copies them."""
    digest = hashlib.sha256()
    for path in sorted(pathlib.Path("lanes").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _install_once(session: nox.Session, *steps: Sequence[str], copies_tree: bool = False) -> None:
    """`session.install(*step)` for each step, unless this venv already holds exactly these inputs.

    Installing again into a reused venv only re-runs pip's resolution: 28 s of a
    39 s `nox -s slow` whose suite takes 10 s. An editable install
    follows code edits by itself; only the dependency metadata and the version
    need a new install (`copies_tree` adds the package's files for a regular one).
    """
    inputs = {
        "steps": [list(step) for step in steps],
        "pyproject": {
            key: PYPROJECT.get(key) for key in ("project", "build-system", "dependency-groups")
        },
        "version": _version_line(),
        "tree": _tree_digest() if copies_tree else None,
        "backend": session.venv_backend,
    }
    digest = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()
    # nox's --no-install (-R) skips installs into a reused venv; nox offers no
    # public accessor for it, and the digest must not claim an install it skipped.
    no_install = bool(
        getattr(
            getattr(getattr(session, "_runner", None), "global_config", None), "no_install", False
        )
    )
    marker = pathlib.Path(session.virtualenv.location) / INSTALL_DIGEST
    if (
        os.environ.get("LANES_REINSTALL") != "1"
        and marker.is_file()
        and marker.read_text(encoding="utf-8") == digest
    ):
        session.log(
            f"install inputs unchanged ({INSTALL_DIGEST}): not reinstalling; LANES_REINSTALL=1 forces it"
        )
        return
    if not no_install:
        # Removed first: an install that fails half-way must leave no digest claiming a complete venv.
        marker.unlink(missing_ok=True)
    # No `pip install --upgrade pip` first: every virtualenv nox accepts
    # (>= 20.14) seeds a pip that installs editable pyproject projects (>= 21.3),
    # and the upgrade cost a round trip to the index per venv — seven of them
    # on a fresh clone's main job (1-3 s each quiet, 21 s here under load).
    for step in steps:
        session.install(*step)
    if not no_install:
        marker.write_text(digest, encoding="utf-8")


def _install(session: nox.Session, extra: str = LANES) -> None:
    _install_once(session, ("-e", extra))


def _install_suite(session: nox.Session) -> None:
    """Everything this repository's own unit suite imports, for the sessions that run it.

    That is `tests` and the lanes that measure the suite (slow, timing, affected):
    with `.[lanes]` alone, a fresh clone's `nox -s lanes` failed collection on PyYAML.
    """
    # Dependency groups are read here rather than with `pip install --group`,
    # which needs pip >= 25.1.
    _install_once(session, ("-e", TESTS), tuple(nox.project.dependency_groups(PYPROJECT, "test")))


@nox.session
def tests(session: nox.Session) -> None:
    """The unit suite. Extra arguments go to pytest: nox -s tests -- tests/test_config.py -k name."""
    _install_suite(session)
    args = session.posargs or ["-n", "auto"]
    session.run("pytest", *args)


@nox.session(name="tests-wheel")
def tests_wheel(session: nox.Session) -> None:
    """The unit suite against the built wheel, not the source tree: what `pip install` gives users.

    Catches what an editable install hides: package data left out of the wheel
    (templates, the envelope schema), modules outside the package, entry points.
    Extra arguments go to pytest.
    """
    session.install("--upgrade", "pip")
    # Not session.create_tmp(): it points TMPDIR inside the checkout, and the
    # tests' temporary projects must not sit inside a git repository.
    dist = pathlib.Path(session.virtualenv.location) / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    session.run("python", "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(dist), ".")
    (wheel,) = dist.glob("lanekit-*.whl")
    session.install(f"lanekit[lanes,mutation] @ {wheel.resolve().as_uri()}")
    session.install(*nox.project.dependency_groups(PYPROJECT, "test"))
    # -I: without the current directory on sys.path, `lanes` must come from the wheel.
    session.run(
        "python",
        "-I",
        "-c",
        "import lanes, sys; sys.exit(0 if 'site-packages' in lanes.__file__ else "
        "f'lanes was imported from {lanes.__file__}, not the installed wheel')",
    )
    # pytest's console script does not put the checkout on sys.path either
    # (importlib mode finds the `tests` package, helpers and all, by its files).
    session.run("pytest", *(session.posargs or ["-n", "auto", "-p", "no:cacheprovider"]))


# The part of the unit suite run from the unpacked sdist: packaging and the
# exports' validators (vendored schemas, templates), enough to prove the sdist
# carries a runnable suite without spending a full run.
SDIST_SMOKE: tuple[str, ...] = (
    "tests/foundation/test_packaging.py",
    "tests/report/test_report_interop.py",
)


@nox.session
def build(session: nox.Session) -> None:
    """The sdist and wheel a release publishes, in dist/, checked as a packager would.

    twine check --strict (metadata PyPI renders), check-sdist (the sdist holds
    what git tracks, except what [tool.check-sdist] lists), and a part of the
    unit suite run from the unpacked sdist against the built wheel.
    """
    session.install("--upgrade", "pip")
    session.install("build", "twine", "check-sdist")
    dist = pathlib.Path("dist")
    shutil.rmtree(dist, ignore_errors=True)
    session.run("python", "-m", "build", "--outdir", str(dist))
    files = sorted(str(path) for path in dist.iterdir())
    session.run("twine", "check", "--strict", *files)
    session.run("check-sdist", "--inject-junk")
    (sdist,) = dist.glob("lanekit-*.tar.gz")
    (wheel,) = dist.glob("lanekit-*.whl")
    # Outside the checkout: the tests' temporary projects must not sit inside a git repository.
    unpacked = pathlib.Path(session.virtualenv.location) / "sdist"
    shutil.rmtree(unpacked, ignore_errors=True)
    shutil.unpack_archive(sdist, unpacked)
    (tree,) = unpacked.iterdir()
    session.install(f"lanekit[lanes,mutation] @ {wheel.resolve().as_uri()}")
    session.install(*nox.project.dependency_groups(PYPROJECT, "test"))
    session.chdir(tree)
    session.run("pytest", "-p", "no:cacheprovider", *(session.posargs or SDIST_SMOKE))


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (lint + format check) and mypy --strict over lanes/, tests/ and noxfile.py."""
    _install_once(session, ("-e", LANES), tuple(nox.project.dependency_groups(PYPROJECT, "dev")))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")


@nox.session
def docs(session: nox.Session) -> None:
    """The documentation site in site/: the reference regenerated from the code, then
    `mkdocs build --strict` (a warning, a broken link or anchor fails it).

    Regenerating first means a CLI option, setting or payload field missing from
    the committed reference fails here (the diff is shown) instead of shipping.
    """
    _install(session)
    session.install(*nox.project.dependency_groups(PYPROJECT, "docs"))
    session.run("python", "-m", "lanes._docs_reference", "--check")
    # The theme's banner about its successor is advice, not a build problem.
    session.run("mkdocs", "build", "--strict", "--clean", env={"NO_MKDOCS_2_WARNING": "1"})


@nox.session
def bench(session: nox.Session) -> None:
    """The governor's own cost: hook latency as a ratio to `python -c pass`, classify throughput.

    Extra arguments go to `lanes bench`: nox -s bench -- --iterations 80 --only hook-latency.
    """
    # A regular install, not -e: setuptools' editable finder imports pathlib
    # and re at every interpreter start (~25 ms here), which would inflate the
    # `python -c pass` baseline and flatter the ratio. Users get a regular one.
    _install_once(session, (LANES,), copies_tree=True)
    session.run("lanes", "bench", *session.posargs)


@nox.session
def fuzz(session: nox.Session) -> None:
    """Hypothesis-generated hostile input to every parser target, through a hang watchdog.

    Extra arguments go to `lanes fuzz`: nox -s fuzz -- --target payload --iterations 50000 --seed 7;
    nox -s fuzz -- --self-check; nox -s fuzz -- --input-file envelopes/fuzz/<case>.json.
    """
    _install(session)
    session.run("lanes", "fuzz", *session.posargs)


MUTATION_SHARDS = "envelopes/mutation/shards"


@nox.session
def mutation(session: nox.Session) -> None:
    """The mutation ratchet over [tool.lanes.mutation]: self-check, every module, merge, check.

    Locally each module runs as one shard (in a private copy of the tree). With
    arguments, one verb of `lanes mutation` (what the weekly workflow's jobs run):
    nox -s mutation -- run --module lock --shard 1/2; nox -s mutation -- matrix.
    """
    # The registry's tests are lanekit's own suite: without its test group the
    # slow lane's tests (pytest-rerunfailures, pytest-json-ctrf) fail mutmut's
    # clean run, and slow-selection and slow-confirmation never swept (exit 3).
    _install_once(
        session,
        ("-e", ".[mutation]"),
        tuple(nox.project.dependency_groups(PYPROJECT, "test")),
    )
    if session.posargs:
        session.run("lanes", "mutation", *session.posargs)
        return
    session.run("lanes", "mutation", "--self-check")
    # Shards of an earlier sweep carry another group_id: the merge would refuse them.
    shutil.rmtree(MUTATION_SHARDS, ignore_errors=True)
    session.run("lanes", "mutation", "run", "--out", MUTATION_SHARDS)
    count = session.run("lanes", "mutation", "matrix", "--whole", "--count", silent=True)
    expected = str(count).strip()
    session.run("lanes", "mutation", "merge", "--expect-shards", expected, MUTATION_SHARDS)
    session.run("lanes", "mutation", "check")


# The PR-sized torture run: the default seed sweep, every planted bug, and a
# short real-process guard, a few agents through the real hook. A replay
# (--seed / --schedule) runs alone.
TORTURE_PR_ARGS: tuple[str, ...] = (
    "--self-check",
    "--real",
    "--procs",
    "4",
    "--iterations",
    "40",
    "--agents",
    "3",
    "--tasks",
    "4",
)


@nox.session
def torture(session: nox.Session) -> None:
    """Seeded concurrency torture of the run lock and ledger, self-check, real-process guard.

    Extra arguments go to `lanes torture`: nox -s torture -- --runs 5000 --seed-start 20000;
    nox -s torture -- --seed 1234 (replays one seed alone); --schedule FILE replays a shrunk one.
    """
    _install(session)
    replay = any(arg.split("=")[0] in ("--seed", "--schedule") for arg in session.posargs)
    args = list(session.posargs) if replay else [*TORTURE_PR_ARGS, *session.posargs]
    session.run("lanes", "torture", *args)


@nox.session
def slow(session: nox.Session) -> None:
    """The slow-test ratchet over this repository's own suite; writes envelopes/slow.json.

    Extra arguments go to pytest: nox -s slow -- -n 2; nox -s slow -- tests/slow.
    Review pin-list edits with `lanes slow check --base origin/main`.
    """
    _install_suite(session)
    # --self-check first proves the ratchet fails a planted slow test.
    if session.posargs[:1] == ["--from-run"]:
        # The main job: judge the suite run the timing lane measured (MAIN_JOB_ARGS).
        session.run("lanes", "slow", "run", "--self-check", *session.posargs)
        return
    session.run("lanes", "slow", "run", "--self-check", "--", *session.posargs)


@nox.session(name="slow-check")
def slow_check(session: nox.Session) -> None:
    """A branch's edits to the slow-test pin list against a base revision (pins may only shrink).

    Extra arguments go to `lanes slow check`: nox -s slow-check -- --base origin/main.
    """
    _install(session)
    session.run("lanes", "slow", "check", *session.posargs)


@nox.session
def timing(session: nox.Session) -> None:
    """What each suite costs and how that moved against baselines/timing.json; writes envelopes/timing.json.

    Extra arguments go to `lanes timing`: nox -s timing -- --repeat 5; nox -s timing -- --suite unit
    --workers 0; nox -s timing -- --record (then review and commit baselines/timing.json).
    """
    _install_suite(session)
    # --self-check first proves the lane flags a planted regression.
    session.run("lanes", "timing", "--self-check", *session.posargs)


@nox.session
def affected(session: nox.Session) -> None:
    """The tests and checks this branch's changes need, run once; writes envelopes/affected.json.

    Extra arguments go to `lanes affected`: nox -s affected -- --base origin/main;
    nox -s affected -- --recall 20 (plants 20 bugs, one full suite run each);
    nox -s affected -- --record (the nightly job: records the map of what each
    test executed into envelopes/affected-map.json, uploaded with the envelopes).
    """
    _install_suite(session)
    # --self-check first proves the selector on a project whose answer is known.
    args = session.posargs or ["--self-check", "--run"]
    session.run("lanes", "affected", *args)


# The main job's lanes, in the order `nox -s lanes` runs them. A lane that
# belongs in the main job adds its session name here; the report always runs
# last, over whatever envelopes the lanes left (pass, fail or crash). Not the
# mutation lane: a sweep of the registry takes 12 minutes on a quiet 2-core
# machine and about an hour under load, so it
# runs weekly (weekly-mutation.yml) and by hand (`nox -s mutation`).
LANE_SESSIONS: tuple[str, ...] = ("bench", "fuzz", "torture", "timing", "slow", "affected")

# The main job's profile: the arguments `nox -s lanes` gives a lane instead of
# its own defaults, so that the main job fits ten minutes on two cores. Each
# lane alone (`nox -s bench`, `nox -s slow`, `nox -s timing`: the nightly
# workflow) keeps its full profile. What each cut costs is in
# docs/explanation/measurements.md ("The main job's time").
MAIN_JOB_ARGS: dict[str, tuple[str, ...]] = {
    # Half the paired samples and rounds (40 -> 20); the instruction-count
    # benches' light profile: per arm a 100- and a 1000-test suite in one layout, the
    # 2,000-test count extrapolated through them (lanes/bench/valgrind.py),
    # instead of the 2,000-test suite in five layouts. Every goal is still
    # judged on the 2,000-test figure, with a wider interval. Only the benchmarks
    # with a gating goal (--gating-only): the tracked and goal-less ones (the
    # 50k-file gate, the plugin's agent cost, the recording overhead, the tree
    # digest, the economy simulation; ~1 min) stay in the nightly `nox -s bench`.
    "bench": ("--iterations", "20", "--gating-only"),
    # 1,000 cases per target instead of 2,000 (the pull-request job keeps
    # 2,000, the nightly fuzz job runs 20,000): each parser still meets
    # hostile input, the hang watchdog and the typed-error contract.
    "fuzz": ("--iterations", "1000"),
    # One run of the suite for two lanes (it was half the job when each ran
    # its own): the timing lane measures it at -n <CPU count> with the slow
    # ratchet enabled, and compares it with the baseline's arm recorded the
    # same way ("-n 2 + slow ratchet"), never with the serial arm; the slow
    # lane judges the ratchet's result of that run — a verdict per test as
    # before (offenders re-timed serially, contention taken out). The
    # serial arm, its CPU gate and the serial vs -n comparison stay nightly
    # (`nox -s timing`, `nox -s slow` alone). The ratchet's result is kept
    # outside envelopes/*.json (the report reads each file there as an
    # envelope); timing runs before slow (LANE_SESSIONS). Literal paths:
    # the packaging test reads this table without importing the noxfile.
    "timing": ("--with-slow-ratchet", "envelopes/shared-run/slow-ratchet.json"),
    "slow": ("--from-run", "envelopes/shared-run/slow-ratchet.json"),
}


@nox.session(venv_backend="none")  # it only queues other sessions: no virtualenv to build
def lanes(session: nox.Session) -> None:
    """The main job: every lane in LANE_SESSIONS (MAIN_JOB_ARGS's profile), then the report."""
    for name in LANE_SESSIONS:
        session.notify(name, posargs=MAIN_JOB_ARGS.get(name))
    # notify() queues after the sessions already queued, so the report is last.
    session.notify("report")


@nox.session
def report(session: nox.Session) -> None:
    """Render envelopes/ into summary.md (+ $GITHUB_STEP_SUMMARY) and index.html; fails if a lane failed."""
    _install(session)
    session.run("lanes", "report", *session.posargs)


@nox.session(name="report-browser")
def report_browser(session: nox.Session) -> None:
    """envelopes/index.html in headless Chromium: no console errors, nothing wider than the screen.

    Screenshots land in envelopes/ (report-desktop.png, report-phone.png). Skips
    (with the reason) where no chromium is installed: apt-get install chromium.
    Renders the report first when envelopes/index.html does not exist yet.
    """
    _install(session)
    if not os.path.exists("envelopes/index.html"):  # noqa: PTH110  # one check, no Path import for it
        session.run("lanes", "report", success_codes=[0, 1])  # a failed lane still renders
    session.run(
        "pytest",
        "tests/report/test_report_browser.py",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-rs",
        *session.posargs,
        env={"LANES_REPORT_HTML": "envelopes/index.html", "LANES_REPORT_SCREENSHOTS": "envelopes"},
    )


# Where the nightly report keeps earlier runs' envelopes (restored from and
# saved to the Actions cache): one folder per run, the newest HISTORY_RUNS kept.
HISTORY_DIR = pathlib.Path("report-history")
HISTORY_RUNS = 60


@nox.session(name="report-history")
def report_history(session: nox.Session) -> None:
    """The report with trends since earlier runs; this run's envelopes join the history.

    Extra arguments go to `lanes report` (e.g. --junit FILE --ctrf FILE).
    """
    _install(session)
    run_dir = HISTORY_DIR / os.environ.get("GITHUB_RUN_ID", f"local-{uuid.uuid4().hex[:12]}")
    run_dir.mkdir(parents=True, exist_ok=True)
    for envelope in pathlib.Path("envelopes").glob("*.json"):
        shutil.copy2(envelope, run_dir / envelope.name)
    runs = sorted((p for p in HISTORY_DIR.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    for stale in runs[:-HISTORY_RUNS]:
        shutil.rmtree(stale)
    # The report leaves this run's own envelopes out of the history (same run_id).
    session.run("lanes", "report", "--history", str(HISTORY_DIR), *session.posargs)
