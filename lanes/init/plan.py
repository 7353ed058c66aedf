"""The files ``lanes init`` would write, computed before any is touched.

A plan is a list of :class:`FileChange` — the current text (or none) and the
proposed text of each file — so ``--dry-run`` prints exactly the diff a real
run applies, a second run finds every file ``unchanged``, and a file that
differs from what init would write is ``kept`` unless ``--force`` is given.
The user's ``pyproject.toml`` and ``.gitignore`` are only ever appended to,
byte for byte (a CRLF file gets CRLF lines).

Files someone else wrote are read strictly (:mod:`lanes._textdoc`: regular
files only, bounded, never through a link), values from them are escaped
where they land in generated Python, and :func:`apply` checks every target
before it writes the first one, then writes each inside the project only
(:func:`lanes._atomic.write_atomic_under`), undoing its own writes if one
fails: all or nothing.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from lanes._atomic import OutsideTreeError, write_atomic_under
from lanes._jsondoc import failing_with
from lanes._textdoc import loads_toml, read_text
from lanes.errors import ConfigError, StateError
from lanes.init.pyproject_section import has_lanes_table, render_section, with_section

if TYPE_CHECKING:
    import jinja2

    from lanes.init.detect import Project
    from lanes.init.requirement import Source

__all__ = [
    "GITIGNORE_LINES",
    "Action",
    "FileChange",
    "Settings",
    "apply",
    "build_plan",
    "check_targets",
    "envelope_dir",
]

Action = Literal["create", "update", "unchanged", "kept"]
TEMPLATES: Final = Path(__file__).parent / "templates"
GITIGNORE_HEADER: Final = (
    "# lanekit: lane outputs are artifacts (only their README is committed);",
    "# baselines/ holds reviewed high-water marks and IS committed;",
    "# .claude/settings.local.json registers the hook by this machine's path.",
)
GITIGNORE_LINES: Final = (
    *GITIGNORE_HEADER,
    "/envelopes/*",
    "!/envelopes/README.md",
    ".hypothesis/",
    "mutants/",
    # Personal: `lanes governor install --absolute` (which init runs) writes
    # this machine's virtualenv path there; committed, a teammate's agent
    # would run a hook that does not exist on their machine.
    ".claude/settings.local.json",
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
    """The file's text exactly as stored (CRLF kept); None when absent.

    A FIFO, a device, a link or a file past the cap is refused before init
    blocks on it or reads without bound.
    """
    return read_text(
        path,
        what=str(path),
        fail=failing_with(
            StateError,
            "make it a regular UTF-8 file you can read (not a FIFO, device or symlink), "
            "or move it aside",
        ),
    )


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


def _literal(value: object) -> str:
    """A Python string literal of ``value``: JSON's escapes are Python's (quotes, newlines, \\uXXXX)."""
    return json.dumps(str(value))


def _inline(value: str) -> str:
    """``value`` safe inside a generated docstring or comment: escaped, on one line."""
    return json.dumps(value)[1:-1]


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
        # Every value is the project's text: a Python literal, never pasted raw.
        if found.kind == "extra" and installable:
            lines.append(f'("-e", {_literal(f".[{found.value}]")})')
            extra_used = True
        elif found.kind == "group":
            lines.append(
                f"tuple(nox.project.dependency_groups(PYPROJECT, {_literal(found.value)}))"
            )
        elif found.kind == "requirements":
            lines.append(f'("-r", {_literal(found.value)})')
        elif found.kind == "tox-deps":
            deps = ", ".join(_literal(dep) for dep in found.value)
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
            # [project].name is the user's text: a name with '"""' must not end the docstring.
            project_label=_inline(project.name or project.root.name),
            mutation=mutation,
            timing=timing,
            lanekit_source_literal=json.dumps(settings.lanekit_source.spec),
            lanekit_fix=_inline(settings.lanekit_source.fix or ""),
            lanekit_fix_message=json.dumps(
                "LANEKIT_SOURCE is a placeholder (no installable lanekit was found); "
                f"fix: {settings.lanekit_source.fix}"
            ),
            install_lines=lines,
            test_deps_label=_inline(label),
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
    document = (
        loads_toml(
            old,
            what=str(project.root / path),
            fail=failing_with(ConfigError, "fix the TOML syntax at the line and column shown"),
        )
        if old
        else {}
    )
    if has_lanes_table(document):
        assert old is not None  # noqa: S101  # a table was read from it
        return FileChange(path, old, old, "unchanged", "[tool.lanes] already present")
    # Appended in the file's own line ending, the user's bytes untouched.
    newline = "\r\n" if old and "\r\n" in old else "\n"
    plain = (old or "").replace("\r\n", "\n")
    appended = with_section(plain, render_section(project))[len(plain) :]
    new = (old or "") + appended.replace("\n", newline)
    return FileChange(path, old, new, "create" if old is None else "update", "appends [tool.lanes]")


