"""``[tool.lanes.timing]`` and the per-suite ``[tool.lanes.suites.<name>.timing]`` overrides.

::

    [tool.lanes.timing]
    repeat = 3              # runs per arm; absent = chosen from the first run's cost (lanes/timing/sizing.py)
    workers = 4             # the -n of the xdist comparison; absent = the CPU count; 0 = no comparison
    max_regression = 30     # percent: fail when median CPU time grows beyond this and the spread
    max_wall_regression = 50  # opt-in, percent: the same gate on median wall clock
    baseline = "baselines/timing.json"
    offenders = 5           # how many slowest tests, files and fixtures to keep

    [tool.lanes.suites.unit.timing]
    repeat = 1              # this suite takes minutes: one run is all it gets
    workers = 0

One row per setting (:mod:`lanes.settings_rows`); an absent optional key is
None, never a sentinel value. The per-suite overrides are part of the suite's
shape (:class:`lanes.governor.settings.SuiteTiming`).
"""

from __future__ import annotations

from typing import Final

from lanes.governor.settings import SuiteTiming
from lanes.settings_rows import Int, OptInt, OptNumber, OptStr, Section

__all__ = ["AUTO_REPEAT", "SuiteTiming", "TimingConfig"]

# The most runs per arm the lane chooses by itself (lanes.timing.sizing).
AUTO_REPEAT: Final = 3


class TimingConfig(Section):
    TABLE = "tool.lanes.timing"

    # fmt: off
    repeat = OptInt(minimum=1, doc=f"runs per arm; absent: as many as fit 40 s of runs after the first one's cost, 1 to {AUTO_REPEAT}")
    workers = OptInt(minimum=0, doc="the -n of the serial vs xdist comparison; absent: the CPU count; 0: no comparison")
    max_regression = OptNumber(minimum=0.0, doc="percent of median CPU time growth (beyond the spread) that fails the lane; absent: the delta table never fails it")
    max_wall_regression = OptNumber(minimum=0.0, doc="opt-in: percent of median wall-clock growth (beyond the spread) that fails the lane, for tests that newly wait (sleep, I/O) without CPU; absent: wall clock never fails it")
    baseline = OptStr(doc="the timing baseline file; absent: <baseline_dir>/timing.json")
    offenders = Int(5, minimum=1, doc="how many slowest tests, files and fixtures to keep")
    # fmt: on
