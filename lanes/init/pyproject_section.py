"""The ``[tool.lanes]`` text ``lanes init`` appends to a user's ``pyproject.toml``.

Appended as text, never re-serialised: a TOML writer would reorder the user's
tables, drop their comments and change their quoting. The new text is checked
before anything is written — the whole file must still parse and its
``[tool.lanes]`` must load with :func:`lanes.config.parse_config` — so init can
never leave a project with a broken configuration.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.config import parse_config
from lanes.errors import ConfigError
from lanes.slow.budget_text import SEED_NOTE

if TYPE_CHECKING:
    from lanes.init.detect import Project

__all__ = ["has_lanes_table", "render_section", "with_section"]

_INTEGRATION_TIERS: Final = ("integration", "functional", "e2e", "system", "acceptance")


def _toml_list(items: tuple[str, ...]) -> str:
    # JSON string literals are valid TOML basic strings.
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


def has_lanes_table(document: dict[str, object]) -> bool:
    tool = document.get("tool")
    return isinstance(tool, dict) and "lanes" in tool


def render_section(project: Project) -> str:
    """``[tool.lanes]`` for ``project``: its suites, slow tiers and an empty fuzz section."""
    slow_markers = tuple(m for m in project.markers if m in _INTEGRATION_TIERS or m == "slow")
    integration = any(name in _INTEGRATION_TIERS for name, _ in project.suites) or slow_markers
    lines = [
        "# ---------------------------------------------------------------- lanekit",
        "# Written by `lanes init`; every key is optional and unknown keys are errors.",
        "# `lanes config show` prints what lanekit understood.",
        "",
    ]
    for name, paths in project.suites:
        tier = "integration" if name in _INTEGRATION_TIERS else "unit"
        lines += [
            f"[tool.lanes.suites.{name}]",
            f"paths = {_toml_list(paths)}",
            "max_age = 3600          # seconds a PASS stays fresh for the agent governor",
            f'tier = "{tier}"',
            "",
        ]
    lines += [
        "[tool.lanes.slow]",
        "fail_factor = 2.0       # a test past 2 x its tier budget fails the slow lane",
        "",
        "# The budgets below are seeds, not your suite's: after `nox -s slow`,",
        "# `lanes slow propose --write` sizes each tier to 3 x its slowest test.",
        "[tool.lanes.slow.tiers.unit]",
        f"budget = 2.5            # seconds per test {SEED_NOTE}",
        "",
    ]
    if integration:
        lines += ["[tool.lanes.slow.tiers.integration]", f"budget = 15.0           # {SEED_NOTE}"]
        if slow_markers:
            lines.append(f"markers = {_toml_list(slow_markers)}")
        lines.append("")
    lines += [
        "[tool.lanes.fuzz]",
        "# Your parsers under hostile input: `nox -s fuzz` runs every target declared here.",
        "# [tool.lanes.fuzz.targets.dates]",
        '# callable = "mypackage.dates:parse"           # takes one generated input',
        '# strategy = "tests.fuzzing:date_texts"        # a Hypothesis strategy (or a function returning one)',
        '# error = "mypackage.errors:ParseError"        # the clean rejection',
        '# hint_attribute = ""                          # "" = raising the error type is enough',
    ]
    return "\n".join(lines) + "\n"


def with_section(text: str, section: str) -> str:
    """``text`` with ``section`` appended, checked to parse and to load as lanekit config."""
    # One blank line between the user's last table and ours.
    padding = {True: "", False: "\n" if text.endswith("\n") else "\n\n"}
    separator = padding[not text or text.endswith("\n\n")]
    new_text = text + separator + section
    try:
        document = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - the section is ours and plain
        msg = f"appending [tool.lanes] would make pyproject.toml invalid TOML: {exc}"
        raise ConfigError(
            msg, hint="add the [tool.lanes] tables by hand (see `lanes init --dry-run`)"
        ) from None
    tool = document.get("tool", {})
    parse_config(tool.get("lanes", {}), root=Path())
    return new_text
