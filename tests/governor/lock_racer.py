"""A real process racing for the run lock (driven by test_lock.py).

argv: STATE_DIR NAME OTHER ROUNDS. For each round r, this process announces
itself (``ready-r-NAME``), waits until OTHER has announced too, then calls
``acquire`` on that round's lock: both processes enter ``acquire`` together,
round after round. It prints one line per round: ``r 1`` (acquired) or ``r 0``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from lanes.governor._env import OSEnvironment
from lanes.governor.lock import acquire


def main() -> int:
    state, name, other, rounds = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
    env = OSEnvironment()
    out = []
    for r in range(rounds):
        (state / f"ready-{r}-{name}").touch()
        deadline = time.monotonic() + 10
        while not (state / f"ready-{r}-{other}").exists():
            if time.monotonic() > deadline:
                return 3
            time.sleep(0)
        lock = str(state / f"round-{r}.lock")
        result = acquire(
            env,
            lock,
            lock + ".guard",
            suite="unit",
            agent=name,
            session_tail=f"session-{name}",
            agent_pid=os.getpid(),
            command="pytest tests/unit",
        )
        out.append(f"{r} {int(result.acquired)}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
