"""What each simulated agent does: operations drawn from the seed.

A client's program is a list of :class:`Op`. Each op has a one-line text form
(``cycle unit pass 20 force``) used in traces and schedule files, parsed back
strictly by :func:`parse_op`.

Operations:
- ``cycle SUITE END DURATION [force] [plugin]``: PreToolUse for the suite's command
  through the governor's decision path; if allowed, the suite runs (the
  critical section) for DURATION modelled seconds; then END:
  ``pass``/``fail`` (PostToolUse / PostToolUseFailure: record + release),
  ``crash`` (the agent process dies: no post hook; its pid is dead),
  ``interrupt`` (no post hook, the agent lives on: its lock frees only at the
  TTL, or when the same session comes back — self-reclaim), ``unwritable``
  (the suite passes, but every ledger write of the post hook fails — a full
  disk, a directory at the ledger path: the lock must be released all the
  same), ``no-guard`` (the run lock's guard cannot be
  opened for the whole cycle: a live holder must still block it, a free lock
  may still be taken, nothing is broken) or
  ``leftover-temp`` (the suite passes, but a killed hook's temp file sits
  where the post hook's ledger write puts its own: the write fails, the lock
  is released all the same). ``force`` sets ``LANES_TEST_FORCE=1``.
  ``plugin`` makes the run a governed pytest: after the hook lets
  it through, the runner's plugin takes the kernel run lock
  (:mod:`lanes.governor.state.runlock`) for the whole run, and is refused
  (pytest's exit 8, no test runs) when another run holds it. A cycle without
  it stands for a run only the hook governs: a non-Python runner, or a
  pytest whose plugin cannot load.
- ``sleep N``: N modelled seconds pass.
- ``wait-lock OFFSET``: time jumps to the current lock's TTL boundary plus
  OFFSET seconds (-1, 0 or 1): where off-by-one bugs live.
- ``edit DIGEST`` / ``commit HEAD``: the client's worktree changes (a PASS of
  the old tree state must stop being fresh for it).
- ``reuse``: the client's host hands a dead pid to a new, unrelated process.
- ``record SUITE pass|fail``: ``lanes governor record`` (a make target or a
  human) writes the ledger directly, without the run lock: the ledger's flock
  is then all that keeps two writers from losing an update.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from lanes.errors import UsageError

__all__ = [
    "DIGESTS",
    "ENDS",
    "HEADS",
    "SUITES",
    "ClientSpec",
    "Op",
    "generate_programs",
    "parse_op",
]

# The modelled suites: name -> max_age (seconds). Two suites with different
# ages so that "too old" and "another suite holds the lock" both happen.
SUITES: Final = {"unit": 3600, "slow": 600}
ENDS: Final = ("pass", "fail", "crash", "interrupt", "unwritable", "no-guard", "leftover-temp")
HEADS: Final = ("h0", "h1", "h2")
DIGESTS: Final = ("clean", "d1", "d2")
HOSTS: Final = ("h-local", "h-remote")
OFFSETS: Final = (-1, 0, 1)
MAX_DURATION: Final = 10**6
# The share of programs whose last op is an `unwritable` run.
_UNWRITABLE_SHARE: Final = 0.5
# The share of programs whose next-to-last op is a `leftover-temp` run, and
# of clients that meet a broken guard (`no-guard` for each passing run):
# from a stream of their own, like `unwritable`.
_HOSTILE_FS_SHARE: Final = 0.3
_GUARDLESS_SHARE: Final = 0.4
# The share of clients whose test runs are governed pytest runs (the kernel
# run lock); the others are governed by the hook alone (the JSON lock).
_PLUGIN_SHARE: Final = 0.5


@dataclass(frozen=True)
class Op:
    kind: str
    suite: str = ""
    end: str = ""
    amount: int = 0
    force: bool = False
    target: str = ""
    plugin: bool = False

    def text(self) -> str:
        if self.kind == "cycle":
            tail = (" force" if self.force else "") + (" plugin" if self.plugin else "")
            return f"cycle {self.suite} {self.end} {self.amount}{tail}"
        if self.kind in ("sleep", "wait-lock"):
            return f"{self.kind} {self.amount}"
        if self.kind in ("edit", "commit"):
            return f"{self.kind} {self.target}"
        if self.kind == "record":
            return f"record {self.suite} {self.end}"
        return self.kind


@dataclass(frozen=True)
class ClientSpec:
    """One simulated agent: the host it runs on and its program."""

    host: str
    program: tuple[Op, ...]


def _bad_op(text: str, what: str) -> UsageError:
    return UsageError(
        f"torture op {text!r}: {what}",
        hint=(
            "ops are 'cycle SUITE END SECONDS [force] [plugin]', 'sleep SECONDS', 'wait-lock -1|0|1', "
            f"'edit DIGEST', 'commit HEAD', 'reuse' or 'record SUITE pass|fail'; suites {sorted(SUITES)}, ends {list(ENDS)}, "
            f"digests {list(DIGESTS)}, heads {list(HEADS)}"
        ),
    )


def _seconds(text: str, word: str) -> int:
    if not (word.isascii() and word.isdigit()) or len(word) > 7 or int(word) > MAX_DURATION:
        raise _bad_op(text, f"seconds must be an integer 0..{MAX_DURATION}, got {word!r}")
    return int(word)


def parse_op(text: str) -> Op:
    """The op a line of text names; :class:`UsageError` for anything else."""
    if not isinstance(text, str):
        raise _bad_op(repr(text), f"expected a string, got {type(text).__name__}")
    words = text.split(" ")
    kind = words[0]
    if kind == "cycle" and len(words) in (4, 5, 6):
        _, suite, end, amount, *rest = words
        if suite not in SUITES:
            raise _bad_op(text, f"unknown suite {suite!r}")
        if end not in ENDS:
            raise _bad_op(text, f"unknown end {end!r}")
        if rest not in ([], ["force"], ["plugin"], ["force", "plugin"]):
            raise _bad_op(
                text, f"the optional words must be 'force', then 'plugin'; got {' '.join(rest)!r}"
            )
        return Op(
            "cycle",
            suite=suite,
            end=end,
            amount=_seconds(text, amount),
            force="force" in rest,
            plugin="plugin" in rest,
        )
    if kind == "sleep" and len(words) == 2:
        return Op("sleep", amount=_seconds(text, words[1]))
    if kind == "wait-lock" and len(words) == 2:
        if words[1] not in ("-1", "0", "1"):
            raise _bad_op(text, f"offset must be -1, 0 or 1, got {words[1]!r}")
        return Op("wait-lock", amount=int(words[1]))
    if kind == "edit" and len(words) == 2:
        if words[1] not in DIGESTS:
            raise _bad_op(text, f"unknown digest {words[1]!r}")
        return Op("edit", target=words[1])
    if kind == "commit" and len(words) == 2:
        if words[1] not in HEADS:
            raise _bad_op(text, f"unknown head {words[1]!r}")
        return Op("commit", target=words[1])
    if kind == "reuse" and len(words) == 1:
        return Op("reuse")
    if kind == "record" and len(words) == 3:
        if words[1] not in SUITES:
            raise _bad_op(text, f"unknown suite {words[1]!r}")
        if words[2] not in ("pass", "fail"):
            raise _bad_op(text, f"outcome must be 'pass' or 'fail', got {words[2]!r}")
        return Op("record", suite=words[1], end=words[2])
    raise _bad_op(text, "not a known operation with the right number of words")


def _draw_op(rng: random.Random, ttl: int, previous: Op | None) -> Op:
    # An interrupted agent usually retries the same command: that is the
    # self-reclaim path (same session, its own lock still on disk).
    if previous is not None and previous.end == "interrupt" and rng.random() < 0.5:
        return Op("cycle", suite=previous.suite, end="pass", amount=rng.randint(1, 60))
    roll = rng.random()
    if roll < 0.52:
        suite = "unit" if rng.random() < 0.7 else "slow"
        end = rng.choices(ENDS[:4], weights=(50, 14, 18, 18))[0]
        shape = rng.random()
        if shape < 0.8:
            amount = rng.randint(1, 120)
        elif shape < 0.9:
            amount = ttl + rng.randint(-1, 1)
        else:
            amount = rng.randint(ttl, 2 * ttl)
        return Op("cycle", suite=suite, end=end, amount=amount, force=rng.random() < 0.15)
    if roll < 0.66:
        big = rng.random() < 0.2
        return Op("sleep", amount=rng.randint(ttl // 2, ttl * 2) if big else rng.randint(1, 300))
    if roll < 0.73:
        return Op("wait-lock", amount=rng.choice(OFFSETS))
    if roll < 0.81:
        return Op("edit", target=rng.choice(DIGESTS))
    if roll < 0.87:
        return Op("commit", target=rng.choice(HEADS))
    if roll < 0.95:
        suite = "unit" if rng.random() < 0.7 else "slow"
        return Op("record", suite=suite, end="pass" if rng.random() < 0.8 else "fail")
    return Op("reuse")


def _unguarded(op: Op) -> Op:
    if op.kind != "cycle" or op.end != "pass":
        return op
    return Op("cycle", suite=op.suite, end="no-guard", amount=op.amount, force=op.force)


def _governed(op: Op) -> Op:
    if op.kind != "cycle":
        return op
    return Op("cycle", suite=op.suite, end=op.end, amount=op.amount, force=op.force, plugin=True)


def generate_programs(seed: int, *, clients: int, ops: int, ttl: int) -> tuple[ClientSpec, ...]:
    """Every client's host and program for ``seed``."""
    rng = random.Random(seed)
    # The `unwritable` end comes from a stream of its own and replaces only a
    # program's last op: every run is the same as before it existed up to
    # that op, so each planted bug is still found where it was found.
    faults = random.Random(f"unwritable:{seed}")
    hostile = random.Random(f"hostile-fs:{seed}")
    # Which clients run pytest under the plugin: a stream of its own too.
    runners = random.Random(f"runner:{seed}")
    specs = []
    for index in range(clients):
        # Client 0 is always local so that every run has same-host contention;
        # the others are sometimes on another machine sharing the state dir,
        # whose dead pids must never be trusted here.
        host = HOSTS[0] if index == 0 or rng.random() < 0.85 else HOSTS[1]
        program: list[Op] = []
        previous: Op | None = None
        for _ in range(ops):
            op = _draw_op(rng, ttl, previous)
            program.append(op)
            previous = op
        if program and faults.random() < _UNWRITABLE_SHARE:
            suite = "unit" if faults.random() < 0.7 else "slow"
            program[-1] = Op("cycle", suite=suite, end="unwritable", amount=faults.randint(1, 120))
        if len(program) >= 2 and hostile.random() < _HOSTILE_FS_SHARE:  # next-to-last
            suite = "unit" if hostile.random() < 0.7 else "slow"
            amount = hostile.randint(1, 120)
            program[-2] = Op("cycle", suite=suite, end="leftover-temp", amount=amount)
        if index and hostile.random() < _GUARDLESS_SHARE:
            # A client whose guard is broken (a directory at its path on its
            # side of a shared mount): every passing run meets it. Never
            # client 0, so the same-host contention of every run is kept.
            program = [_unguarded(op) for op in program]
        if runners.random() < _PLUGIN_SHARE:
            # A client whose pytest loads the governor's plugin: every run
            # takes the kernel lock too (both layers contend in one run).
            program = [_governed(op) for op in program]
        specs.append(ClientSpec(host=host, program=tuple(program)))
    return tuple(specs)
