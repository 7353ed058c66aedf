"""The economy store's rows and bounds, read and written directly (no hook in between).

- A session row is read back exactly as written; a row that is not one
  (no session id, counters that are not whole numbers >= 0, times that are
  not numbers) makes the store unreadable rather than counted from a guess.
- Pruning keeps every live session: a session is live up to and including
  ``SESSION_IDLE_SECONDS`` after it was last seen; past ``MAX_SESSIONS`` the
  most recently seen stay, each project's most recent last, and the file
  lists projects in a stable order.
- Another version's store is never clobbered; a damaged one of ours is set aside.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lanes.governor.state import economy_store as store

NOW = 1_800_000_000.0


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path


def _seen(counters: store.SessionCounters) -> None:
    del counters


def _document() -> dict[str, object]:
    loaded = json.loads(Path(store.store_path()).read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _sessions(root: str) -> list[str]:
    projects = _document()["projects"]
    assert isinstance(projects, dict)
    return [row["session"] for row in projects[root]["sessions"]]


def test_a_session_row_reads_back_as_written() -> None:
    row = {
        "session": "s1",
        "full_runs": 3,
        "filtered_runs": 4,
        "fires": 1,
        "first_fire": 1_764_460_000.5,
        "last_seen": 1_764_460_100.25,
    }
    counters = store.SessionCounters.from_dict(row)
    assert counters.to_dict() == row
    assert repr(counters) == f"SessionCounters({row!r})"


def test_a_row_with_only_a_session_id_starts_at_zero() -> None:
    assert store.SessionCounters.from_dict({"session": "s1"}).to_dict() == {
        "session": "s1",
        "full_runs": 0,
        "filtered_runs": 0,
        "fires": 0,
        "first_fire": None,
        "last_seen": 0.0,
    }


def test_whole_number_times_read_as_seconds() -> None:
    counters = store.SessionCounters.from_dict({"session": "s", "first_fire": 5, "last_seen": 7})
    assert (counters.first_fire, counters.last_seen) == (5.0, 7.0)
    assert isinstance(counters.first_fire, float)
    assert isinstance(counters.last_seen, float)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (["s1"], "session row must be an object with a session id, got ['s1']"),
        ({"session": 7}, "session row must be an object with a session id, got {'session': 7}"),
        ({"full_runs": 1}, "session row must be an object with a session id, got {'full_runs': 1}"),
        (
            {"session": "s", "full_runs": -1},
            "session row counters must be integers >= 0, got {'session': 's', 'full_runs': -1}",
        ),
        (
            {"session": "s", "filtered_runs": True},
            "session row counters must be integers >= 0, got {'session': 's', 'filtered_runs': True}",
        ),
        (
            {"session": "s", "fires": 1.5},
            "session row counters must be integers >= 0, got {'session': 's', 'fires': 1.5}",
        ),
        ({"session": "s", "first_fire": "soon"}, "first_fire must be a number or null, got 'soon'"),
        ({"session": "s", "last_seen": None}, "last_seen must be a number, got None"),
    ],
)
def test_a_row_that_is_not_one_is_refused_by_name(row: object, message: str) -> None:
    with pytest.raises(store.Unreadable) as caught:
        store.SessionCounters.from_dict(row)
    assert str(caught.value) == message
    assert caught.value.corrupt  # ours, damaged: set aside so counting can start again


def test_a_session_idle_for_exactly_the_limit_is_still_live(xdg: Path) -> None:
    del xdg
    store.update_session("/p", "old", NOW, _seen)
    store.update_session("/p", "new", NOW + store.SESSION_IDLE_SECONDS, _seen)
    assert _sessions("/p") == ["old", "new"]
    store.update_session("/p", "new", NOW + store.SESSION_IDLE_SECONDS + 1, _seen)
    assert _sessions("/p") == ["new"]


def test_past_the_session_bound_the_most_recent_sessions_stay(xdg: Path) -> None:
    del xdg
    for index in range(store.MAX_SESSIONS + 3):
        store.update_session("/p", f"s{index}", NOW + index, _seen)
    kept = _sessions("/p")
    assert kept == [f"s{index}" for index in range(3, store.MAX_SESSIONS + 3)]


def test_a_session_seen_again_moves_to_the_end(xdg: Path) -> None:
    del xdg
    for index, session in enumerate(["a", "b", "c", "a"]):
        store.update_session("/p", session, NOW + index, _seen)
    assert _sessions("/p") == ["b", "c", "a"]
    counters = store.read_session("/p", "a")
    assert counters is not None
    assert counters.last_seen == NOW + 3


def test_projects_are_written_in_a_stable_order(xdg: Path) -> None:
    del xdg
    for index, root in enumerate(["/c", "/a", "/b"]):
        store.update_session(root, "s", NOW + index, _seen)
    document = _document()
    assert (document["format"], document["version"]) == ("lanekit.economy", 1)
    projects = document["projects"]
    assert isinstance(projects, dict)
    assert list(projects) == ["/a", "/b", "/c"]


def test_a_session_of_another_project_is_not_this_one(xdg: Path) -> None:
    del xdg
    store.update_session("/a", "s", NOW, lambda c: setattr(c, "full_runs", 2))
    assert store.read_session("/b", "s") is None
    assert store.read_session("/a", "other") is None
    counters = store.read_session("/a", "s")
    assert counters is not None
    assert counters.full_runs == 2


def test_no_store_yet_reads_as_no_session(xdg: Path) -> None:
    del xdg
    assert store.read_session("/a", "s") is None
    assert not Path(store.store_path()).exists()


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"format": "other"}, "is not a version 1 economy store"),
        ({"format": "lanekit.economy", "version": 1}, "is not a version 1 economy store"),
        (
            {"format": "lanekit.economy", "version": 1, "projects": {"/p": {}}},
            "project '/p' has no sessions list",
        ),
        (
            {"format": "lanekit.economy", "version": 1, "projects": {"/p": []}},
            "project '/p' has no sessions list",
        ),
    ],
)
def test_a_damaged_store_is_set_aside_with_the_reason(
    xdg: Path, document: dict[str, object], message: str
) -> None:
    path = Path(store.store_path())
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(store.Unreadable, match=message) as caught:
        store.update_session("/p", "s", NOW, _seen)
    assert caught.value.corrupt
    assert not path.exists()
    assert json.loads((xdg / "lanekit" / "economy.json.corrupt").read_text()) == document


def test_another_versions_store_is_left_as_it_is(xdg: Path) -> None:
    del xdg
    path = Path(store.store_path())
    path.parent.mkdir(parents=True)
    path.write_text('{"format": "lanekit.economy", "version": 2}', encoding="utf-8")
    with pytest.raises(store.Unreadable, match="is economy store version 2, not 1") as caught:
        store.update_session("/p", "s", NOW, _seen)
    assert caught.value.corrupt is False
    assert path.read_text(encoding="utf-8") == '{"format": "lanekit.economy", "version": 2}'


def test_a_new_session_starts_from_zero_and_is_stamped_now(xdg: Path) -> None:
    del xdg
    counters = store.update_session("/p", "s", NOW, lambda c: setattr(c, "full_runs", 1))
    assert counters.to_dict() == {
        "session": "s",
        "full_runs": 1,
        "filtered_runs": 0,
        "fires": 0,
        "first_fire": None,
        "last_seen": NOW,
    }


def test_updates_hold_the_sidecar_lock_every_hook_shares(xdg: Path) -> None:
    store.update_session("/p", "s", NOW, _seen)
    assert sorted(p.name for p in (xdg / "lanekit").iterdir()) == [
        "economy.json",
        "economy.json.lock",
    ]


def test_a_store_that_is_not_json_is_set_aside_naming_the_file(xdg: Path) -> None:
    path = Path(store.store_path())
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(store.Unreadable, match=str(path)) as caught:
        store.update_session("/p", "s", NOW, _seen)
    assert caught.value.corrupt
    assert (xdg / "lanekit" / "economy.json.corrupt").read_text() == "{not json"


@pytest.mark.parametrize("kind", ["directory", "too large"])
def test_a_store_that_cannot_be_read_is_left_alone_with_the_reason(xdg: Path, kind: str) -> None:
    path = Path(store.store_path())
    path.parent.mkdir(parents=True)
    if kind == "directory":
        path.mkdir()
    else:  # past the store's own cap, long before a hook would parse it
        path.write_bytes(b" " * (store.MAX_STORE_BYTES + 1))
    with pytest.raises(store.Unreadable, match=f"^cannot read {path}: ") as caught:
        store.update_session("/p", "s", NOW, _seen)
    assert caught.value.corrupt is False
    assert path.exists()
    assert not (xdg / "lanekit" / "economy.json.corrupt").exists()
