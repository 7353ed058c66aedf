"""The baseline timing lane (``lanes timing``): what each suite costs and how that moved.

Modules: :mod:`~lanes.timing.settings` (``[tool.lanes.timing]``),
:mod:`~lanes.timing.probe` (the pytest plugin each measured process loads),
:mod:`~lanes.timing.measure` (one run of a command: wall, CPU, peak memory),
:mod:`~lanes.timing.figures` (repeats -> median and spread, offenders),
:mod:`~lanes.timing.xdist` (serial vs ``-n N``), :mod:`~lanes.timing.baseline`
(host fingerprint, record, Δ), :mod:`~lanes.timing.lane` (the lane) and
:mod:`~lanes.timing.selfcheck`.

Kept empty of imports: :mod:`lanes.config` imports the settings module, and
nothing else of the lane may ride along.
"""
