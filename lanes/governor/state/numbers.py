"""Reading numbers out of JSON state files someone else wrote."""

from __future__ import annotations

import math

__all__ = ["finite_float"]


def finite_float(value: object) -> float | None:
    """``value`` as a finite float, or None when it is not one.

    JSON integers are unbounded: ``"ts": 1000…0`` (400 digits) parses to an int
    that ``float()`` and ``math.isfinite()`` reject with ``OverflowError``, not
    a ValueError — found by the fuzz lane, and one such entry used to cost the
    hook every suite's ledger result. ``True`` is an int subclass, never a time.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None
