"""``python -m lanes`` == ``lanes``."""

from __future__ import annotations

import sys

from lanes.cli import main

sys.exit(main())
