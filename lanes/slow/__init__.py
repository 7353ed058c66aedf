"""The slow-test ratchet: per-tier duration budgets for a pytest suite, and a pin list
that may only shrink.

Modules: :mod:`~lanes.slow.plugin` (the pytest entry point, inert until
enabled), :mod:`~lanes.slow.session` (the enabled plugin's hooks),
:mod:`~lanes.slow.stopwatch` (timing tests where they run),
:mod:`~lanes.slow.tiers` (which budget a test belongs to),
:mod:`~lanes.slow.verdicts` (the pure judgement), :mod:`~lanes.slow.tier_figures`
(each tier's figures, the tighten advice), :mod:`~lanes.slow.pins`
(``baselines/slow-tests.json``), :mod:`~lanes.slow.report` (terminal and
envelope views), :mod:`~lanes.slow.run` (``lanes slow run``: the envelope),
:mod:`~lanes.slow.selfcheck` (proof the ratchet can fail),
:mod:`~lanes.slow.edit` (``pin``/``unpin``), :mod:`~lanes.slow.check` (``lanes
slow check``), :mod:`~lanes.slow.propose` (``lanes slow propose``: budgets from
a measured run) and :mod:`~lanes.slow.budget_text` (setting them in
pyproject.toml), :mod:`~lanes.slow._cli` (parsers).

Importing this package imports nothing from pytest: ``lanes slow`` commands
must stay cheap.
"""

from __future__ import annotations

# `pytest -p lanes.slow` on an interpreter where lanekit's entry point is not
# installed (a source checkout on PYTHONPATH) imports this package as the
# plugin; this line makes pytest load the real one. Where the entry point is
# installed, `-p lanes.slow` resolves to it by name and this is never read.
pytest_plugins = ["lanes.slow.plugin"]
