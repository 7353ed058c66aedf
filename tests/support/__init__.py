"""Helpers shared by lanekit's own test packages, imported by package path
(``from tests.support.git import git``) so the suite runs under pytest's
``--import-mode=importlib``."""
