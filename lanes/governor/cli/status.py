"""``lanes governor status|record|unlock``: the gate's state, for humans and make targets.

All three read the tree with the same :func:`~lanes.governor.state.tree.tree_state`
the hook uses, so what ``status`` calls fresh is exactly what the gate would
refuse to re-run.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lanes.errors import StateError, UsageError
from lanes.governor.context import StatePaths
from lanes.governor.policy.gate import ago
from lanes.governor.state import ledger as ledger_mod
from lanes.governor.state import lock as lock_mod
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.shown import shown, shown_fields
from lanes.governor.state.tree import find_repo, lanekit_writes, state_dir, tree_state
from lanes.governor.state.trust import distrust_state

if TYPE_CHECKING:
    import argparse

    from lanes.config import Config
    from lanes.governor.state.ledger import TreeState

__all__ = ["collect_status", "render_status", "run_record", "run_status", "run_unlock"]

# Environment variables an agent's shell may carry its session id in.
_SESSION_VARS = ("CLAUDE_SESSION_ID", "CODEX_SESSION_ID")
# A lock's command, as status shows it: enough to recognise the run.
_COMMAND_CHARS = 200


def _config(ns: argparse.Namespace) -> Config:
    from lanes.config import load_config

    path = getattr(ns, "config", None)
    return load_config(path)


def _where(config: Config) -> tuple[str, str | None, TreeState | None]:
    """(cwd, state dir, tree) of the project ``config`` belongs to."""
    cwd = os.getcwd()
    state = state_dir(str(config.root), os.environ)
    repo = find_repo(str(config.root))
    exclude = lanekit_writes(state, config.root, config.envelope_dir)
    tree = None if repo is None else tree_state(repo.top, exclude=exclude)
    return cwd, state, tree


def _shown_lock(record: lock_mod.LockRecord) -> dict[str, object]:
    fields = shown_fields(record.to_dict())
    fields["command"] = shown(record.command, _COMMAND_CHARS)
    return fields


def collect_status(config: Config, *, session: str | None) -> dict[str, object]:
    """Everything ``status`` shows, as one JSON-ready dict."""
    env = OSEnvironment()
    cwd, state, tree = _where(config)
    now = env.now()
    entries = {} if state is None else ledger_mod.read(env, StatePaths(state).ledger)
    suites: dict[str, object] = {}
    for name, suite in config.suites.items():
        entry = entries.get(name)
        fresh, reason = ledger_mod.freshness(entry, tree, now, suite.max_age)
        suites[name] = {
            "fresh": fresh,
            "reason": reason,
            "max_age": suite.max_age,
            "lock": suite.lock,
            "entry": None if entry is None else shown_fields(entry.to_dict()),
            "age_s": None if entry is None else round(now - entry.ts, 1),
        }
    ttl = config.governor.lock_ttl
    lock_view: dict[str, object] = {"status": "absent", "holder": None, "ttl": ttl}
    if state is not None:
        seen = lock_mod.inspect(env, StatePaths(state).lock, ttl=ttl)
        lock_view.update(
            status=seen.status,
            holder=None if seen.record is None else _shown_lock(seen.record),
            age_s=None if seen.age is None else round(seen.age, 1),
        )
    economy: dict[str, object] | None = None
    session_id = session or next((os.environ[v] for v in _SESSION_VARS if os.environ.get(v)), None)
    if session_id:
        from lanes.governor.policy.economy import session_counters

        economy = session_counters(cwd, session_id)
    from lanes.governor.cli.runner_check import check_runner, record_verdict

    checks, disabled = check_runner(Path(config.root))
    record_verdict(state, checks, disabled, source="status")
    return {
        "runner_plugin": {"environments": [c.to_dict() for c in checks], "disabled_by": disabled},
        "root": str(config.root),
        "state_dir": state,
        "state_distrusted": None
        if state is None
        else distrust_state(state, StatePaths(state).files()),
        "tree": None if tree is None else tree.to_dict(),
        "suites": suites,
        "lock": lock_view,
        "session": None if session_id is None else shown(session_id),
        "economy": economy,
    }


def _entry_line(entry: dict[str, object], age: object) -> str:
    tail = shown(str(entry.get("session_tail") or "")[-4:]) or "????"
    who = shown(entry.get("agent") or "?")
    text = f"{entry['status']} {ago(float(age))} ago by {who} (session …{tail})"  # type: ignore[arg-type]  # age_s is a float whenever entry is set
    duration = entry.get("duration_ms")
    if isinstance(duration, int):
        text += f", took {duration / 1000:.1f} s"
    return text


def _runner_lines(runner: object) -> list[str]:
    """Where the governor's pytest plugin loads for this project."""
    from lanes.governor.cli.runner_check import PluginCheck, render_checks

    if not isinstance(runner, dict):
        return []
    checks = [
        PluginCheck(str(e["interpreter"]), str(e["found_as"]), loads=e["loads"])
        for e in runner.get("environments", [])
        if isinstance(e, dict)
    ]
    disabled = [str(reason) for reason in runner.get("disabled_by", [])]
    return ["pytest plugin (lanes.governor)", *render_checks(checks, disabled, advise=False)]


