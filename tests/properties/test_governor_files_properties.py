"""The ledger's freshness rule and the ledger/lock files' round trips, over generated records.

"Any text is read or rejected with a typed error" for these readers is the fuzz
lane's job (targets ``ledger`` and ``lock``, same strategies, 2,000 cases).
"""

from __future__ import annotations

import json

from hypothesis import assume, given
from hypothesis import strategies as st

from lanes.governor.state.ledger import LedgerEntry, TreeState, freshness, parse_ledger
from lanes.governor.state.lock import LockRecord, parse_lock

_hex40 = st.text("0123456789abcdef", min_size=40, max_size=40)
_digests = st.one_of(st.just("clean"), _hex40)
_trees = st.builds(TreeState, git_head=_hex40, dirty_digest=_digests)
_times = st.floats(min_value=0, max_value=4e9)
_ages = st.floats(min_value=1, max_value=10**6)


def _pass_on(tree: TreeState, ts: float) -> LedgerEntry:
    return LedgerEntry(status="PASS", ts=ts, git_head=tree.git_head, dirty_digest=tree.dirty_digest)


@given(_trees, _trees, _times, _ages)
def test_a_pass_is_never_fresh_across_tree_states(
    recorded: TreeState, now_tree: TreeState, ts: float, max_age: float
) -> None:
    assume(recorded != now_tree)
    fresh, reason = freshness(_pass_on(recorded, ts), now_tree, ts, max_age)
    assert not fresh
    assert reason in ("HEAD moved", "tree changed")


@given(_trees, _hex40, _times, _ages)
def test_moving_head_makes_a_pass_stale(
    tree: TreeState, new_head: str, ts: float, max_age: float
) -> None:
    assume(new_head != tree.git_head)
    moved = TreeState(new_head, tree.dirty_digest)
    assert freshness(_pass_on(tree, ts), moved, ts, max_age) == (False, "HEAD moved")


@given(_trees, _digests, _times, _ages)
def test_changing_the_digest_makes_a_pass_stale(
    tree: TreeState, digest: str, ts: float, max_age: float
) -> None:
    assume(digest != tree.dirty_digest)
    edited = TreeState(tree.git_head, digest)
    assert freshness(_pass_on(tree, ts), edited, ts, max_age) == (False, "tree changed")


@given(_trees, st.integers(0, 4 * 10**9), st.integers(1, 10**6), st.data())
def test_a_pass_on_this_tree_is_fresh_exactly_while_young(
    tree: TreeState, ts: int, max_age: int, data: st.DataObject
) -> None:
    # Whole seconds: float rounding must not decide which side of max_age we are on.
    entry = _pass_on(tree, float(ts))
    age = data.draw(st.integers(0, max_age), label="age")
    assert freshness(entry, tree, float(ts + age), max_age) == (True, "fresh")
    assert freshness(entry, tree, float(ts + max_age + 1), max_age) == (False, "too old")


_entries = st.builds(
    LedgerEntry,
    status=st.sampled_from(("PASS", "FAIL")),
    ts=_times,
    git_head=st.none() | _hex40,
    dirty_digest=st.none() | _digests,
    agent=st.sampled_from(("claude", "codex", "")),
    session_tail=st.text(max_size=8),
    duration_ms=st.none() | st.integers(0, 10**9),
)


@given(st.dictionaries(st.text(max_size=10), _entries, max_size=4))
def test_ledger_file_round_trip(entries: dict[str, LedgerEntry]) -> None:
    text = json.dumps({suite: entry.to_dict() for suite, entry in entries.items()})
    assert parse_ledger(text) == entries


_records = st.builds(
    LockRecord,
    suite=st.text(max_size=10),
    agent=st.text(max_size=8),
    session_tail=st.text(max_size=8),
    agent_pid=st.integers(0, 2**22),
    agent_start=st.text(max_size=20),
    boot_id=st.text(max_size=36),
    host=st.text(max_size=20),
    started_ts=_times,
    token=st.text(max_size=32),
    command=st.text(max_size=60),
)


@given(_records)
def test_lock_record_round_trip(record: LockRecord) -> None:
    assert parse_lock(record.serialise()) == record
