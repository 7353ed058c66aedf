"""The baseline timing lane (``lanes timing``): what each suite costs and how that moved.

One concept per module, in the order a run uses them:
:mod:`~lanes.timing.settings` (``[tool.lanes.timing]`` and the per-suite
overrides), :mod:`~lanes.timing.suite` (the runs of one suite),
:mod:`~lanes.timing.measure` (one run: wall, CPU, peak memory),
:mod:`~lanes.timing.reaper` (the subreaper that accounts for the whole process
tree), :mod:`~lanes.timing.probe` (the pytest plugin each measured process
loads), :mod:`~lanes.timing.figures` (repeats -> median and spread, offenders),
:mod:`~lanes.timing.xdist` (serial vs ``-n N``), :mod:`~lanes.timing.baseline`
(host fingerprint, record, Δ, the gate), :mod:`~lanes.timing.table` (the
one-row-per-suite table), :mod:`~lanes.timing.lane` (the lane on the driver)
and :mod:`~lanes.timing.selfcheck`.

Kept empty of imports: :mod:`lanes.config` imports the settings module, and
nothing else of the lane may ride along.
"""
