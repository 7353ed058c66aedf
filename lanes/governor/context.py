"""The world of one hook call, assembled once: :class:`HookContext` and :class:`StatePaths`.

:mod:`lanes.governor.hook` builds one :class:`HookContext` per call, after the
payload is parsed and the command classified, and passes it down to the gate
(:func:`lanes.governor.policy.gate.decide_pre`), the recorder
(:func:`lanes.governor.policy.record.decide_post`) and the test economy. They
take everything from it — the :class:`~lanes.governor.state.env.Environment`
seam (clock, files, processes), the environment variables, the repository, the
state files, the settings, the agent — and nothing below re-reads
``os.environ``, walks up for ``.git`` or ``pyproject.toml`` again, or runs git
a second time:

- the repository is found once (by reading ``.git`` files, no git process);
- the settings are loaded once, lazily (the cached view of ``[tool.lanes]``);
- the tree state (``git_head`` + dirty digest, :mod:`lanes.governor.state.tree`)
  is computed lazily and at most once: a call that needs no tree (no
  configured suite in the command) never starts git.

The torture lane builds its contexts with :meth:`HookContext.modelled` over its
simulated Environment and the same :class:`StatePaths`, so it drives the very
decision functions agents run, on the very file names they use: renaming a
state file cannot make it watch the wrong path.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping

    from lanes.governor.payload import HookPayload
    from lanes.governor.settings import ConfigLike
    from lanes.governor.state.env import Environment
    from lanes.governor.state.ledger import TreeState
    from lanes.governor.state.tree import Repo, TreeProbe

__all__ = ["HookContext", "StatePaths"]


class StatePaths:
    """Every file the governor keeps in one state directory (``<git common dir>/lanes``).

    The one place their names are written: the gate, the recorder,
    ``lanes governor status`` and the torture lane all take them from here.
    """

    LEDGER = "verify-ledger.json"
    LOCK = "test-run.lock"
    # The kernel run lock a governed pytest holds (lanes.governor.state.runlock).
    FLOCK = "test-run.flock"
    AUDIT = "audit.jsonl"

    __slots__ = ("audit", "directory", "flock", "ledger", "ledger_guard", "lock", "lock_guard")

    def __init__(self, directory: str) -> None:
        self.directory = directory
        # The verify ledger and the flock sidecar that serialises its writers.
        self.ledger = os.path.join(directory, self.LEDGER)
        self.ledger_guard = self.ledger + ".lock"
        # The run lock and the guard that makes acquire/release atomic.
        self.lock = os.path.join(directory, self.LOCK)
        self.lock_guard = self.lock + ".guard"
        self.flock = os.path.join(directory, self.FLOCK)
        # One JSON line per allowed full-sweep override.
        self.audit = os.path.join(directory, self.AUDIT)

    def run_note(self, session_tail: str, command: str) -> str:
        """The note of the tree one run started on (see :mod:`lanes.governor.state.run_notes`)."""
        from lanes.governor.state.run_notes import run_path

        return run_path(self.directory, session_tail, command)

    def files(self) -> tuple[str, ...]:
        """The fixed state files (run notes are per run), for trust checks and listings."""
        return (self.ledger, self.ledger_guard, self.lock, self.lock_guard, self.flock, self.audit)

    def __repr__(self) -> str:
        return f"StatePaths({self.directory!r})"


class _Unset:
    """Not computed yet (None is a real answer: no repository, no tree)."""


_UNSET = _Unset()


class HookContext:
    """One hook call's world; see the module docstring. Build it with
    :meth:`for_hook` (production) or :meth:`modelled` (torture lane, tests)."""

    __slots__ = (
        "_agent_pid",
        "_env",
        "_probe",
        "_repo",
        "_settings",
        "_tree",
        "agent",
        "cwd",
        "environ",
        "state",
    )

    def __init__(
        self,
        env: Environment | None,
        *,
        cwd: str,
        agent: str,
        environ: Mapping[str, str],
        state: StatePaths | None,
        settings: ConfigLike | None = None,
        repo: Repo | _Unset | None = _UNSET,
        tree: TreeState | _Unset | None = _UNSET,
        agent_pid: int | None = None,
    ) -> None:
        self._env = env
        self.cwd = cwd
        self.agent = agent
        self.environ = environ
        # None: no state directory (outside git): nothing is deduplicated,
        # locked or recorded; the full-sweep gate still applies.
        self.state = state
        self._settings = settings
        self._repo = repo
        self._tree = tree
        self._agent_pid = agent_pid
        self._probe: TreeProbe | None = None

    @classmethod
    def for_hook(
        cls, payload: HookPayload, agent: str, environ: Mapping[str, str] | None = None
    ) -> HookContext:
        """The real world of ``payload``: the OS environment, the repository
        around its ``cwd`` and that repository's state directory."""
        from lanes.governor.state.tree import find_repo

        variables = os.environ if environ is None else environ
        cwd = payload.cwd or os.getcwd()
        repo = find_repo(cwd)
        override = variables.get("LANES_STATE_DIR", "").strip()
        if override:
            directory: str | None = os.path.abspath(os.path.join(cwd, override))
        else:
            directory = None if repo is None else os.path.join(repo.common_dir, "lanes")
        return cls(
            None,  # the OS's, made on first use: git starts before it is needed
            cwd=cwd,
            agent=agent,
            environ=variables,
            state=None if directory is None else StatePaths(directory),
            repo=repo,
        )

    @classmethod
    def modelled(
        cls,
        env: Environment,
        *,
        state_dir: str | None,
        settings: ConfigLike,
        tree: TreeState | None,
        agent: str,
        agent_pid: int,
        environ: Mapping[str, str] | None = None,
    ) -> HookContext:
        """A world whose tree, settings and agent are given, not looked up (no git)."""
        return cls(
            env,
            cwd=str(settings.root),
            agent=agent,
            environ={} if environ is None else environ,
            state=None if state_dir is None else StatePaths(state_dir),
            settings=settings,
            repo=None,
            tree=tree,
            agent_pid=agent_pid,
        )

    @property
    def env(self) -> Environment:
        """The Environment seam (clock, files, processes): the OS's unless given."""
        if self._env is None:
            from lanes.governor.state.env import OSEnvironment

            self._env = OSEnvironment()
        return self._env

    @property
    def settings(self) -> ConfigLike:
        """``[tool.lanes]`` governing ``cwd`` (the cached, validated view), loaded once."""
        if self._settings is None:
            from lanes.governor.config_cache import gate_config

            self._settings = gate_config(self.cwd)
        return self._settings

    @property
    def repo(self) -> Repo | None:
        """The work tree around ``cwd``; None outside git. Found once."""
        if isinstance(self._repo, _Unset):
            from lanes.governor.state.tree import find_repo

            self._repo = find_repo(self.cwd)
        return self._repo

    def start_tree(self) -> None:
        """Start git on the tree state now, so it runs while the hook classifies
        the command and reads the config; :attr:`tree` collects it. A call that
        turns out not to need it ends with :meth:`close`, which stops git."""
        if not isinstance(self._tree, _Unset) or self._probe is not None:
            return
        repo = self.repo
        if repo is None:
            return
        from lanes.governor.state.tree import lanekit_writes, start_tree_state

        state = None if self.state is None else self.state.directory
        try:
            settings = self.settings
            exclude = lanekit_writes(state, settings.root, settings.envelope_dir)
        except Exception as exc:  # noqa: BLE001  # fail open: the tree without the envelope dir left out
            from lanes.governor.state.debug import debug_log

            debug_log("tree-exclusions", error=f"{type(exc).__name__}: {exc}")
            exclude = [] if state is None else [state]
        self._probe = start_tree_state(repo.top, exclude=exclude, repo=repo)

    @property
    def tree(self) -> TreeState | None:
        """This exact tree (HEAD + dirty digest); None outside git or when git
        fails. Computed on first use (or collected from :meth:`start_tree`)
        and never again in this call."""
        if isinstance(self._tree, _Unset):
            self.start_tree()
            probe, self._probe = self._probe, None
            timeout = self.settings.governor.tree_timeout
            self._tree = None if probe is None else probe.result(timeout)
        return self._tree

    def close(self) -> None:
        """End the call: stop git if a started tree state was never needed."""
        probe, self._probe = self._probe, None
        if probe is not None:
            probe.cancel()

    @property
    def agent_pid(self) -> int:
        """The agent process that owns a run lock taken in this call (read on first use)."""
        if self._agent_pid is None:
            from lanes.governor.state.owner import agent_pid

            self._agent_pid = agent_pid(self.environ)
        return self._agent_pid

    def prepare_state(self) -> None:
        """Create the state directory if missing; when it cannot be created the
        call goes on without state (nothing deduplicated, locked or recorded)."""
        if self.state is None:
            return
        try:
            os.makedirs(self.state.directory, exist_ok=True)
        except OSError as exc:
            from lanes.governor.state.debug import debug_log

            debug_log("state-dir", error=str(exc))
            self.state = None

    def __repr__(self) -> str:
        return f"HookContext(cwd={self.cwd!r}, agent={self.agent!r}, state={self.state!r})"
