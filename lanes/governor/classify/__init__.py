"""Classification: shell text -> the test runs a command makes (no I/O beyond config files).

Empty on purpose: see ``lanes/governor/__init__.py``.
"""
