"""The contention-retry policy: timeouts only, enumerated, one retry.

Under load some tests legitimately time out while waiting on a process they
spawned. ``lanes retry run`` allows exactly one re-run of the failed tests,
and only when every failure is a timeout that pytest-timeout itself reported
(never a match on error text) in a file listed in
``baselines/contention-retry.json``. Anything else blocks the retry and says
which blocker.

Modules: :mod:`~lanes.retry.entries` (the list and ``lanes retry check``),
:mod:`~lanes.retry.plugin` (the pytest plugin that records an attempt),
:mod:`~lanes.retry.policy` (the pure decision), :mod:`~lanes.retry.lane`
(``lanes retry run`` and its envelope), :mod:`~lanes.retry.selfcheck`
(planted suites the policy must judge right), :mod:`~lanes.retry._cli`.
"""

from __future__ import annotations
