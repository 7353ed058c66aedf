"""The torture payload's closed sets and shapes are the lane's own."""

from __future__ import annotations

import typing

from lanes.payloads.torture import TortureAgentReport, TortureScheduler
from lanes.torture.agents import SimReport
from lanes.torture.settings import SCHEDULERS


def test_the_schedulers_of_the_payload_are_the_lanes() -> None:
    # lanes.torture.lane writes the configured scheduler where the type says
    # TortureScheduler (a cast: [tool.lanes.torture] admits only SCHEDULERS).
    assert typing.get_args(TortureScheduler) == SCHEDULERS


def test_an_agent_report_has_the_simulations_figures_and_its_seed() -> None:
    # The envelope's row is built field by field in lanes.torture.lane; the
    # bench's economy figures come from SimReport.to_dict: one set of names.
    fields = set(typing.get_type_hints(TortureAgentReport))
    assert fields == {"seed", *SimReport(agents=2, tasks=3).to_dict()}
