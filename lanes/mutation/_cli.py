"""``lanes mutation``: argparse only; the lane (and mutmut) load when a verb runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanes._cli_config import add_config_option, whole_number

if TYPE_CHECKING:
    import argparse

__all__ = ["add_parser"]


def add_parser(sub: Any) -> None:  # noqa: ANN401  # argparse's private _SubParsersAction type
    mutation = sub.add_parser(
        "mutation",
        help="mutation ratchet: mutmut over a registry of modules, sharded, merged, ratcheted",
        description=(
            "Mutate the registry's modules with mutmut (sharded across machines if you like), "
            "merge the shards, and ratchet each module's score against baselines/mutation.json. "
            "Exit 0 pass, 1 verdict fail, 2 usage/config error, 3 the lane could not complete."
        ),
    )
    mutation.add_argument(
        "--self-check",
        action="store_true",
        help="prove the lane can fail on a planted project (weak tests, a dropped shard, a broken suite)",
    )
    mutation.set_defaults(handler=_handle_bare)
    verbs = mutation.add_subparsers(dest="mutation_command", metavar="VERB")

    plan = verbs.add_parser(
        "plan",
        help="generate the mutants and map the tests once; the shards run from the plan",
        description=(
            "Run mutmut's generation and test mapping once per module and keep its files in DIR "
            "with plan.json (every mutant's key and estimated cost, each module's shard count: a "
            "module below shard_threshold mutants is one shard). `run --plan DIR` shards then "
            "run only their own mutants. Prints the shard matrix."
        ),
    )
    add_config_option(plan)
    plan.add_argument(
        "--output", type=Path, required=True, metavar="DIR", help="where the plan goes"
    )
    plan.add_argument(
        "--module",
        action="append",
        metavar="NAME",
        help="a registry module (repeatable; default: all)",
    )
    plan.add_argument(
        "--max-children",
        type=whole_number(1),
        metavar="N",
        help="mutmut's parallel workers (default: CPU count)",
    )
    plan.add_argument(
        "--github-output",
        action="store_true",
        help="also append the plan's matrix= and count= to $GITHUB_OUTPUT",
    )
    plan.set_defaults(handler=_verb("plan"))

    run = verbs.add_parser(
        "run", help="mutate one shard of one or more modules; writes a shard envelope"
    )
    add_config_option(run)
    run.add_argument(
        "--module",
        action="append",
        metavar="NAME",
        help="a registry module (repeatable; default: all)",
    )
    run.add_argument("--shard", metavar="I/N", help="run shard I of N (default 1/1: every mutant)")
    run.add_argument(
        "--plan",
        type=Path,
        metavar="DIR",
        help="run from this plan (`lanes mutation plan`): no generation or mapping, shards balanced by cost",
    )
    run.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="where the shard envelope goes (default envelopes/mutation/shards)",
    )
    run.add_argument(
        "--max-children",
        type=whole_number(1),
        metavar="N",
        help="mutmut's parallel workers (default: CPU count)",
    )
    run.set_defaults(handler=_verb("run"))

    merge = verbs.add_parser(
        "merge", help="merge shard envelopes into module scores (fails on a missing shard)"
    )
    add_config_option(merge)
    merge.add_argument(
        "--expect-shards",
        type=whole_number(1),
        required=True,
        metavar="N",
        help="how many (module, shard) pairs the matrix ran",
    )
    merge.add_argument(
        "inputs", nargs="*", metavar="DIR", help="directories (or files) holding shard envelopes"
    )
    merge.set_defaults(handler=_verb("merge"))

    check = verbs.add_parser("check", help="ratchet the merged scores against the baseline")
    add_config_option(check)
    check.add_argument(
        "--merged",
        type=Path,
        metavar="FILE",
        help="merged envelope (default envelopes/mutation/merged.json)",
    )
    check.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="baseline file (default [tool.lanes.mutation] baseline)",
    )
    check.add_argument(
        "--envelope",
        type=Path,
        metavar="FILE",
        help="where the lane's envelope goes (default envelopes/mutation.json)",
    )
    check.set_defaults(handler=_verb("check"))

    baseline = verbs.add_parser(
        "baseline", help="write the proposed baseline of the last check (you commit it)"
    )
    add_config_option(baseline)
    baseline.add_argument(
        "--envelope",
        type=Path,
        metavar="FILE",
        help="the check envelope (default envelopes/mutation.json)",
    )
    baseline.add_argument(
        "--output",
        type=Path,
        metavar="FILE",
        help="where to write (default the configured baseline)",
    )
    baseline.set_defaults(handler=_verb("baseline"))

    matrix = verbs.add_parser(
        "matrix", help="the GitHub Actions matrix: one entry per (module, shard)"
    )
    add_config_option(matrix)
    matrix.add_argument("--module", action="append", metavar="NAME", help="only these modules")
    matrix.add_argument("--whole", action="store_true", help="one shard per module")
    matrix.add_argument(
        "--plan", type=Path, metavar="DIR", help="the plan's shard counts instead of the registry's"
    )
    matrix.add_argument("--count", action="store_true", help="print the number of entries instead")
    matrix.add_argument(
        "--github-output",
        action="store_true",
        help="also append matrix= and count= to $GITHUB_OUTPUT",
    )
    matrix.set_defaults(handler=_verb("matrix_command"))

    affected = verbs.add_parser("affected", help="the modules a diff touches (JSON), or the canary")
    add_config_option(affected)
    affected.add_argument(
        "--base", required=True, metavar="REF", help="compare the working tree with this ref"
    )
    affected.add_argument("--compact", action="store_true", help="one line of JSON")
    affected.set_defaults(handler=_verb("affected"))


def _verb(name: str) -> Any:  # noqa: ANN401  # an argparse handler
    def handle(ns: argparse.Namespace) -> int:
        from lanes.mutation import commands  # keeps `lanes --help` light

        handler = getattr(commands, name)
        return int(handler(ns))

    return handle


def _handle_bare(ns: argparse.Namespace) -> int:
    if not ns.self_check:
        import sys

        print(
            "usage: lanes mutation {plan,run,merge,check,baseline,matrix,affected} ... | --self-check",
            file=sys.stderr,
        )
        return 2
    from lanes.mutation.selfcheck import self_check

    return self_check(ns)
