"""Policy: the decisions a hook call makes (sweep gate, dedup, lock, record, economy).

Empty on purpose: see ``lanes/governor/__init__.py``.
"""
