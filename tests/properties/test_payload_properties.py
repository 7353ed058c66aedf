"""The hook payload parser accepts or raises PayloadError with a hint — nothing else, ever."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from lanes.governor.payload import EVENTS, PayloadError, parse_payload
from lanes.strategies.documents import hook_payload_texts, hostile_text


@given(hook_payload_texts())
def test_any_payload_parses_or_raises_payload_error(raw: str | bytes) -> None:
    try:
        parse_payload(raw)
    except PayloadError as exc:
        rejection = exc
    else:
        return
    assert rejection.hint.strip()


@given(st.sampled_from(EVENTS), hostile_text(), hostile_text(max_size=20))
def test_a_shell_call_keeps_its_command_and_session(event: str, command: str, session: str) -> None:
    raw = json.dumps(
        {
            "hook_event_name": event,
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "session_id": session,
        }
    )
    payload = parse_payload(raw)
    assert (payload.event, payload.command, payload.session_id) == (event, command, session)
