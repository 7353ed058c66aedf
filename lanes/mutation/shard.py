"""Which shard a mutant belongs to: a stable hash of its key, so every machine agrees.

Shard ``I/N`` holds the mutants whose key hashes to ``I - 1`` modulo ``N``.
The hash is SHA-256 (not Python's ``hash()``, which is salted per process),
so shard 2/3 is the same mutants on a laptop and on every CI runner, and a
mutant keeps its shard while unrelated code changes around it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from lanes.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["MAX_SHARDS", "Shard", "parse_shard", "shard_of"]

_SPEC: Final = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
# GitHub Actions runs at most 256 jobs per matrix; a bound well past it keeps
# a merge from enumerating 10^11 shard indexes named by a hostile artifact.
MAX_SHARDS: Final = 1024


@dataclass(frozen=True, order=True)
class Shard:
    index: int  # 1-based, as written on the command line and in the matrix
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, key: str) -> bool:
        return shard_of(key, self.count) == self.index

    def select(self, keys: Iterable[str]) -> list[str]:
        return [key for key in keys if self.holds(key)]


WHOLE: Final = Shard(1, 1)


def shard_of(key: str, count: int) -> int:
    """The 1-based shard of ``key`` among ``count`` shards."""
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse_shard(text: str, *, what: str = "--shard") -> Shard:
    """``"2/3"`` -> ``Shard(2, 3)``; anything else is a UsageError naming ``what`` and the value."""
    match = _SPEC.match(text)
    if match is None:
        msg = f"{what} must look like I/N (e.g. 2/3), got {text!r}"
        raise UsageError(msg, hint="pass --shard I/N with 1 <= I <= N, e.g. --shard 1/2")
    index, count = int(match.group(1)), int(match.group(2))
    if count > MAX_SHARDS:
        msg = f"{what} {text!r} has {count} shards, more than the {MAX_SHARDS} lanekit allows"
        raise UsageError(msg, hint=f"split a module into at most {MAX_SHARDS} shards")
    if count < 1 or not 1 <= index <= count:
        msg = f"{what} {text!r} is out of range: I must be between 1 and N, and N at least 1"
        raise UsageError(msg, hint=f"pass --shard I/{max(count, 1)} with 1 <= I <= {max(count, 1)}")
    return Shard(index, count)
