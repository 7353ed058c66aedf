"""Command-line overrides of ``[tool.lanes.slow]`` for experiments, without editing pyproject.

``--slow-budget SECONDS`` sets every tier's budget, ``--slow-budget
TIER=SECONDS`` one tier's (repeatable; the last word wins);
``--slow-fail-factor F`` the factor; ``--slow-confirm N`` the confirmation
samples. The same flags pass through ``lanes slow run -- ...``.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import TYPE_CHECKING

from lanes.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lanes.slow.settings import SlowConfig

__all__ = ["apply_overrides"]


def _seconds(flag: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        msg = f"{flag} expects a number of seconds > 0, got {text!r}"
        raise UsageError(msg, hint=f"e.g. {flag} 1.5 (every tier) or {flag} unit=1.5 (one tier)")
    return value


def apply_overrides(
    slow: SlowConfig,
    *,
    budgets: Sequence[str] | None,
    fail_factor: str | None,
    confirm: str | None,
) -> SlowConfig:
    """``slow`` with the command line's budgets, fail_factor and confirm applied."""
    tiers = dict(slow.tiers)
    for raw in budgets or ():
        name, sep, value = raw.rpartition("=")
        if not sep:
            seconds = _seconds("--slow-budget", value)
            tiers = {key: tier.replace(budget=seconds) for key, tier in tiers.items()}
            continue
        if name not in tiers:
            msg = f"--slow-budget {raw!r} names tier {name!r}, which is not configured"
            raise UsageError(msg, hint=f"use one of: {', '.join(tiers)}")
        tiers[name] = tiers[name].replace(budget=_seconds("--slow-budget", value))
    factor = slow.fail_factor
    if fail_factor is not None:
        try:
            factor = float(fail_factor)
        except ValueError:
            factor = math.nan
        if not math.isfinite(factor) or factor < 1:
            msg = f"--slow-fail-factor expects a number >= 1, got {fail_factor!r}"
            raise UsageError(msg, hint="e.g. --slow-fail-factor 3 (the band ends at 3 × budget)")
    samples = slow.confirm
    if confirm is not None:
        if not confirm.isdigit():
            msg = f"--slow-confirm expects a whole number >= 0, got {confirm!r}"
            raise UsageError(
                msg, hint="e.g. --slow-confirm 2, or --slow-confirm 0 to fail on one sample"
            )
        samples = int(confirm)
    return slow.replace(tiers=MappingProxyType(tiers), fail_factor=factor, confirm=samples)
