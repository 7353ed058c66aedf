"""lanekit: keep test suites honest and cheap.

The package root stays import-free on purpose: the governor hook imports
``lanes`` on every shell command an agent runs, so nothing here may pull in
more than a constant.
"""

from __future__ import annotations

# A literal, not importlib.metadata: reading distribution metadata costs
# several milliseconds on every hook call.
__version__ = "0.1.0"

__all__ = ["__version__"]
