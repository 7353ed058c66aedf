"""One governed pytest session: the sweep gate, dedup and kernel lock after
collection, the ledger record at the end.

Decision order, once the items that will run are known (after collection and
deselection; under xdist, when the first worker reports its collection, before
any test is scheduled) — the hook's order (:mod:`lanes.governor.policy.gate`):

1. **Sweep gate, fail-closed**: a run that sweeps a suite
   (:meth:`~lanes.governor.runner.scope.Scope.sweep`) stops with
   :attr:`~lanes.governor.runner.exits.RunnerExit.SWEEP` unless
   ``LANES_FULL_SWEEP_OK=1`` and a ``LANES_OVERRIDE_REASON`` of at least 15
   characters are in the environment; an honoured override is audited in the
   hook's audit log (once: a line the hook wrote for the same override in the
   last minutes stands for it), and one that cannot be audited is refused.
2. **Dedup**: a whole configured suite with a fresh PASS on this exact tree
   stops with ``DEDUP`` unless ``LANES_TEST_FORCE=1``. A partial run is never
   deduplicated.
3. **Kernel run lock** (:mod:`lanes.governor.state.runlock`) for a heavy run —
   an allowed sweep, or a whole suite configured with ``lock = true``: held
   until the process ends; a sibling's heavy run stops at once with ``LOCKED``
   naming the holder.

At session finish every *whole* configured suite is recorded: PASS when the
exit status is 0 and collection had no error, FAIL when tests failed or
collection erred; nothing for an interrupted or stopped run, ``--co``, or a
tree that changed during the run. Entries carry ``source: "runner"``, and the
hook's post event leaves a suite alone that the runner recorded for the same
run (:mod:`lanes.governor.policy.record`): one run, one record.

Steps 2-3 and the record fail open, as in the hook. Outside any git work
tree (and without ``LANES_STATE_DIR``) the plugin does not govern at all.
"""

from __future__ import annotations

import os
import socket
import sys
import time

import pytest

from lanes.governor.config_cache import CachedConfig
from lanes.governor.context import HookContext, StatePaths
from lanes.governor.runner.exits import RunnerExit
from lanes.governor.runner.scope import TEST_ROOT, Collected, Scope, SuiteSpec, judge, suite_files
from lanes.governor.settings import GovernorSettings
from lanes.governor.state.debug import debug_log

TYPE_CHECKING = False  # not typing.TYPE_CHECKING, as everywhere in the governor
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from lanes.governor.settings import ConfigLike
    from lanes.governor.state.ledger import TreeState
    from lanes.governor.state.runlock import KernelLock

__all__ = ["RunGovernor", "session_id"]

# Imported where used, not here: the gate's module (the shell classifier behind
# it), the sweep rule and the ledger are needed only by a run that sweeps or
# may be a whole suite, and an agent's every focused pytest run pays each
# module it loads (the bench's governor-plugin-agent-cost).

# A hook's audit line for the same override this recent stands for the run's.
_AUDIT_WINDOW = 600.0


def session_id(environ: Mapping[str, str]) -> str:
    """The agent session this run belongs to, when the agent exposes one."""
    for name in ("LANES_SESSION_ID", "CLAUDE_SESSION_ID", "CODEX_SESSION_ID", "CODEX_THREAD_ID"):
        value = environ.get(name, "").strip()
        if value:
            return value
    return ""


def _context(cwd: str, agent: str) -> HookContext:
    from lanes.governor.state.tree import find_repo

    environ = os.environ
    repo = find_repo(cwd)
    override = environ.get("LANES_STATE_DIR", "").strip()
    if override:
        directory: str | None = os.path.abspath(os.path.join(cwd, override))
    else:
        directory = None if repo is None else os.path.join(repo.common_dir, "lanes")
    return HookContext(
        None,
        cwd=cwd,
        agent=agent,
        environ=environ,
        state=None if directory is None else StatePaths(directory),
        repo=repo,
    )


def _note_plugin_ran(ctx: HookContext) -> None:
    """Record "the plugin ran here" for the hook's advice
    (:mod:`lanes.governor.state.plugin_note`): a fresh active record is only
    read, an older one or an ``inactive`` finding is replaced."""
    from lanes.governor.state.plugin_note import REFRESH_S, PluginNote, read_note, write_note

    if ctx.state is None:
        return
    env, directory = ctx.env, ctx.state.directory
    now = env.now()
    note = read_note(env, directory)
    if note is not None and note.active and 0 <= now - note.ts < REFRESH_S:
        return
    try:
        write_note(env, directory, PluginNote(active=True, ts=now, source="plugin"))
    except OSError as exc:
        debug_log("plugin-note-failed", error=str(exc))