def render_status(view: dict[str, object]) -> str:
    """The human form of :func:`collect_status`."""
    lines = []
    tree = view["tree"]
    if isinstance(tree, dict):
        digest = tree["dirty_digest"]
        dirty = "clean" if digest == ledger_mod.CLEAN else f"dirty {str(digest)[:12]}"
        lines.append(f"tree       HEAD {str(tree['git_head'])[:12]}, {dirty}")
    else:
        lines.append("tree       not a git work tree: nothing can be fresh")
    lines.append(f"state      {view['state_dir'] or '-'}")
    if view.get("state_distrusted"):
        lines.append(
            f"           NOT TRUSTED: {shown(view['state_distrusted'], 300)} — the governor "
            "ignores its ledger and lock and refuses full-sweep overrides until you fix it"
        )
    suites = view["suites"]
    assert isinstance(suites, dict)  # noqa: S101  # built by collect_status
    width = max((len(name) for name in suites), default=0)
    lines.append("suites")
    for name, info in suites.items():
        word = "fresh" if info["fresh"] else "stale"
        entry = info["entry"]
        detail = "" if entry is None else _entry_line(entry, info["age_s"])
        reason = "" if info["fresh"] else f"{info['reason']}"
        joined = " — ".join(part for part in (reason, detail) if part)
        lines.append(f"  {name:<{width}}  {word}  {joined}")
    lock_view = view["lock"]
    assert isinstance(lock_view, dict)  # noqa: S101  # built by collect_status
    holder = lock_view["holder"]
    status = lock_view["status"]
    if status == "absent":
        lines.append("run lock   free")
    elif not isinstance(holder, dict):
        lines.append("run lock   unreadable file (`lanes governor unlock` removes it)")
    else:
        age = float(lock_view.get("age_s") or 0.0)
        who = (
            f"{holder['agent']} (session …{str(holder['session_tail'])[-4:]}, "
            f"pid {holder['agent_pid']} on {holder['host']}) running {holder['suite']} "
            f"for {ago(age)}"
        )
        if status == "held":
            lines.append(
                f"run lock   held by {who}; frees when the run ends, its agent exits, "
                f"or in {ago(float(lock_view['ttl']) - age)} at the latest"
            )
        else:
            label = {"expired": "expired", "owner-dead": "owner dead"}.get(str(status), status)
            lines.append(f"run lock   {label}: {who}; the next run takes it")
    lines.extend(_runner_lines(view.get("runner_plugin")))
    economy = view["economy"]
    if view["session"] is None:
        lines.append("economy    no session (pass --session ID)")
    elif not isinstance(economy, dict):
        lines.append(f"economy    session …{str(view['session'])[-4:]}: no runs counted")
    else:
        lines.append(
            f"economy    session …{str(view['session'])[-4:]}: "
            f"{economy.get('full_runs', 0)} full runs, {economy.get('filtered_runs', 0)} "
            f"filtered runs, {economy.get('fires', 0)} nudges"
        )
    return "\n".join(lines)


