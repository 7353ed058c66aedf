"""Runner rules per ecosystem: which argv runs tests, full or filtered.

Empty on purpose: see ``lanes/governor/__init__.py``.
"""
