"""The pre-screen: bytes-only checks that let almost every command skip the governor.

Empty on purpose: see ``lanes/governor/__init__.py``.
"""
