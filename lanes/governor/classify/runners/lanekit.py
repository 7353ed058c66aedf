"""Runner rule for lanekit's own test-running command: ``lanes affected --run``.

It runs the tests a diff needs — a selection, never the whole suite — so it is
a *filtered* run: the economy does not count it as full, and no suite PASS is
recorded for it (only a whole-suite run vouches for a suite). ``lanes slow
run`` runs the whole suite and is one of the default ``test_commands`` forms
instead; every other ``lanes`` command runs no tests.
"""

from __future__ import annotations

from lanes.governor.classify.runners.argscan import Call, Match

__all__ = ["lanes_rule"]


def lanes_rule(call: Call) -> Match | None:
    argv = call.argv
    if argv[1:2] != ["affected"] or "--run" not in argv[2:]:
        return None
    match = Match("lanes")
    match.name(["affected", "--run"], "affected")
    return match
