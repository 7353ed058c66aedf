"""The runtime governor: a stdlib-only hook run around every agent shell command.

This package's ``__init__`` imports nothing on purpose: the hook imports
``lanes.governor.hook`` on every shell command an agent runs, and Python
executes this file first.
"""
