"""``lanes init``: argparse only; the scaffolding is imported when the command runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    init = sub.add_parser(
        "init",
        help="scaffold lanekit into your project: [tool.lanes], noxfile.py, workflows, .gitignore, the agent hook",
        description=(
            "Write [tool.lanes] (appended to pyproject.toml), a noxfile.py with one session per "
            "lane, GitHub workflows, .gitignore entries for lanekit's outputs and the agent hook. "
            "Idempotent: a second run changes nothing; a file that differs is kept unless --force."
        ),
    )
    init.add_argument(
        "--root", metavar="DIR", help="the project's top-level directory (default: .)"
    )
    init.add_argument(
        "--dry-run", action="store_true", help="print what would change, as a diff; write nothing"
    )
    init.add_argument(
        "--force",
        action="store_true",
        help="replace noxfile.py and workflows that differ (pyproject.toml and .gitignore are only appended to)",
    )
    init.add_argument(
        "--lanekit-requirement",
        metavar="SPEC",
        help="where nox installs lanekit from: a version, a git URL at a commit or tag, or a "
        "lanekit clone with a remote (default: where the running lanekit came from; never a "
        "local path, which CI runners do not have)",
    )
    init.add_argument(
        "--python",
        default="3.12",
        metavar="VERSION",
        help="Python of the workflows (default: 3.12)",
    )
    init.add_argument("--no-workflows", action="store_true", help="do not write .github/workflows/")
    init.add_argument(
        "--no-dependabot",
        action="store_true",
        help="do not write .github/dependabot.yml (it keeps the workflows' action pins current)",
    )
    init.add_argument("--no-hook", action="store_true", help="do not register the agent hook")
    init.add_argument("--codex", action="store_true", help="also register the hook for Codex CLI")
    init.set_defaults(handler=_handle)


def _handle(ns: argparse.Namespace) -> int:
    from lanes.init.run import run_init  # jinja2 only when init runs

    return run_init(ns)
