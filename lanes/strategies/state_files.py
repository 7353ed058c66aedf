"""Hostile filesystem objects where the governor keeps its state.

A "plant" is what an attacker, a crash or a confused tool leaves at a state
or cache path: a FIFO (which once hung every hook), a directory, a symlink
to a device or to a FIFO, a sparse file past every size cap, a document
nested thousands deep, or a small JSON text. The ``state-files`` fuzz target
(:func:`lanes.fuzz.state_adapters.read_planted_state`) plants one and calls
the real reader: it must answer (fail open, or its typed refusal) within the
case budget, whatever the path holds.
"""

from __future__ import annotations

from hypothesis import strategies as st

from lanes.fuzz.state_adapters import KINDS, STATE_FILES, Plant

__all__ = ["KINDS", "STATE_FILES", "Plant", "planted_state_files"]


def planted_state_files() -> st.SearchStrategy[Plant]:
    """One hostile object at one state path."""
    return st.tuples(
        st.sampled_from(STATE_FILES),
        st.sampled_from(KINDS),
        st.integers(min_value=1, max_value=20_000),
    )
