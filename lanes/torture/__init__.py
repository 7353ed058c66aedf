"""The torture lane: seeded, replayable concurrency torture of the run lock and ledger.

Entry point ``lanes torture`` (:mod:`lanes.torture.lane`). The harness drives
the governor's real PreToolUse/PostToolUse code through a modelled world
(:mod:`lanes.torture.harness` documents the real-vs-modelled boundary);
:mod:`lanes.torture.real` is the un-seeded real-process guard.
"""
