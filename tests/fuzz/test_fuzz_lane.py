"""Every mode of ``lanes fuzz`` end to end, on a throwaway project with its own targets."""

from __future__ import annotations

import io
import json
import textwrap
from typing import TYPE_CHECKING, Any

import pytest

from lanes.cli import main
from lanes.config import Config, parse_config
from lanes.errors import ConfigError, UsageError
from lanes.exitcodes import ExitCode
from lanes.fuzz.artifacts import load_corpus
from lanes.fuzz.lane import FuzzOptions, corpus_path, replay_corpus, run_fuzz
from tests.support.documents import read_envelope

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.integration  # real worker processes and Hypothesis runs

_PARSERS = '''
import threading

from hypothesis import strategies as st

from lanes.errors import UsageError


def words():
    return st.text(alphabet="abcxyz!", max_size=6)


def strict(text):
    """Clean: a typed rejection with a hint for anything but letters."""
    if not text.isalpha():
        raise UsageError(f"letters only, got {text!r}", hint="pass letters")


def buggy(text):
    """Planted bug: an unguarded index on the empty string."""
    if text[0] == "!":
        raise UsageError("no bang", hint="drop the !")


def two_bugs(text):
    """Two planted bugs: an unguarded index, and a lookup that fails on a rarer "yy"."""
    if text[0] == "!":
        raise UsageError("no bang", hint="drop the !")
    if "yy" in text:
        return {}[text]
    return text


def hangs_on_z(text):
    if "z" in text:
        threading.Event().wait()


def broken_strategy():
    return st.text().map(lambda _text: 1 // 0)


def impossible():
    return st.text().filter(lambda _text: False)
'''


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, iterations: int = 30) -> Config:
    package = tmp_path / "src"
    package.mkdir()
    (package / "fuzz_project_parsers.py").write_text(textwrap.dedent(_PARSERS), encoding="utf-8")
    monkeypatch.syspath_prepend(str(package))

    def target(function: str, strategy: str = "words") -> dict[str, str]:
        return {
            "callable": f"fuzz_project_parsers:{function}",
            "strategy": f"fuzz_project_parsers:{strategy}",
            "error": "lanes.errors:UsageError",
        }

    table = {
        "fuzz": {
            "iterations": iterations,
            "case_budget": 0.5,
            "targets": {
                "strict": target("strict"),
                "buggy": target("buggy"),
                "two-bugs": target("two_bugs"),
                "hangs": target("hangs_on_z"),
                "broken-strategy": target("strict", "broken_strategy"),
                "impossible": target("strict", "impossible"),
            },
        }
    }
    return parse_config(table, root=tmp_path)


def _envelope(config: Config, name: str) -> dict[str, Any]:
    document = read_envelope(config.root / "envelopes" / name)
    assert document["lane"] == "fuzz"
    return document


def _run(config: Config, **options: Any) -> tuple[ExitCode, str]:
    out = io.StringIO()
    code = run_fuzz(FuzzOptions(**options), config, out=out)
    return code, out.getvalue()


def test_clean_target_passes_with_a_valid_envelope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _project(tmp_path, monkeypatch)
    code, _ = _run(config, targets=("strict",), seed=3)
    assert code == ExitCode.OK
    envelope = _envelope(config, "fuzz.json")
    assert envelope["result"] == "pass"
    assert envelope["seed"] == 3
    [target] = envelope["data"]["targets"]
    assert target["name"] == "strict"
    assert target["cases"] > 0
    assert target["failures"] == 0


def test_planted_bug_is_found_shrunk_saved_replayed_and_promoted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _project(tmp_path, monkeypatch)
    code, printed = _run(config, targets=("buggy",))
    assert code == ExitCode.FAIL
    envelope = _envelope(config, "fuzz.json")
    [failure] = envelope["data"]["failures"]
    assert failure["kind"] == "untyped"
    assert failure["error_type"] == "IndexError"
    assert failure["input_preview"] == "''"  # shrunk to the smallest input
    assert failure["repro"] in printed
    assert failure["promote"] in printed
    artifact = tmp_path / failure["artifact"]
    saved = json.loads(artifact.read_text(encoding="utf-8"))
    assert saved["input"] == ""
    assert saved["found_by"]["seed"] == 1
    assert saved["found_by"]["reproduce_failure"].startswith("@reproduce_failure(")

    # The printed repro reproduces it...
    code, printed = _run(config, input_file=artifact)
    assert code == ExitCode.FAIL
    assert "IndexError" in printed
    assert _envelope(config, "fuzz-replay.json")["data"]["replay"]["reproduced"] is True

    # ...and the promote pins it in the corpus, once.
    assert _run(config, input_file=artifact, append_corpus=True)[0] == ExitCode.FAIL
    assert _run(config, input_file=artifact, append_corpus=True)[0] == ExitCode.FAIL
    [entry] = load_corpus(corpus_path(config))
    assert (entry.target, entry.value, entry.kind) == ("buggy", "", "untyped")
    assert entry.note.startswith("untyped: IndexError: ")
    assert _envelope(config, "fuzz-replay.json")["data"]["corpus"] == {
        "path": "baselines/fuzz-regressions.json",
        "added": False,
    }


