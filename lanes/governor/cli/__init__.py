"""The ``lanes governor`` and ``lanes classify`` commands (off the hook's path).

Empty on purpose: see ``lanes/governor/__init__.py``.
"""
