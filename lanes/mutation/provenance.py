"""What a score depends on besides the tests: when any of it changes, scores are not comparable.

A score measured under another mutmut (other operators), another Python
(other mutants of f-strings, match...), another registry entry or mutmut
configuration, or on other source, measures different mutants. Comparing it
with the baseline would call that difference a regression; the lane calls it
*drift* instead: reported, never failing, and the module's graduation count
starts again.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any, Final

from lanes import __version__
from lanes.config import fingerprint

if TYPE_CHECKING:
    from collections.abc import Mapping

    from lanes.mutation.settings import MutationModule
    from lanes.payloads.mutation import MutationDrift, MutationProvenance

__all__ = ["FIELDS", "Provenance", "drift", "mutmut_version"]

FIELDS: Final = (
    "mutmut",
    "lanekit",
    "python",
    "registry_hash",
    "mutmut_config_hash",
    "source_digest",
)


def mutmut_version() -> str | None:
    """The installed mutmut's version, ``None`` when it is not installed."""
    try:
        return metadata.version("mutmut")
    except metadata.PackageNotFoundError:
        return None


def python_minor() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


@dataclass(frozen=True)
class Provenance:
    mutmut: str
    lanekit: str
    python: str
    registry_hash: str
    mutmut_config_hash: str
    source_digest: str

    @classmethod
    def measure(
        cls,
        module: MutationModule,
        *,
        mutmut: str,
        mutmut_settings: Mapping[str, Any],
        source_digest: str,
    ) -> Provenance:
        return cls(
            mutmut=mutmut,
            lanekit=__version__,
            python=python_minor(),
            registry_hash=fingerprint(module.to_dict()),
            mutmut_config_hash=fingerprint(dict(mutmut_settings)),
            source_digest=source_digest,
        )

    def to_dict(self) -> MutationProvenance:
        return {
            "mutmut": self.mutmut,
            "lanekit": self.lanekit,
            "python": self.python,
            "registry_hash": self.registry_hash,
            "mutmut_config_hash": self.mutmut_config_hash,
            "source_digest": self.source_digest,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Provenance:
        return cls(**{name: str(raw.get(name, "")) for name in FIELDS})


def drift(baseline: Provenance, current: Provenance) -> list[MutationDrift]:
    """The fields that differ, each with both values (empty: the scores are comparable)."""
    return [
        {"field": name, "baseline": getattr(baseline, name), "current": getattr(current, name)}
        for name in FIELDS
        if getattr(baseline, name) != getattr(current, name)
    ]
