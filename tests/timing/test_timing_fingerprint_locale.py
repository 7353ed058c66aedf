"""One host, one fingerprint: the CPU model reads the same under any locale.

A CI job in the C locale and a developer's UTF-8 shell on the same machine
must record comparable baselines: ``cpuinfo`` is read as UTF-8, never in the
locale's encoding, so a model name with a non-ASCII character (``®``) is the
same string in both. A real file; the locale switched in this process and
restored.
"""

from __future__ import annotations

import locale
from typing import TYPE_CHECKING

from lanes.timing.baseline import _cpu_model

if TYPE_CHECKING:
    from pathlib import Path


def test_a_non_ascii_cpu_model_reads_the_same_in_the_c_locale(tmp_path: Path) -> None:
    path = tmp_path / "cpuinfo"
    path.write_bytes("processor\t: 0\nmodel name\t: Intel® Xeon® Gold\n".encode())
    assert _cpu_model(path) == "Intel® Xeon® Gold"
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")  # ASCII as the locale's encoding
    try:
        assert locale.getpreferredencoding(False) != "UTF-8"
        assert _cpu_model(path) == "Intel® Xeon® Gold"
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
