"""The files ``lanes init`` would write, computed before any is touched.

A plan is a list of :class:`FileChange` — the current text (or none) and the
proposed text of each file — so ``--dry-run`` prints exactly the diff a real
run applies, a second run finds every file ``unchanged``, and a file that
differs from what init would write is ``kept`` unless ``--force`` is given.
The user's ``pyproject.toml`` and ``.gitignore`` are only ever appended to.
"""

from __future__ import annotations

import difflib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from lanes._atomic import write_atomic
from lanes.errors import StateError
from lanes.init.pyproject_section import has_lanes_table, render_section, with_section

if TYPE_CHECKING:
    import jinja2

    from lanes.init.detect import Project
    from lanes.init.requirement import Source

__all__ = ["GITIGNORE_LINES", "Action", "FileChange", "Settings", "apply", "build_plan"]

Action = Literal["create", "update", "unchanged", "kept"]
TEMPLATES: Final = Path(__file__).parent / "templates"
GITIGNORE_LINES: Final = (
    "# lanekit: lane outputs are artifacts (only their README is committed);",
    "# baselines/ holds reviewed high-water marks and IS committed.",
    "/envelopes/*",
    "!/envelopes/README.md",
    ".hypothesis/",
    "mutants/",
)
ENVELOPES_README: Final = """# envelopes/

Lane output written by lanekit (`nox -s <lane>`, `lanes report`): one JSON
envelope per lane run, `summary.md` and `index.html`. Everything here except
this README is ignored by git; CI uploads the directory as an artifact.
Committed baselines live in `baselines/`.
"""
WORKFLOWS: Final = (
    ("lanes-pr.yml", False),
    ("lanes-nightly.yml", False),
    ("lanes-mutation.yml", True),  # only with the mutation lane
)


@dataclass(frozen=True)
class Settings:
    """What the command line decided."""

    lanekit_source: Source
    python: str = "3.12"
    workflows: bool = True
    dependabot: bool = True
    force: bool = False


@dataclass(frozen=True)
class FileChange:
    path: Path  # relative to the project root
    old: str | None
    new: str
    action: Action
    why: str = ""

    def diff(self) -> str:
        name = self.path.as_posix()
        return "".join(
            difflib.unified_diff(
                (self.old or "").splitlines(keepends=True),
                self.new.splitlines(keepends=True),
                fromfile="/dev/null" if self.old is None else f"a/{name}",
                tofile=f"b/{name}",
            )
        )


def _has_lane(command: str) -> bool:
    """Whether this lanekit has the lane's command (init scaffolds only lanes that exist)."""
    from lanes.cli import subcommands  # noqa: PLC0415

    return command in subcommands()


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"{path} cannot be read: {exc}"
        raise StateError(msg, hint="fix its permissions or encoding, or move it aside") from None


def _environment() -> jinja2.Environment:
    try:
        import jinja2  # noqa: PLC0415  # only `lanes init` needs it
    except ModuleNotFoundError:
        from lanes.errors import UsageError  # noqa: PLC0415

        msg = "`lanes init` needs jinja2, which is not installed"
        raise UsageError(
            msg, hint="install the lane dependencies: python3 -m pip install './lanekit[lanes]'"
        ) from None
    # [[ ]] and [% %]: the workflows are full of GitHub's own ${{ }}.
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        variable_start_string="[[",
        variable_end_string="]]",
        block_start_string="[%",
        block_end_string="%]",
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # noqa: S701  # Python and YAML, not HTML
    )


def _install_lines(project: Project) -> tuple[list[str], str]:
    """The install steps (argument tuples for `session.install`) of the project with its
    test dependencies, as Python expressions, and a label."""
    installable = bool(project.pyproject.get("project") or project.pyproject.get("build-system"))
    installable = installable or any(
        (project.root / name).is_file() for name in ("setup.py", "setup.cfg")
    )
    lines: list[str] = []
    labels: list[str] = []
    extra_used = False
    for found in project.test_dependencies:
        labels.append(found.describe())
        if found.kind == "extra" and installable:
            lines.append(f'("-e", ".[{found.value}]")')
            extra_used = True
        elif found.kind == "group":
            lines.append(f'tuple(nox.project.dependency_groups(PYPROJECT, "{found.value}"))')
        elif found.kind == "requirements":
            lines.append(f'("-r", "{found.value}")')
        elif found.kind == "tox-deps":
            deps = ", ".join(f'"{dep}"' for dep in found.value)
            lines.append(f"({deps},)")
    if installable and not extra_used:
        lines.insert(0, '("-e", ".")')
    return lines, ", ".join(labels) or "none declared"