def _governor_settings(ctx: HookContext) -> tuple[ConfigLike | None, GovernorSettings]:
    """The project's settings; the defaults (and no suites) when they cannot be
    read — the sweep gate still applies, to the test root."""
    try:
        settings = ctx.settings
    except Exception as exc:  # noqa: BLE001  # fail closed to the defaults, never open
        debug_log("runner-settings", error=f"{type(exc).__name__}: {exc}")
        return None, GovernorSettings()
    return settings, settings.governor


class RunGovernor:
    """The plugin object registered for a governed session (see the module docstring)."""

    def __init__(
        self,
        config: pytest.Config,
        ctx: HookContext,
        settings: ConfigLike | None,
        governor: GovernorSettings,
    ) -> None:
        self.config = config
        self.ctx = ctx
        self.settings = settings
        self.governor = governor
        self.started = time.time()
        self._deselected: list[str] = []
        self._errors = 0
        self._decided = False
        self._stopped = False
        self._scopes: list[Scope] = []
        self._tree: TreeState | None = None
        self._lock: KernelLock | None = None

    @classmethod
    def start(cls, config: pytest.Config, agent: str) -> RunGovernor | None:
        """The governor of this session; None when ``enforce = "off"`` or
        outside any git work tree (no repository and no ``LANES_STATE_DIR``:
        no ledger, tree or lock, and no suite a sweep could waste — the hook
        lets such a run through too, with advice)."""
        ctx = _context(str(config.rootpath), agent)
        if ctx.repo is None and ctx.state is None:
            return None
        settings, governor = _governor_settings(ctx)
        if governor.enforce == "off":
            return None
        run = cls(config, ctx, settings, governor)
        if ctx.state is not None and settings is not None and settings.suites:
            ctx.prepare_state()
            try:
                early = run._may_be_whole()
            except Exception as exc:  # noqa: BLE001  # only a head start: a whole suite computes the tree later
                debug_log("runner-early-tree", error=f"{type(exc).__name__}: {exc}")
                early = False
            if early:
                # git runs on the other core while pytest collects.
                ctx.start_tree()
            _note_plugin_ran(ctx)
        return run

    # ---------------------------------------------------------------- hooks

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        self._deselected.extend(str(item.path) for item in items)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self._errors += 1

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items or not self._under_xdist():
            self._decide([str(item.path) for item in session.items], self._deselected)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: Sequence[str]) -> None:
        # The controller collects nothing under xdist: the first worker's
        # collection (after its deselection, which it does not report) is
        # the run. Deselected items are unknown here, so -k/-m/--deselect
        # decide partiality from the options alone — never a phantom whole.
        root = str(self.config.rootpath)
        self._decide([os.path.join(root, nodeid.split("::")[0]) for nodeid in ids], [])

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        try:
            if not self._stopped and self._decided:
                self._record(int(exitstatus))
        except Exception as exc:  # noqa: BLE001  # the record fails open
            debug_log("runner-record-error", error=f"{type(exc).__name__}: {exc}")
        finally:
            if self._lock is not None:
                self._lock.release()
            self.ctx.close()

    # ------------------------------------------------------------- decision

    def _under_xdist(self) -> bool:
        return bool(getattr(self.config.option, "numprocesses", None)) and bool(
            self.config.pluginmanager.has_plugin("dsession")
        )

    def _specs(self) -> list[SuiteSpec]:
        """The configured pytest suites, and the test root as a suite of its own."""
        specs: list[SuiteSpec] = []
        test_root = self._test_root()
        if self.settings is not None:
            root = str(self.settings.root)
            # The cached shapes, read by the hook's classifier when the cache
            # row was written: a warm run never loads the classifier.
            cached = self.settings.shapes if isinstance(self.settings, CachedConfig) else {}
            for suite in self.settings.suites.values():
                if suite.runner != "pytest":
                    continue
                shape = cached.get(suite.name)
                if shape is None:
                    from lanes.governor.policy.suites import suite_selection  # uncached only

                    shape = suite_selection(suite, root)
                paths, markers, full = shape
                absolute = [os.path.join(root, p) for p in sorted(paths)] if paths else []
                if not absolute and full:
                    absolute = test_root
                if absolute:
                    specs.append(SuiteSpec(suite.name, absolute, markers, suite))
        normal = sorted(os.path.normpath(p) for p in test_root)
        if not any(list(spec.paths) == normal and not spec.markers for spec in specs):
            specs.append(SuiteSpec(TEST_ROOT, test_root))
        return specs

    def _may_be_whole(self) -> bool:
        """Whether this run could turn out to be a whole configured suite,
        judged from its arguments before collection.

        Only a whole suite is deduplicated or recorded, and both key on the
        tree digest: git over the whole work tree, the plugin's dearest step
        (on a 5,000-file repository more than an interpreter start). A run
        whose arguments do not cover every path of some configured suite, or
        that names tests with ``-k``, can never be whole (the rule of
        :func:`~lanes.governor.runner.scope.judge`), so it never starts git;
        one that may be whole starts it now, to overlap with collection, and
        a whole suite found later without it computes it then."""
        if getattr(self.config.option, "keyword", ""):
            return False
        args = self._collected((), ()).args
        return any(spec.suite is not None and spec.covered_by(args) for spec in self._specs())

    def _test_root(self) -> list[str]:
        root = str(self.config.rootpath)
        testpaths = self.config.getini("testpaths")
        paths = [os.path.join(root, p) for p in testpaths] if testpaths else []
        return [p for p in paths if os.path.exists(p)] or [root]

    def _collected(self, selected: Sequence[str], deselected: Sequence[str]) -> Collected:
        config = self.config
        invoked = str(config.invocation_params.dir)
        args = [os.path.join(invoked, arg.split("::")[0]) for arg in config.args]
        option = config.option
        narrowed: list[str] = []
        # pytest resolves --ignore against the invocation directory.
        ignored = [os.path.join(invoked, str(p)) for p in getattr(option, "ignore", None) or ()]
        globs = getattr(option, "ignore_glob", None)
        if globs:
            narrowed.append(f"--ignore-glob {' '.join(map(str, globs))}")
        if getattr(option, "deselect", None):
            narrowed.append("--deselect")
        if any("::" in arg for arg in config.args):
            narrowed.append("node ids as arguments")
        if getattr(option, "lf", False):
            lfplugin = config.pluginmanager.get_plugin("lfplugin")
            if getattr(lfplugin, "lastfailed", None):
                narrowed.append("--lf (it reruns last time's failures)")
        if getattr(option, "stepwise", False):
            narrowed.append("--stepwise")
        return Collected(
            selected=selected,
            deselected=deselected,
            args=args,
            markexpr=str(getattr(option, "markexpr", "") or ""),
            keyword=str(getattr(option, "keyword", "") or ""),
            narrowed=narrowed,
            ignored=ignored,
        )

    def _decide(self, selected: Sequence[str], deselected: Sequence[str]) -> None:
        if self._decided or self.config.getoption("collectonly"):
            return
        self._decided = True
        collected = self._collected(selected, deselected)
        patterns = tuple(self.config.getini("python_files"))
        norecurse = tuple(self.config.getini("norecursedirs"))
        self._scopes = [
            judge(
                spec,
                collected,
                lambda paths, limit: suite_files(paths, patterns, norecurse, limit),
                share_percent=self.governor.sweep_share,
                min_files=self.governor.sweep_min_paths,
            )
            for spec in self._specs()
        ]
        # 1. The sweep gate: outside any try, it fails closed.
        sweeps = [
            s
            for s in self._scopes
            if s.sweep(self.governor.sweep_share, self.governor.sweep_min_paths)
        ]
        reason = self._gate(sweeps) if sweeps else None
        try:
            self._dedup_and_lock(sweeps)
        except pytest.exit.Exception:
            raise
        except Exception as exc:  # noqa: BLE001  # steps 2-3 fail open by contract
            debug_log("runner-gate-error", error=f"{type(exc).__name__}: {exc}")
        # 4. Audit the override only now: a sweep that dedup or the lock then
        # stopped never ran, and an audit line must stand for a run that did.
        # Failing to audit still stops the run before its first test.
        if reason is not None:
            refused = self._audit(reason)
            if refused is not None:
                self._stop(RunnerExit.SWEEP, refused)

    def _stop(self, code: RunnerExit, message: str) -> None:
        self._stopped = True
        pytest.exit(f"lanes governor: {message}", returncode=int(code))

    def _gate(self, sweeps: list[Scope]) -> str:
        """The override's reason; stops the run when there is no valid override."""
        from lanes.governor.policy.sweep import MIN_REASON

        environ = self.ctx.environ
        flag = environ.get("LANES_FULL_SWEEP_OK")
        reason = (environ.get("LANES_OVERRIDE_REASON") or "").strip()
        if flag != "1" or len(reason) < MIN_REASON:
            self._stop(RunnerExit.SWEEP, self._sweep_message(sweeps, flag, reason))
        return reason

    def _sweep_message(self, sweeps: list[Scope], flag: str | None, reason: str) -> str:
        from lanes.governor.policy.sweep import MIN_REASON

        scope = sweeps[0]
        why = (
            "it runs the whole suite"
            if scope.whole
            else f"that is at least sweep_share = {self.governor.sweep_share} %"
        )
        collected = (
            f"full sweep stopped before the first test: this run collected {scope.summary()}; "
            f"{why} ({scope.files_run} files >= sweep_min_paths = "
            f"{self.governor.sweep_min_paths})."
        )
        advice = (
            "Mid-task, run the tests for what you changed (e.g. `pytest tests/unit/test_x.py`); "
            "the full suite runs once before push and in CI."
        )
        lines = [collected, advice]
        if flag == "1" and len(reason) < MIN_REASON:
            lines.append(
                f"LANES_OVERRIDE_REASON is {len(reason)} characters; at least {MIN_REASON} "
                "are required."
            )
        lines.append(
            "If a full run is really needed now: LANES_FULL_SWEEP_OK=1 "
            'LANES_OVERRIDE_REASON="<why, 15+ characters>" (audited), under `nice -n 19`. '
            f"(exit {int(RunnerExit.SWEEP)}: stopped by the governor, no test ran)"
        )
        return "\n".join(lines)

    def _command(self) -> str:
        return " ".join(["pytest", *self.config.invocation_params.args])

    def _audit(self, reason: str) -> str | None:
        """Append the honoured override to the audit log; why it cannot be, else None."""
        state = self.ctx.state
        if state is None:
            debug_log("audit-skipped", reason="no state dir (not a git work tree)")
            return None
        self.ctx.prepare_state()
        if self.ctx.state is None:
            return (
                "full-sweep override not honoured: the state directory "
                f"{state.directory} cannot be created, so it cannot be audited"
            )
        from lanes.governor.state.trust import distrust_state  # an audited override only

        problem = distrust_state(state.directory, [state.audit])
        if problem is None:
            if self._hook_audited(state.audit, reason):
                return None
            import json

            line = json.dumps(
                {
                    "ts": time.time(),
                    "event": "full-sweep-override",
                    "source": "runner",
                    "session": session_id(self.ctx.environ),
                    "agent": self.ctx.agent,
                    "command": self._command(),
                    "reason": reason,
                    "cwd": str(self.config.invocation_params.dir),
                },
                sort_keys=True,
            )
            try:
                self.ctx.env.append(state.audit, line)
            except OSError as exc:
                problem = f"{state.audit} cannot be written ({exc.strerror or exc})"
        if problem is None:
            return None
        return (
            f"full-sweep override not honoured: it cannot be audited — {problem[:300]}. "
            "Fix the state directory (it must be yours and not writable by others: "
            "`lanes governor status` shows it), then retry."
        )

    def _hook_audited(self, audit: str, reason: str) -> bool:
        """Whether the hook audited this very override moments ago (its
        PreToolUse of this command): the run is then audited once, not twice."""
        import json

        try:
            with open(audit, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - 16384))
                lines = handle.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return False
        now = time.time()
        for text in reversed(lines[-50:]):
            try:
                entry = json.loads(text)
            except ValueError:
                continue
            if not isinstance(entry, dict) or entry.get("source") == "runner":
                continue
            ts = entry.get("ts")
            if (
                entry.get("reason") == reason
                and isinstance(ts, int | float)
                and 0 <= now - ts <= _AUDIT_WINDOW
            ):
                return True
        return False

    def _dedup_and_lock(self, sweeps: list[Scope]) -> None:
        state = self.ctx.state
        whole = [s for s in self._scopes if s.whole and s.spec.suite is not None]
        if state is None or not (whole or sweeps):
            # A focused run (the common case): no ledger, tree or lock to read.
            return
        from lanes.governor.state.trust import distrust_state

        problem = distrust_state(state.directory, state.files())
        if problem is not None:
            debug_log("state-distrusted", error=problem)
            return
        if whole:
            self._tree = self.ctx.tree
        # 2. Dedup: whole suites only, unless forced.
        if whole and self.ctx.environ.get("LANES_TEST_FORCE") != "1":
            from lanes.governor.policy.gate import ago
            from lanes.governor.state import ledger as ledger_mod

            entries = ledger_mod.read(self.ctx.env, state.ledger)
            now = time.time()
            for scope in whole:
                suite = scope.spec.suite
                entry = entries.get(scope.spec.name)
                if suite is None or entry is None:
                    continue
                fresh, _ = ledger_mod.freshness(entry, self._tree, now, suite.max_age)
                if fresh:
                    self._stop(
                        RunnerExit.DEDUP,
                        f"{scope.spec.name} green {ago(now - entry.ts)} ago by "
                        f"{entry.agent or 'someone'} on this exact tree — reuse it, "
                        "or LANES_TEST_FORCE=1 to re-run",
                    )
        # 3. The kernel run lock, for a heavy run.
        heavy = [s.spec.name for s in sweeps] + [
            s.spec.name
            for s in whole
            if s.spec.suite is not None and s.spec.suite.lock and s not in sweeps
        ]
        if heavy:
            self._take_lock(state, heavy)

    def _take_lock(self, state: StatePaths, suites: list[str]) -> None:
        from lanes.governor.policy.gate import session_tail
        from lanes.governor.state.runlock import acquire

        holder = {
            "suite": ", ".join(dict.fromkeys(suites)),
            "agent": self.ctx.agent,
            "session": session_tail(session_id(self.ctx.environ)),
            "pid": os.getpid(),
            "started_ts": self.started,
            "host": socket.gethostname(),
            "command": self._command(),
        }
        lock, found = acquire(self.ctx.env, state.flock, holder)
        if lock is None:
            self._stop(
                RunnerExit.LOCKED,
                f"run lock held: {found.describe(time.time())}. It frees the moment that "
                "run ends (the kernel holds it for its process). Do something else meanwhile "
                "and retry; `lanes governor status` shows the holder.",
            )
        self._lock = lock
        # Then the hook's JSON lock: a heavy run pytest does not hold (npm
        # test, cargo test ...). Read only now, with the kernel lock held
        # (the ordering argument is in lanes.governor.runner.json_lock).
        from lanes.governor.runner.json_lock import foreign_holder, refusal

        ttl = float(self.governor.lock_ttl)
        other = foreign_holder(
            self.ctx.env, state.lock, ttl=ttl, session_tail=str(holder["session"])
        )
        if other is not None:
            self._lock = None
            if lock is not None:
                lock.release()
            self._stop(RunnerExit.LOCKED, refusal(other, time.time(), ttl))

    # --------------------------------------------------------------- record

    def _record(self, exitstatus: int) -> None:
        state = self.ctx.state
        whole = [s for s in self._scopes if s.whole and s.spec.suite is not None]
        if state is None or not whole or self._tree is None:
            return
        from lanes.governor.policy.gate import session_tail
        from lanes.governor.state import ledger as ledger_mod

        if exitstatus == 0 and self._errors == 0:
            status: ledger_mod.Outcome = "PASS"
        elif exitstatus == pytest.ExitCode.TESTS_FAILED or self._errors:
            status = "FAIL"
        else:
            debug_log("runner-record-skipped", reason=f"exit status {exitstatus}")
            return
        after = _context(self.ctx.cwd, self.ctx.agent).tree
        if after != self._tree:
            # An edit during the run: the result proves neither tree.
            debug_log("runner-record-skipped", reason="the tree changed during the run")
            sys.stderr.write(
                "lanes governor: not recorded — the tree changed while the suite ran\n"
            )
            return
        now = time.time()
        for scope in whole:
            entry = ledger_mod.LedgerEntry(
                status=status,
                ts=now,
                git_head=self._tree.git_head,
                dirty_digest=self._tree.dirty_digest,
                agent=self.ctx.agent,
                session_tail=session_tail(session_id(self.ctx.environ)),
                duration_ms=max(0, int((now - self.started) * 1000)),
                source="runner",
            )
            try:
                ledger_mod.record(
                    self.ctx.env, state.ledger, state.ledger_guard, scope.spec.name, entry
                )
            except (OSError, ValueError) as exc:
                debug_log("runner-record-failed", suite=scope.spec.name, error=str(exc))
