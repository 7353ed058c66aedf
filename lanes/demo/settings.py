"""``[tool.lanes.demo]``: a made-up lane's section (scratch)."""

from __future__ import annotations

from lanes.settings_rows import Int, Section


class DemoConfig(Section):
    TABLE = "tool.lanes.demo"

    rounds = Int(3, minimum=1, doc="rounds per run")
