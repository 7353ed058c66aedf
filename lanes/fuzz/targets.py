"""The fuzz target registry: one entry per parser, everything by reference.

A target names its callable, its strategy and its error type as
``"package.module:attribute"`` strings, never as objects, for two reasons: the
watchdog's worker process imports the callable by the same reference (the
parent never pickles code across), and a user's ``[tool.lanes.fuzz.targets]``
entry is exactly the same kind of thing as one of ours. Adding a parser to the
lane means adding one :class:`Target` to :data:`BUILTIN_TARGETS` — nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes._textdoc import load_toml
from lanes.errors import ConfigError, LanesError, UsageError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

    from lanes.config import Config

__all__ = [
    "BUILTIN_TARGETS",
    "MalformedInputError",
    "Target",
    "check_input",
    "check_table",
    "check_text",
    "check_text_or_bytes",
    "is_lanekit_project",
    "project_on_path",
    "project_targets",
    "registry_fingerprint",
    "resolve",
    "select_targets",
    "targets_from_config",
]

_LANES_ERROR: Final = "lanes.errors:LanesError"


@dataclass(frozen=True)
class Target:
    """A parser under fuzz.

    ``callable`` takes one generated input. Raising ``error`` (with a non-empty
    ``hint_attribute`` when that is set) is a clean rejection; anything else it
    raises is a failure. ``may_reject=False`` makes every exception a failure
    (the command classifier must accept any text). ``budget`` overrides the
    configured per-case budget in seconds (the self-check's wedged target).
    ``origin`` says where the entry came from, for error messages.
    ``inputs`` names a ``"module:function"`` that refuses, with
    :class:`MalformedInputError`, a value read from a file (a corpus entry, an
    ``--input-file`` artifact) that the strategy could not have generated:
    a file is data, and a built-in target that touches the filesystem must
    not do what a hand-edited input tells it to.
    """

    name: str
    callable: str
    strategy: str
    error: str = _LANES_ERROR
    hint_attribute: str = "hint"
    may_reject: bool = True
    budget: float | None = None
    origin: str = "lanes.fuzz.targets.BUILTIN_TARGETS"
    inputs: str | None = None

    def describe(self) -> dict[str, object]:
        """The fields that decide what a run of this target does (for ``config_hash``)."""
        return {
            "name": self.name,
            "callable": self.callable,
            "strategy": self.strategy,
            "error": self.error,
            "hint_attribute": self.hint_attribute,
            "may_reject": self.may_reject,
            "budget": self.budget,
        }


_STRATEGY_PACKAGE: Final = "lanes.strategies"
_STRATEGIES: Final = f"{_STRATEGY_PACKAGE}.documents"
_TEXT: Final = "lanes.fuzz.targets:check_text"
_TABLE: Final = "lanes.fuzz.targets:check_table"
# Above anything a strategy here generates (the longest, the hostile payloads,
# stay near 1 MiB), below what would make a replay itself the denial of service.
_MAX_INPUT_CHARS: Final = 4 << 20


class MalformedInputError(LanesError, ValueError):
    """A saved fuzz input is not one the target's strategy could have generated."""


def _refuse(value: object, allowed: str) -> MalformedInputError:
    msg = f"saved fuzz input {value!r:.120} is not {allowed}"
    return MalformedInputError(
        msg,
        hint="the file was edited by hand or is not from a fuzz run of this target; "
        "remove the entry (or the artifact) and re-save the case from a `lanes fuzz` run",
    )


def check_text(value: object) -> None:
    """A text target's input: a string of bounded length."""
    if not isinstance(value, str) or len(value) > _MAX_INPUT_CHARS:
        raise _refuse(value, f"a string of at most {_MAX_INPUT_CHARS} characters")


def check_text_or_bytes(value: object) -> None:
    """The hook payload target's input: text or raw bytes, of bounded length."""
    if not isinstance(value, str | bytes) or len(value) > _MAX_INPUT_CHARS:
        raise _refuse(value, f"a string or bytes of at most {_MAX_INPUT_CHARS} characters")


def check_table(value: object) -> None:
    """A config target's input: a table (dict with string keys) of bounded size."""
    from lanes.fuzz._codec import canonical  # noqa: PLC0415  # only when a saved case is checked

    if (
        not isinstance(value, dict)
        or not all(isinstance(key, str) for key in value)
        or len(canonical(value)) > _MAX_INPUT_CHARS
    ):
        raise _refuse(value, "a TOML table (a dict with string keys) of bounded size")


def check_input(target: Target, value: object) -> None:
    """Refuse ``value`` for ``target`` unless its strategy could have generated it.

    Run in the parent before a saved input reaches a worker. A user's target
    declares no checker (its strategy is arbitrary code): its input is only
    what the codec decodes, and its callable is the user's own.
    """
    if target.inputs is None:
        return
    checker = resolve(target.inputs, what="input checker", key=f"{target.name} inputs")
    if not callable(checker):
        msg = f"{target.inputs!r} (the input checker of target {target.name!r}) is not callable"
        raise ConfigError(msg, hint="point inputs at a function taking one input")
    checker(value)


BUILTIN_TARGETS: Final[tuple[Target, ...]] = (
    Target(
        name="classify",
        callable="lanes.governor.classify.classifier:classify",
        strategy=f"{_STRATEGY_PACKAGE}.shell:shell_commands",
        # The classifier runs on every agent command: it must accept any text.
        may_reject=False,
        inputs=_TEXT,
    ),
    Target(
        name="sweep-gate",
        callable="lanes.fuzz.adapters:sweep_rule_blocks",
        strategy=f"{_STRATEGY_PACKAGE}.shell:sweep_bypass_commands",
        # Every generated command is a full sweep in disguise: an allow is a
        # failure, and so is any exception (the rule must answer all text).
        may_reject=False,
        inputs=_TEXT,
    ),
    Target(
        name="payload",
        callable="lanes.governor.payload:parse_payload",
        strategy=f"{_STRATEGIES}:hook_payload_texts",
        inputs="lanes.fuzz.targets:check_text_or_bytes",
    ),
    Target(
        name="config",
        callable="lanes.fuzz.adapters:parse_config_table",
        strategy=f"{_STRATEGY_PACKAGE}.tables:config_tables",
        inputs=_TABLE,
    ),
    Target(
        name="config-one-field",
        callable="lanes.fuzz.adapters:refuse_one_broken_field",
        strategy=f"{_STRATEGY_PACKAGE}.config_fields:one_field_broken_tables",
        # A valid table with ONE field of a forbidden type or range: the
        # ConfigError is the expected answer, acceptance is the finding.
        error="lanes.errors:ConfigError",
        inputs=_TABLE,
    ),
    Target(
        name="config-file",
        callable="lanes.fuzz.adapters:load_pyproject_text",
        strategy=f"{_STRATEGY_PACKAGE}.tables:pyproject_texts",
        inputs=_TEXT,
    ),
    Target(
        name="ledger",
        callable="lanes.governor.state.ledger:parse_ledger",
        strategy=f"{_STRATEGIES}:ledger_texts",
        inputs=_TEXT,
    ),
    Target(
        name="lock",
        callable="lanes.governor.state.lock:parse_lock",
        strategy=f"{_STRATEGIES}:lock_texts",
        inputs=_TEXT,
    ),
    Target(
        name="state-files",
        callable="lanes.fuzz.state_adapters:read_planted_state",
        strategy=f"{_STRATEGY_PACKAGE}.state_files:planted_state_files",
        # A FIFO, device, directory, link, huge or deep file at a state path:
        # every reader answers (fail open) in time; any exception is a finding.
        may_reject=False,
        inputs="lanes.fuzz.state_adapters:check_plant",
    ),
    Target(
        name="envelope",
        callable="lanes.fuzz.adapters:read_and_validate_envelope",
        strategy=f"{_STRATEGIES}:envelope_texts",
        inputs=_TEXT,
    ),
    Target(
        name="torture-schedule",
        callable="lanes.torture.schedule:load_schedule",
        strategy=f"{_STRATEGIES}:torture_schedule_texts",
        inputs=_TEXT,
    ),
)


def resolve(reference: str, *, what: str, key: str) -> object:
    """Import ``"package.module:attribute"``; :class:`ConfigError` naming ``key`` when it fails."""
    module_name, _, attribute = reference.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001  # any import-time failure of user code is a config problem
        msg = f"{key} = {reference!r}: cannot import module {module_name!r} ({type(exc).__name__}: {exc})"
        raise ConfigError(
            msg,
            hint=f"point {key} at an importable module (is the project installed, e.g. pip install -e .?)",
        ) from None
    obj: object = module
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            msg = f"{key} = {reference!r}: module {module_name!r} has no attribute {attribute!r}"
            raise ConfigError(
                msg, hint=f"set {key} to 'module:attribute' naming the {what}"
            ) from None
    return obj


def targets_from_config(config: Config) -> tuple[Target, ...]:
    """The user's ``[tool.lanes.fuzz.targets]``, as targets (references not imported yet)."""
    builtin = {target.name for target in BUILTIN_TARGETS}
    out: list[Target] = []
    for name, entry in config.fuzz.targets.items():
        table = f"[tool.lanes.fuzz.targets.{name}]"
        if name in builtin:
            msg = f"{table} has the name of a built-in fuzz target"
            raise ConfigError(
                msg,
                hint=f"rename it; the built-in targets are: {', '.join(sorted(builtin))}",
            )
        out.append(
            Target(
                name=name,
                callable=entry.callable,
                strategy=entry.strategy,
                error=entry.error,
                hint_attribute=entry.hint_attribute,
                origin=table,
            )
        )
    return tuple(out)


def is_lanekit_project(config: Config) -> bool:
    """Whether ``config`` is lanekit's own repository (its pyproject names the distribution)."""
    if config.source is None:
        return False
    try:
        document = load_toml(
            config.source, what=str(config.source), fail=ValueError, follow_symlinks=True
        )
    except ValueError:
        return False
    project = (document or {}).get("project")
    return isinstance(project, dict) and project.get("name") == "lanekit"


def project_targets(config: Config, *, builtin: bool = False) -> tuple[Target, ...]:
    """What ``lanes fuzz`` runs: the project's own targets.

    lanekit's built-in targets fuzz lanekit's parsers; in a user's project
    they would spend the run on code the user does not own, so they join only
    in lanekit's own repository or when asked for (``--builtin``).
    """
    own = targets_from_config(config)
    if builtin or is_lanekit_project(config):
        return (*BUILTIN_TARGETS, *own)
    if not own:
        msg = "this project declares no fuzz targets ([tool.lanes.fuzz.targets] is empty)"
        raise UsageError(
            msg,
            hint="declare one: [tool.lanes.fuzz.targets.<name>] with callable and strategy "
            "(see docs/how-to/fuzz.md); or pass --builtin to fuzz lanekit's own parsers",
        )
    return own


@contextlib.contextmanager
def project_on_path(root: Path) -> Iterator[None]:
    """The project root first on ``sys.path`` while a lane imports its modules.

    pytest puts the rootdir there for a test run, so ``tests.fuzzing`` imports
    in the user's suite; a ``lanes`` console script starts with its own bin
    directory instead. The watchdog hands ``sys.path`` to its worker, so the
    worker imports from the root too.
    """
    entry = str(root)
    added = entry not in sys.path
    if added:
        sys.path.insert(0, entry)
    try:
        yield
    finally:
        if added and entry in sys.path:
            sys.path.remove(entry)


def select_targets(available: Iterable[Target], names: Iterable[str]) -> tuple[Target, ...]:
    """``available`` narrowed to ``names`` (all when empty), in registry order."""
    targets = tuple(available)
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return targets
    by_name = {target.name: target for target in targets}
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        msg = f"--target {unknown[0]!r} is not a fuzz target"
        raise UsageError(msg, hint=f"choose one of: {', '.join(by_name)}")
    return tuple(target for target in targets if target.name in wanted)


def _source_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _module_file(module_name: str) -> Path | None:
    """A module's source file, found without importing it."""
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.has_location:
        return None
    return Path(spec.origin)


def _strategy_sources(targets: Iterable[Target]) -> dict[str, str]:
    """sha256 of every module that can decide a case: the strategies package and each target's strategy module."""
    files: dict[str, Path] = {}
    package = importlib.util.find_spec(_STRATEGY_PACKAGE)
    for location in (package.submodule_search_locations or []) if package else []:
        for path in sorted(Path(location).glob("*.py")):
            files[f"{_STRATEGY_PACKAGE}.{path.stem}"] = path
    for target in targets:
        module = target.strategy.partition(":")[0]
        found = files.get(module) or _module_file(module)
        if found is not None:
            files[module] = found
    return {name: _source_digest(path) for name, path in sorted(files.items())}


def registry_fingerprint(
    targets: Iterable[Target], extra: Mapping[str, object]
) -> dict[str, object]:
    """What decides a run's case set: the registry entries and their strategies' source.

    Part of the envelope's ``config_hash``: when it changes between two runs
    with the same seed, the inputs changed; when it does not, a new verdict
    means the parsers changed.
    """
    chosen = tuple(targets)
    return {
        "targets": [target.describe() for target in chosen],
        "strategy_sources": _strategy_sources(chosen),
        **extra,
    }