def test_one_bug_does_not_hide_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Regression: a target's search stopped at its first failure (the empty
    # string's IndexError, drawn first; Hypothesis then stops generating ~10
    # calls later), so its KeyError on "yy" stayed hidden until the first bug
    # was fixed.
    config = _project(tmp_path, monkeypatch, iterations=200)
    code, _ = _run(config, targets=("two-bugs",), seed=5)
    assert code == ExitCode.FAIL
    failures = _envelope(config, "fuzz.json")["data"]["failures"]
    assert sorted(f["error_type"] for f in failures) == ["IndexError", "KeyError"]


def test_promoted_cases_are_replayed_through_the_watchdog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _project(tmp_path, monkeypatch)
    assert _run(config, targets=("hangs",))[0] == ExitCode.FAIL
    [failure] = _envelope(config, "fuzz.json")["data"]["failures"]
    assert failure["kind"] == "stall"
    assert failure["input_preview"] == "'z'"
    _run(config, input_file=tmp_path / failure["artifact"], append_corpus=True)

    # What tests/fuzz/test_corpus_replay.py does for the real corpus: the hang
    # comes back as a stall after one budget instead of wedging the suite.
    [(entry, outcome)] = replay_corpus(config)
    assert entry.value == "z"
    assert outcome.kind == "stall"


def test_self_check_passes_only_by_catching_every_broken_target(tmp_path: Path) -> None:
    config = parse_config({}, root=tmp_path)
    code, printed = _run(config, self_check=True)
    assert code == ExitCode.OK, printed
    data = _envelope(config, "fuzz-self-check.json")["data"]
    assert data["self_check"]["missed"] == []
    assert data["self_check"]["caught"] == {
        "untyped-throw": ["untyped"],
        "blank-hint": ["empty-hint"],
        "wedged": ["stall"],
        "must-accept": ["unexpected-rejection"],
        "well-behaved": [],
    }
    # The self-check never writes over the real run's envelope.
    assert not (tmp_path / "envelopes" / "fuzz.json").exists()


def test_harness_crash_leaves_an_error_envelope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _project(tmp_path, monkeypatch)
    with pytest.raises(ZeroDivisionError):
        _run(config, targets=("broken-strategy",))
    envelope = _envelope(config, "fuzz.json")
    assert envelope["stage"] == "error"
    assert envelope["error"]["type"] == "ZeroDivisionError"


def test_a_strategy_hypothesis_cannot_satisfy_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _project(tmp_path, monkeypatch, iterations=5)
    with pytest.raises(ConfigError) as caught:
        _run(config, targets=("impossible",))
    assert "[tool.lanes.fuzz.targets.impossible] strategy" in caught.value.message
    assert _envelope(config, "fuzz.json")["stage"] == "error"


def test_bad_user_reference_is_a_config_error_with_an_error_envelope(tmp_path: Path) -> None:
    table = {
        "fuzz": {
            "targets": {"mine": {"callable": "fuzz_nowhere:parse", "strategy": "fuzz_nowhere:s"}}
        }
    }
    config = parse_config(table, root=tmp_path)
    with pytest.raises(ConfigError) as caught:
        _run(config, targets=("mine",))
    assert "[tool.lanes.fuzz.targets.mine] callable" in caught.value.message
    assert "importable" in caught.value.hint
    assert _envelope(config, "fuzz.json")["stage"] == "error"


@pytest.mark.parametrize(
    "options",
    [
        {"append_corpus": True},
        {"self_check": True, "targets": ("payload",)},
        {"targets": ("no-such-target",)},
    ],
)
def test_usage_errors_say_what_to_do(tmp_path: Path, options: dict[str, Any]) -> None:
    config = parse_config({}, root=tmp_path)
    with pytest.raises(UsageError) as caught:
        _run(config, **options)
    assert caught.value.hint.strip()


def _pyproject(tmp_path: Path, fuzz_table: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(f'[project]\nname = "p"\n\n{textwrap.dedent(fuzz_table)}', encoding="utf-8")
    return path


def test_cli_exit_codes_follow_the_contract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, monkeypatch)  # writes the parsers module and puts it on sys.path
    config = _pyproject(
        tmp_path,
        """
        [tool.lanes.fuzz]
        iterations = 20

        [tool.lanes.fuzz.targets.strict]
        callable = "fuzz_project_parsers:strict"
        strategy = "fuzz_project_parsers:words"
        error = "lanes.errors:UsageError"

        [tool.lanes.fuzz.targets.broken-strategy]
        callable = "fuzz_project_parsers:strict"
        strategy = "fuzz_project_parsers:broken_strategy"
        """,
    )
    assert main(["fuzz", "--config", str(config), "--target", "strict"]) == ExitCode.OK
    assert main(["fuzz", "--config", str(config), "--append-corpus"]) == ExitCode.USAGE
    assert "hint: " in capsys.readouterr().err
    assert main(["fuzz", "--config", str(config), "--target", "broken-strategy"]) == ExitCode.CRASH
    assert "the fuzz lane crashed: ZeroDivisionError" in capsys.readouterr().err
    assert (
        json.loads((tmp_path / "envelopes" / "fuzz.json").read_text(encoding="utf-8"))["stage"]
        == "error"
    )