def run_status(ns: argparse.Namespace) -> int:
    view = collect_status(_config(ns), session=getattr(ns, "session", None))
    if ns.json:
        sys.stdout.write(json.dumps(view, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(render_status(view) + "\n")
    return 0


def run_record(ns: argparse.Namespace) -> int:
    """``lanes governor record SUITE pass|fail``: for make targets and humans."""
    config = _config(ns)
    if ns.suite not in config.suites:
        known = ", ".join(sorted(config.suites)) or "(none)"
        msg = f"no suite {ns.suite!r} in [tool.lanes.suites] (configured: {known})"
        raise UsageError(msg, hint="pass one of the configured suite names, or add the suite")
    _, state, tree = _where(config)
    if state is None or tree is None:
        msg = f"cannot read the tree state of {str(config.root)!r}"
        raise StateError(
            msg,
            hint="run it inside a git work tree with at least one commit "
            "(a result must name the tree it was proven on)",
        )
    env = OSEnvironment()
    files = StatePaths(state)
    try:
        os.makedirs(state, exist_ok=True)
    except OSError as exc:
        raise _state_path_error(state, exc) from None
    problem = distrust_state(state, [files.ledger, files.ledger_guard])
    if problem is not None:
        msg = f"refusing to record into state another user can write: {problem}"
        raise StateError(msg, hint="make the state dir and its files yours and `chmod go-w` them")
    status: ledger_mod.Outcome = "PASS" if ns.outcome == "pass" else "FAIL"
    entry = ledger_mod.LedgerEntry(
        status=status,
        ts=env.now(),
        git_head=tree.git_head,
        dirty_digest=tree.dirty_digest,
        agent=os.environ.get("LANES_AGENT", "human"),
        session_tail="",
        duration_ms=None,
    )
    try:
        ledger_mod.record(env, files.ledger, files.ledger_guard, ns.suite, entry)
    except OSError as exc:
        raise _state_path_error(files.ledger, exc) from None
    state_word = "clean" if tree.dirty_digest == ledger_mod.CLEAN else "dirty"
    sys.stdout.write(f"recorded {ns.suite} {status} on {tree.git_head[:12]} ({state_word})\n")
    return 0


def _state_path_error(path: str, exc: OSError) -> StateError:
    """A state path that is a directory, a link or unwritable: a typed error, not a crash."""
    msg = f"cannot use the governor state path {path!r}: {exc.strerror or exc}"
    return StateError(
        msg,
        hint="lanekit keeps regular files there: remove or rename what is in the way "
        "(`lanes governor status` shows the state dir)",
    )


def run_unlock(ns: argparse.Namespace) -> int:
    """``lanes governor unlock [--force]``: a live owner's lock needs --force (audited)."""
    config = _config(ns)
    _, state, _tree = _where(config)
    if state is None:
        sys.stdout.write("no run lock (not a git work tree)\n")
        return 0
    env = OSEnvironment()
    files = StatePaths(state)
    ttl = config.governor.lock_ttl
    seen = lock_mod.inspect(env, files.lock, ttl=ttl)
    if seen.status == "absent":
        sys.stdout.write("no run lock\n")
        return 0
    holder = seen.record
    if seen.status == "held" and not ns.force:
        assert holder is not None  # noqa: S101  # "held" always carries its record
        msg = (
            f"the run lock is held by a live owner: {shown(holder.agent)} "
            f"(pid {holder.agent_pid}) running {shown(holder.suite)} for {ago(seen.age or 0.0)}"
        )
        raise UsageError(
            msg,
            hint="wait for that run to finish, or pass --force if you know it is gone "
            "(the forced unlock is audited)",
        )
    try:
        if holder is not None:
            removed = lock_mod.release(env, files.lock, files.lock_guard, token=holder.token)
        else:
            # An unreadable file carries no token; remove it under the guard.
            with env.locked(files.lock_guard):
                removed = env.unlink(files.lock)
    except OSError as exc:
        raise _state_path_error(files.lock, exc) from None
    if seen.status == "held":
        env.append(
            files.audit,
            json.dumps(
                {
                    "ts": env.now(),
                    "event": "forced-unlock",
                    "holder": None if holder is None else holder.to_dict(),
                    "by": os.environ.get("LANES_AGENT", "human"),
                    "cwd": os.getcwd(),
                },
                sort_keys=True,
            ),
        )
    word = "removed" if removed else "already gone"
    sys.stdout.write(f"run lock ({seen.status}) {word}\n")
    return 0
