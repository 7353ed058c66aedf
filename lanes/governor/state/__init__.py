"""State: the world the policy reads and writes (files, git, processes) behind one seam.

Empty on purpose: see ``lanes/governor/__init__.py``.
"""
