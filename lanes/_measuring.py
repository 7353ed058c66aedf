"""The environment of a pytest run that a lane makes to measure the suite.

Under an agent, the governor's pytest plugin stops a whole-suite run that
already passed on this tree (dedup, exit 7). A lane's run is not an agent
re-verifying a green tree: the timing lane runs the suite once per repeat and
arm, the slow lane right after the tests session may have recorded a PASS, and
each must measure. So a lane's child runs carry ``LANES_TEST_FORCE=1`` — the
documented way to re-run a fresh suite. The sweep gate still applies: an agent
that starts a lane over the whole suite approves it as it approves any sweep
(``LANES_FULL_SWEEP_OK=1`` with a reason), and the children inherit that.
"""

from __future__ import annotations

import os

__all__ = ["measuring_environment"]


def measuring_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) for a lane's measuring pytest run."""
    env = dict(os.environ if base is None else base)
    env["LANES_TEST_FORCE"] = "1"
    return env
