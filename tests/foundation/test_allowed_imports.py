"""The governor's layers, as an allowed-imports table (docs/architecture.md, "Allowed imports").

Every import in every module of ``lanes/governor`` — top level, inside a
function, or under ``TYPE_CHECKING`` — is read from the source and checked
against the table, so the picture in the architecture document cannot drift
from the code. A new dependency across layers is a one-line change here,
which a reviewer sees.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

GOVERNOR = Path(__file__).resolve().parents[2] / "lanes" / "governor"

# What the governor may read through: stdlib-only modules of the toolkit.
FOUNDATION = ("lanes._atomic", "lanes.errors", "lanes._jsondoc", "lanes._jsonscan")

# Layer (module prefix) -> the lanes modules (prefixes) it may import. The
# first matching prefix wins, so specific rows come first.
ALLOWED: tuple[tuple[str, tuple[str, ...]], ...] = (
    # The bytes-only pre-screen runs on every shell command an agent makes:
    # nothing but os/sys (checked below) and the per-user state dir's path.
    ("lanes.governor.screen.prescreen", ("lanes.governor.state.debug",)),
    # The screen's word cache: the words of a strictly loaded config (the
    # config cache writes them); the config notice loads a bad file once for
    # its message.
    (
        "lanes.governor.screen",
        (
            "lanes.governor.screen",
            "lanes.governor.classify.runners.names",
            "lanes.governor.state.debug",
            "lanes.config",
            *FOUNDATION,
        ),
    ),
    # Shell lexing and runner rules: the standard library and itself only.
    ("lanes.governor.classify", ("lanes.governor.classify",)),
    # Ledger, lock, tree, git, owner, run notes, economy store: the foundation.
    ("lanes.governor.state", ("lanes.governor.state", *FOUNDATION)),
    # Decisions: classify's results (its model, its entry point to read a
    # suite's own command, the runner names), the world of the call
    # (context, settings, payload) and state. The sweep's last resort reads
    # the raw payload the way the screen does.
    (
        "lanes.governor.policy",
        (
            "lanes.governor.policy",
            "lanes.governor.classify.model",
            "lanes.governor.classify.classifier",
            "lanes.governor.classify.runners.names",
            "lanes.governor.context",
            "lanes.governor.settings",
            "lanes.governor.payload",
            "lanes.governor.screen.prescreen",
            "lanes.governor.state",
            *FOUNDATION,
        ),
    ),
    # Plumbing: the world of one call; the rows (settings: the governor's and
    # the suite's, read through the shared rows, parsed by the one reader on a
    # cache miss); the per-user config cache; and THE strict loader, the one
    # module of the hook's path that imports lanes.config (on a miss only).
    ("lanes.governor.context", ("lanes.governor.payload", "lanes.governor.settings", "lanes.governor.config_cache", "lanes.governor.state", *FOUNDATION)),
    ("lanes.governor.settings", ("lanes.governor.classify.runners.names", "lanes.settings_rows", "lanes.config_table", *FOUNDATION)),
    # On a miss it also caches each pytest suite's shape, read as the hook's
    # suite resolution reads it (policy.suites), so the plugin need not.
    ("lanes.governor.config_cache", ("lanes.governor.settings", "lanes.governor.config_loader", "lanes.governor.policy.suites", "lanes.governor.screen", "lanes.governor.state", "lanes.config", *FOUNDATION)),
    ("lanes.governor.config_loader", ("lanes.config", "lanes.governor.screen", "lanes.governor.state", *FOUNDATION)),
    ("lanes.governor.payload", FOUNDATION),
    # The entry point: every layer, in data-flow order.
    ("lanes.governor.hook", ("lanes.governor", *FOUNDATION)),
    # The pytest plugin: the world of a call (context, settings, the cached
    # config's suite shapes), the suites as the hook resolves them, the sweep
    # rule's constants and state.
    (
        "lanes.governor.runner",
        (
            "lanes.governor.runner",
            "lanes.governor.context",
            "lanes.governor.settings",
            "lanes.governor.config_cache",
            "lanes.governor.policy.gate",
            "lanes.governor.policy.suites",
            "lanes.governor.policy.sweep",
            "lanes.governor.state",
            "lanes._pytest_project",
            *FOUNDATION,
        ),
    ),
    # Commands a human runs: the governor, the config and the CLI helpers.
    ("lanes.governor.cli", ("lanes.governor", "lanes.config", "lanes._cli_config", *FOUNDATION)),
)  # fmt: skip

# The pre-screen's whole standard library: both are loaded by every interpreter.
PRESCREEN_STDLIB = {"os", "sys"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(GOVERNOR.parent.parent).with_suffix("").parts
    return ".".join(parts).removesuffix(".__init__")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import (use absolute names)"
            if node.module and node.module != "__future__":
                names.add(node.module)
    return names


def _allowed(module: str) -> tuple[str, ...]:
    for prefix, allowed in ALLOWED:
        if module == prefix or module.startswith(prefix + "."):
            return (prefix, *allowed)
    pytest.fail(f"{module} belongs to no layer of the table: add its row")


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


MODULES = sorted(p for p in GOVERNOR.rglob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", MODULES, ids=_module_name)
def test_each_module_imports_only_what_its_layer_may(path: Path) -> None:
    module = _module_name(path)
    allowed = _allowed(module)
    lanes_imports = {name for name in _imports(path) if name.split(".")[0] == "lanes"}
    forbidden = sorted(name for name in lanes_imports if not _within(name, allowed))
    assert forbidden == [], f"{module} may import only {allowed}"


def test_the_prescreen_uses_only_os_and_sys() -> None:
    path = GOVERNOR / "screen" / "prescreen.py"
    stdlib = {name.split(".")[0] for name in _imports(path) if not name.startswith("lanes")}
    assert stdlib <= PRESCREEN_STDLIB


def test_nothing_in_the_governor_imports_a_lane() -> None:
    # The lanes (slow, fuzz, torture, bench, ...) build on the governor, never
    # the other way round: the hook must not pay for, or break with, a lane.
    outside = (
        *FOUNDATION,
        "lanes.governor",
        "lanes.config",
        "lanes.config_table",
        "lanes.settings_rows",
        "lanes._cli_config",
        # The pytest plugins' stdlib-only pyproject finder (the runner layer).
        "lanes._pytest_project",
    )
    offenders = {
        _module_name(path): sorted(
            name
            for name in _imports(path)
            if name.startswith("lanes") and not _within(name, outside)
        )
        for path in MODULES
    }
    assert {module: names for module, names in offenders.items() if names} == {}


def test_the_classifier_imports_only_the_standard_library_and_itself() -> None:
    for path in sorted((GOVERNOR / "classify").rglob("*.py")):
        for name in _imports(path):
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or _within(name, ("lanes.governor.classify",)), (
                f"{_module_name(path)} imports {name}"
            )


@pytest.mark.parametrize("path", sorted(GOVERNOR.rglob("__init__.py")), ids=_module_name)
def test_package_inits_stay_empty(path: Path) -> None:
    # Python runs every __init__ on the way to lanes.governor.hook, on every
    # shell command an agent makes: a docstring, nothing that executes.
    body = ast.parse(path.read_text(encoding="utf-8")).body
    executable = [
        node
        for node in body
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    ]
    assert executable == []


# The configuration and every section's rows: what a section may be built of.
# Lane code (a lane's engine, its plugin, mutmut, Hypothesis) is never among
# it, so reading [tool.lanes] costs and breaks with no lane.
CONFIG_MODULES = sorted(
    {
        GOVERNOR.parent / "config.py",
        GOVERNOR.parent / "config_table.py",
        GOVERNOR.parent / "settings_rows.py",
        GOVERNOR.parent / "settings_tables.py",
        GOVERNOR.parent / "sections.py",
        *GOVERNOR.parent.glob("*/settings.py"),
    }
)
CONFIG_MAY_IMPORT = (
    "lanes.errors",
    "lanes.config_table",
    "lanes.settings_rows",
    "lanes.settings_tables",
    "lanes.sections",
    "lanes.pyproject",
    # The runner names the suite and governor rows choose from: a data table.
    "lanes.governor.classify.runners.names",
)


def _is_settings_module(name: str) -> bool:
    # Another section's rows (lanes.timing.settings reuses the suite's).
    return name.startswith("lanes.") and name.endswith(".settings")


@pytest.mark.parametrize("path", CONFIG_MODULES, ids=_module_name)
def test_config_and_the_settings_modules_import_no_lane_code(path: Path) -> None:
    forbidden = sorted(
        name
        for name in _imports(path)
        if name.split(".")[0] == "lanes"
        and not _within(name, CONFIG_MAY_IMPORT)
        and not _is_settings_module(name)
    )
    assert forbidden == [], f"{_module_name(path)} may import only {CONFIG_MAY_IMPORT} and settings"


# The report's views read one envelope's data through its lane's payload type;
# they never import the lane that wrote it (a view that imported lanes.slow
# would break the report of a project whose slow lane does not load, and would
# let the view read the lane's internals instead of the declared shape).
VIEWS = GOVERNOR.parent / "report" / "views"
VIEW_MAY_IMPORT = (
    "lanes.payloads",
    "lanes.report._charts",
    "lanes.report.views",
    # lane_detail checks data against the schema generated from the types.
    "lanes.envelope",
)


@pytest.mark.parametrize("path", sorted(VIEWS.glob("*.py")), ids=_module_name)
def test_report_views_import_payload_types_not_lane_code(path: Path) -> None:
    forbidden = sorted(
        name
        for name in _imports(path)
        if name.split(".")[0] == "lanes" and not _within(name, VIEW_MAY_IMPORT)
    )
    assert forbidden == [], f"{_module_name(path)} may import only {VIEW_MAY_IMPORT}"
