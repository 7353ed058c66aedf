"""The runtime governor: a stdlib-only hook run around every agent shell command.

Layers, in the order one hook call flows through them (docs/architecture.md):
``screen`` (the bytes-only pre-screen) → ``payload`` → ``classify`` →
``context`` (+ ``settings``) → ``policy`` (gate, record, economy) → answer,
with ``state`` (ledger, lock, tree, the Environment seam) underneath and
``cli`` (install, status, classify) beside. tests/foundation/test_allowed_imports.py
holds the table of what each layer may import.

**Why so many imports sit inside functions.** The agent runs ``lanes hook``
before and after every shell command, and that process should cost about one
interpreter start. Every module a call does not need is therefore imported
where it is needed, not at the top: ``json`` (with ``re`` behind it) only by
writers, ``hashlib`` only for a dirty tree, ``lanes.config`` only on a config
cache miss, ``typing`` never at run time (``TYPE_CHECKING = False`` stands in
for ``typing.TYPE_CHECKING``: type checkers honour any name spelled so). This
is the rationale, written once: ruff's PLC0415 (import outside top level) is
switched off for this package and the CLI modules in pyproject.toml instead of
a ``noqa`` per line. The import-budget test (tests/foundation/test_import_budget.py)
and the bench lane's ``hook-latency`` and ``gate-latency`` goals measure it.

The ``__init__`` files of the package and its layers hold no code: Python
runs each of them on the way to ``lanes.governor.hook``.
"""
