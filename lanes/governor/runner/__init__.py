"""The governor inside the runner: a pytest plugin (entry point ``lanes.governor``).

The hook judges a shell string before anything runs; for pytest the truth is
one step later. :mod:`~lanes.governor.runner.plugin` (the entry point, cheap
and inert outside an agent's run) registers :mod:`~lanes.governor.runner.session`,
which judges what was collected (:mod:`~lanes.governor.runner.scope`) — the
sweep gate, the dedup, the kernel run lock — and records the real outcome.
Its stops exit with the statuses of :mod:`~lanes.governor.runner.exits`.
"""