def _gitignore_change(root: Path, envelopes: str) -> FileChange:
    path = Path(".gitignore")
    old = _read(root / path)
    present = {line.strip() for line in (old or "").splitlines()}
    wanted = [
        f"/{envelopes}/*",
        f"!/{envelopes}/README.md",
        *(line for line in GITIGNORE_LINES[len(GITIGNORE_HEADER) + 2 :]),
    ]
    missing = [line for line in wanted if line not in present]
    if not missing:
        return FileChange(path, old, old or "", "unchanged")
    newline = "\r\n" if old and "\r\n" in old else "\n"
    text = old or ""
    if text:
        text += newline if text.endswith("\n") else newline * 2
    new = text + newline.join([*GITIGNORE_HEADER, *missing]) + newline
    action: Action = "create" if old is None else "update"
    return FileChange(path, old, new, action, "ignores lanekit's outputs")


def envelope_dir(project: Project) -> str:
    """The envelope directory an existing ``[tool.lanes]`` configures (default ``envelopes``)."""
    tool = project.pyproject.get("tool")
    table = tool.get("lanes") if isinstance(tool, dict) else None
    if not isinstance(table, dict) or "envelope_dir" not in table:
        return "envelopes"
    from lanes.config import parse_config  # noqa: PLC0415  # validates the path (inside the project)

    return parse_config(table, root=project.root).envelope_dir.strip("/")


def build_plan(project: Project, settings: Settings) -> list[FileChange]:
    env = _environment()
    root = project.root
    envelopes = envelope_dir(project)
    plan = [
        _pyproject_change(project),
        _change(root, "noxfile.py", _render_noxfile(project, settings, env), force=settings.force),
        _gitignore_change(root, envelopes),
        _change(
            root,
            f"{envelopes}/README.md",
            ENVELOPES_README.replace("envelopes/", f"{envelopes}/", 1),
            force=settings.force,
        ),
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


def _refuse(path: Path, why: str) -> StateError:
    msg = f"lanes init will not write {str(path)!r}: {why}"
    return StateError(
        msg,
        hint="lanes init writes only inside the project: replace the symlink with a real "
        "directory (or move the file aside), then run it again; nothing was written",
    )


def check_targets(root: Path, relatives: list[Path]) -> None:
    """Refuse, before anything is written, a target that would leave the project or fail.

    Resolves rather than compares text: every existing component below
    ``root`` must be a real directory (not a symlink to elsewhere, not a
    file), the file itself a regular file or absent, and the nearest existing
    directory writable.
    """
    for relative in relatives:
        current = root
        for part in relative.parts[:-1]:
            current = current / part
            if current.is_symlink():
                raise _refuse(
                    root / relative, f"{str(current)!r} is a symlink to {str(current.readlink())!r}"
                )
            if current.exists() and not current.is_dir():
                raise _refuse(root / relative, f"{str(current)!r} is not a directory")
        target = root / relative
        if target.exists() and not target.is_symlink() and not target.is_file():
            raise _refuse(target, "it is not a regular file")
        existing = target.parent
        while not existing.exists():
            existing = existing.parent
        if not os.access(existing, os.W_OK | os.X_OK):
            raise _refuse(target, f"{str(existing)!r} is not writable")


def apply(root: Path, plan: list[FileChange]) -> None:
    """Write the plan's creates and updates, all or none.

    The caller checks the targets first (:func:`check_targets`, before its
    work begins: a refusal there is "nothing ran"). A write that still fails
    (a full disk, a directory swapped for a link meanwhile) undoes the ones
    before it and raises :class:`StateError`.
    """
    writes = [change for change in plan if change.action in ("create", "update")]
    done: list[FileChange] = []
    try:
        for change in writes:
            write_atomic_under(root, root / change.path, change.new)
            done.append(change)
    except OSError as exc:
        for change in reversed(done):
            _undo(root, change)
        why = "it would leave the project" if isinstance(exc, OutsideTreeError) else "it failed"
        msg = f"lanes init could not write {str(root / writes[len(done)].path)!r} ({why}: {exc})"
        raise StateError(
            msg,
            hint="fix the path (a symlinked directory, permissions, free space) and run it "
            "again; the files written before it were restored",
        ) from None


def _undo(root: Path, change: FileChange) -> None:
    """Put back what ``change`` replaced (best effort: the error being raised matters more)."""
    try:
        if change.old is None:
            (root / change.path).unlink()
        else:
            write_atomic_under(root, root / change.path, change.old)
    except OSError:
        pass