def _render_noxfile(project: Project, settings: Settings, env: jinja2.Environment) -> str:
    mutation = _has_lane("mutation")
    timing = _has_lane("timing")
    # Mutation is weekly (its own workflow), not part of the nightly main job.
    lanes = ["slow", "fuzz", *(["timing"] if timing else [])]
    lines, label = _install_lines(project)
    template = env.get_template("noxfile.py.j2")
    return str(
        template.render(
            project_label=project.name or project.root.name,
            mutation=mutation,
            timing=timing,
            lanekit_source_literal=json.dumps(settings.lanekit_source.spec),
            lanekit_fix=settings.lanekit_source.fix,
            lanekit_fix_message=json.dumps(
                "LANEKIT_SOURCE is a placeholder (no installable lanekit was found); "
                f"fix: {settings.lanekit_source.fix}"
            ),
            install_lines=lines,
            test_deps_label=label,
            lane_sessions_literal="(" + ", ".join(json.dumps(name) for name in lanes) + ")",
        )
    )


def _change(root: Path, relative: str, new: str, *, force: bool, why: str = "") -> FileChange:
    path = Path(relative)
    old = _read(root / path)
    if old is None:
        return FileChange(path, None, new, "create", why)
    if old == new:
        return FileChange(path, old, new, "unchanged")
    if force:
        return FileChange(path, old, new, "update", why or "--force")
    return FileChange(path, old, new, "kept", "differs from what init writes; --force replaces it")


def _pyproject_change(project: Project) -> FileChange:
    path = Path("pyproject.toml")
    old = _read(project.root / path)
    document = tomllib.loads(old) if old else {}
    if has_lanes_table(document):
        assert old is not None  # noqa: S101  # a table was read from it
        return FileChange(path, old, old, "unchanged", "[tool.lanes] already present")
    new = with_section(old or "", render_section(project))
    return FileChange(path, old, new, "create" if old is None else "update", "appends [tool.lanes]")


def _gitignore_change(root: Path) -> FileChange:
    path = Path(".gitignore")
    old = _read(root / path)
    present = {line.strip() for line in (old or "").splitlines()}
    missing = [line for line in GITIGNORE_LINES if not line.startswith("#") and line not in present]
    if not missing:
        return FileChange(path, old, old or "", "unchanged")
    header = [line for line in GITIGNORE_LINES if line.startswith("#")]
    text = old or ""
    if text:
        text += "\n" if text.endswith("\n") else "\n\n"
    new = text + "\n".join([*header, *missing]) + "\n"
    action: Action = "create" if old is None else "update"
    return FileChange(path, old, new, action, "ignores lanekit's outputs")


def build_plan(project: Project, settings: Settings) -> list[FileChange]:
    env = _environment()
    root = project.root
    plan = [
        _pyproject_change(project),
        _change(root, "noxfile.py", _render_noxfile(project, settings, env), force=settings.force),
        _gitignore_change(root),
        _change(root, "envelopes/README.md", ENVELOPES_README, force=settings.force),
    ]
    if settings.workflows:
        context = {
            "python": settings.python,
            "pr_fuzz_iterations": 200,
            "nightly_cron": "17 3 * * *",
            "weekly_cron": "41 4 * * 6",
            # Envelopes are evidence for review, not an archive: two weeks.
            "retention_days": 14,
            "requirement_note": (
                f"PLACEHOLDER: noxfile.py has no lanekit a CI runner can install yet; "
                f"fix: {settings.lanekit_source.fix}"
                if settings.lanekit_source.fix
                else ""
            ),
        }
        for name, needs_mutation in WORKFLOWS:
            if needs_mutation and not _has_lane("mutation"):
                continue
            template = env.get_template(f"{name}.j2")
            plan.append(
                _change(
                    root,
                    f".github/workflows/{name}",
                    str(template.render(**context)),
                    force=settings.force,
                )
            )
        if settings.dependabot:
            template = env.get_template("dependabot.yml.j2")
            plan.append(
                _change(
                    root,
                    ".github/dependabot.yml",
                    str(template.render()),
                    force=settings.force,
                    why="keeps the workflows' action pins current",
                )
            )
    return plan


def apply(root: Path, plan: list[FileChange]) -> None:
    for change in plan:
        if change.action in ("create", "update"):
            target = root / change.path
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, change.new)
