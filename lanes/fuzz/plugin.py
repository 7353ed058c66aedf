"""The regression corpus in a project's own pytest run (entry point ``lanes.fuzz``).

``lanes fuzz --append-corpus`` pins a case in ``baselines/fuzz-regressions.json``
and promises that the unit suite fails until the parser is fixed. This plugin
keeps that promise in any project with lanekit installed: it adds one test item
per corpus entry, ``baselines/fuzz-regressions.json::<target>-<id>``, replayed
through the same watchdog and case budget as the lane (a promoted hang fails
after one budget instead of wedging the session).

When it runs (``--fuzz-corpus`` / ini ``lanes_fuzz_corpus``):
- ``auto`` (default): when the corpus file exists and pytest collects the
  whole suite (no arguments, or the rootdir or a ``testpaths`` entry as in
  ``pytest tests``), so ``pytest tests/test_one.py`` stays as narrow as asked;
- ``on``: whenever the corpus file exists, also with explicit paths;
- ``off``: never.

Cheap when it does nothing: this module imports only what pytest has loaded,
and :mod:`lanes.fuzz.lane` (Hypothesis, the watchdog) loads only when a corpus
case runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import pytest

from lanes._pytest_project import pyproject_of

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.fuzz.artifacts import CorpusEntry
    from lanes.fuzz.lane import CorpusReplayer

__all__ = ["pytest_addoption", "pytest_collection_modifyitems", "pytest_unconfigure"]

MODES: Final = ("auto", "on", "off")
_CORPUS_FILE: Final = "fuzz-regressions.json"
_REPLAYER: Final[pytest.StashKey[CorpusReplayer]] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lanes-fuzz", "fuzz regression corpus (lanekit)")
    group.addoption(
        "--fuzz-corpus",
        choices=MODES,
        default=None,
        help="replay baselines/fuzz-regressions.json as one test per case: auto (default: "
        "when the whole suite is collected), on, off (also: ini lanes_fuzz_corpus)",
    )
    parser.addini(
        "lanes_fuzz_corpus",
        help="replay the fuzz regression corpus: auto, on or off (default auto)",
        default="auto",
    )
    # lanekit's own parsers are not the user's code, and an entry for one of
    # them is the one way a committed corpus could reach the filesystem:
    # they replay in a user's project only when asked.
    parser.addini(
        "lanes_fuzz_builtin",
        help="also replay corpus entries of lanekit's built-in fuzz targets (default false)",
        type="bool",
        default=False,
    )


def _mode(config: pytest.Config) -> str:
    option = config.getoption("fuzz_corpus")
    if option is not None:
        return str(option)
    value = str(config.getini("lanes_fuzz_corpus")).strip().lower()
    if value not in MODES:
        msg = f"ini lanes_fuzz_corpus must be one of {', '.join(MODES)}, got {value!r}"
        raise pytest.UsageError(msg)
    return value


def _corpus_path(pyproject: Path | None, rootpath: Path) -> Path:
    """``<baseline_dir>/fuzz-regressions.json`` of the project, without loading lanes.config."""
    if pyproject is None:
        return rootpath / "baselines" / _CORPUS_FILE
    from lanes._textdoc import load_toml  # noqa: PLC0415  # only with a pyproject to read

    baseline_dir: object = "baselines"
    try:
        # Strict: never blocks on a FIFO, never reads a huge file whole.
        document = load_toml(pyproject, what=str(pyproject), fail=ValueError, follow_symlinks=True)
        tool = (document or {}).get("tool")
        lanes = tool.get("lanes") if isinstance(tool, dict) else None
        if isinstance(lanes, dict):
            baseline_dir = lanes.get("baseline_dir", "baselines")
    except ValueError:
        pass  # pytest reports a broken pyproject.toml itself
    if not isinstance(baseline_dir, str):
        baseline_dir = "baselines"  # lanes.config rejects it with a hint when the cases load
    return pyproject.parent / baseline_dir / _CORPUS_FILE


def _whole_suite(config: pytest.Config) -> bool:
    """No arguments, or one naming the rootdir or a ``testpaths`` entry (``pytest tests``)."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return True
    root = config.rootpath.resolve()
    wide = {root, *((root / entry).resolve() for entry in config.getini("testpaths"))}
    here = config.invocation_params.dir
    for arg in config.args:
        if "::" in arg:
            continue  # a node id is a narrow run by definition
        if (here / arg).resolve() in wide:
            return True
    return False


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    mode = _mode(config)
    if mode == "off" or (mode == "auto" and not _whole_suite(config)):
        return
    if config.getoption("collectonly") and mode == "auto":
        return
    pyproject = pyproject_of(config)
    corpus = _corpus_path(pyproject, config.rootpath)
    if not corpus.is_file():
        return
    collector = CorpusFile.from_parent(session, path=corpus)
    collector.pyproject = pyproject
    items.extend(item for item in collector.collect() if isinstance(item, pytest.Item))


class CorpusFile(pytest.File):
    """``baselines/fuzz-regressions.json``: one item per promoted case."""

    pyproject: Path | None = None

    def collect(self) -> list[pytest.Item]:
        from lanes.config import load_config  # noqa: PLC0415  # only with a corpus to replay
        from lanes.errors import LanesError  # noqa: PLC0415
        from lanes.fuzz.lane import CorpusReplayer  # noqa: PLC0415

        try:
            config = load_config(self.pyproject, cwd=self.path.parent)
            replayer = CorpusReplayer(
                config, builtin=bool(self.config.getini("lanes_fuzz_builtin"))
            )
            entries = replayer.entries()
        except LanesError as exc:
            msg = f"fuzz regression corpus {self.path}: {exc.message}\nhint: {exc.hint}"
            raise pytest.UsageError(msg) from None
        self.config.stash[_REPLAYER] = replayer
        return [
            CorpusCase.from_parent(self, name=f"{entry.target}-{entry.id}", entry=entry)
            for entry in entries
        ]


class CorpusCaseFailedError(Exception):
    """A promoted case is not handled cleanly (yet)."""


class CorpusCase(pytest.Item):
    def __init__(self, *, entry: CorpusEntry, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]  # pytest's from_parent passes its own keywords
        self.entry = entry

    def runtest(self) -> None:
        from lanes.errors import LanesError  # noqa: PLC0415  # loaded by the collector already

        try:
            outcome = self.config.stash[_REPLAYER].replay(self.entry)
        except LanesError as exc:
            # Refused before any worker ran it: the entry, not the parser, is wrong.
            msg = (
                f"malformed fuzz corpus entry {self.entry.id} (target {self.entry.target!r}): "
                f"{exc.message}\nhint: {exc.hint}"
            )
            raise CorpusCaseFailedError(msg) from None
        if outcome.failed:
            from lanes.fuzz.artifacts import preview  # noqa: PLC0415

            headline = (
                f"promoted fuzz case {self.entry.id} of target {self.entry.target!r} "
                f"(was {self.entry.kind}) fails: {outcome.summary()}"
            )
            lines = [headline, f"input: {preview(self.entry.value)}"]
            if self.entry.note:
                lines.append(f"note: {self.entry.note}")
            if outcome.detail:
                lines.append(outcome.detail.rstrip())
            raise CorpusCaseFailedError("\n".join(lines))

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: object = None,
    ) -> str:
        if isinstance(excinfo.value, CorpusCaseFailedError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"fuzz corpus: {self.entry.target} {self.entry.id}"


def pytest_unconfigure(config: pytest.Config) -> None:
    replayer = config.stash.get(_REPLAYER, None)
    if replayer is not None:
        replayer.close()
