"""The CLI explains itself: every ``--help`` has a description, examples and the
exit codes; ``lanes hook`` has a help and rejects an unknown agent; the shipped
shell completions work in a real bash."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from lanes._cli_help import EXAMPLES, walk
from lanes.cli import build_parser

pytestmark = pytest.mark.integration

LANES = str(Path(sys.executable).with_name("lanes"))
PATHS = [path for path, _parser, _help in walk(build_parser())]


def _lanes(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LANES_", "CLAUDE", "CODEX"))}
    return subprocess.run(
        [LANES, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize("path", PATHS)
def test_every_help_has_a_description_examples_and_exit_codes(path: str) -> None:
    parser = {p: s for p, s, _h in walk(build_parser())}[path]
    text = parser.format_help()
    assert parser.description, f"`lanes {path} --help` has no description"
    assert "examples:\n  lanes" in text, (
        f"`lanes {path}`: add examples to EXAMPLES in lanes/_cli_help.py"
    )
    assert "exit codes:" in text


@pytest.mark.parametrize("example", sorted({e for lines in EXAMPLES.values() for e in lines}))
def test_every_example_parses(example: str) -> None:
    words = shlex.split(example, comments=True)
    cut = next((i for i, w in enumerate(words) if w in {">", "<", "|"}), len(words))
    assert words[0] == "lanes"
    try:
        build_parser().parse_args(words[1:cut])
    except SystemExit as exc:  # argparse's way of rejecting a command line
        pytest.fail(f"{example!r} does not parse (exit {exc.code})")


def test_every_example_names_a_command_that_exists() -> None:
    assert set(EXAMPLES) <= set(PATHS), set(EXAMPLES) - set(PATHS)


def test_slow_help_shows_an_example_and_its_exit_codes() -> None:
    proc = _lanes("slow", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "examples:\n  lanes slow run" in proc.stdout
    assert "exit codes:\n  0 " in proc.stdout
    assert (
        "\n  2   a usage or configuration error found before any work: nothing ran\n" in proc.stdout
    )


def test_hook_help_explains_the_hook() -> None:
    proc = _lanes("hook", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "usage: lanes hook [-h] [--agent {claude,codex}]" in proc.stdout
    assert "Claude Code and Codex CLI run it" in proc.stdout


def test_an_unknown_agent_is_an_error_naming_the_accepted_ones() -> None:
    # Regression: `lanes hook --agent nosuch` exited 0 and spoke Claude's protocol.
    proc = _lanes("hook", "--agent", "nosuch", stdin='{"tool_name": "Bash"}')
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "invalid choice: 'nosuch' (choose from 'claude', 'codex')" in proc.stderr


def test_the_registered_hook_call_does_not_load_argparse() -> None:
    code = (
        "import sys\nfrom lanes.cli import main\n"
        "status = main(['hook', '--agent', 'codex'])\nprint(status, 'argparse' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code],
        input='{"tool_name": "Bash", "tool_input": {"command": "ls"}}',
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.stdout.split() == ["0", "False"], proc.stderr


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_the_shipped_script(shell: str) -> None:
    proc = _lanes("completion", shell)
    assert proc.returncode == 0, proc.stderr
    shipped = Path(__file__).resolve().parents[2] / "lanes" / "completions" / f"lanes.{shell}"
    assert proc.stdout == shipped.read_text(encoding="utf-8")


def test_bash_completes_lanes_sl_to_slow(tmp_path: Path) -> None:
    script = tmp_path / "lanes.bash"
    script.write_text(_lanes("completion", "bash").stdout, encoding="utf-8")
    # What bash does on `lanes sl<TAB>`: call the function `complete -p lanes` names.
    program = (
        f"source {shlex.quote(str(script))}\n"
        "spec=$(complete -p lanes); fn=${spec#*-F }; fn=${fn%% *}\n"
        'COMP_WORDS=(lanes sl); COMP_CWORD=1; COMP_LINE="lanes sl"; COMP_POINT=8\n'
        '"$fn" lanes sl lanes\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["slow"]
