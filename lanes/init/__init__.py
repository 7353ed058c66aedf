"""``lanes init``: scaffold lanekit into a user's project, idempotently.

:mod:`lanes.init.detect` reads the project, :mod:`lanes.init.plan` computes
every file's proposed text (rendered from the jinja2 templates in
``templates/``), :mod:`lanes.init.run` prints or applies the plan.
"""

from __future__ import annotations

__all__: list[str] = []
