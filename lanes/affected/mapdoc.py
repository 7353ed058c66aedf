"""The recorded map as a document: its shape, its versions, and its validation.

A map file is data from someone else (a CI artifact, ``--map FILE``): read
through :mod:`lanes._jsondoc` (size cap, nesting limit) and checked here field
by field, every index bounded by the list it points into, before anything
reads it. :mod:`lanes.affected.testmap` builds maps and answers questions of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NotRequired, TypedDict

from lanes.errors import UsageError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "MAP_FILE_NAME",
    "MAP_HINT",
    "MAP_KIND",
    "MAP_VERSION",
    "MAX_MAP_BYTES",
    "MAX_TEST_MS",
    "MapTest",
    "TestMapDocument",
    "validate_map",
]

MAP_KIND: Final = "lanes-affected-map"
# Its default place is the envelope directory (CI uploads it with the
# envelopes), where it is a document of its own, not a lane's envelope.
MAP_FILE_NAME: Final = "affected-map.json"
# 2: ``outside``, the code run outside every test (at import, collection).
# 3: ``collected``, what ran while pytest collected one file or directory only;
#    ``outside`` keeps the rest (the session's).
# 4: ``sites``, ``outside_sites``, ``site_imports`` and per-test ``sites``: the
#    computed imports that ran, and what each imported.
# 5: per-test ``unvouched_data``: a test that started a program that is not
#    Python is vouched for the project's code, not for its data files (before,
#    it was not vouched for at all).
# 6: per-test ``ms``: how long the test ran in the recording (a selection's
#    expected run time decides whether it runs under xdist).
# 7: per-test ``seeded`` and the map's ``hypothesis_seed``: a Hypothesis test
#    that drew its examples with a fixed seed is vouched for (before, no
#    Hypothesis test was); ``outside_callers``: what called each function run
#    in the session scope (3.12+; null: not recorded).
# 8: ``data_outside``: the files read outside every test, with the scope that
#    read them (before, a data file read while pytest collected a test module,
#    for its parametrize cases, was credited to no test, and a shared
#    fixture's reads to the first test that used it alone).
MAP_VERSION: Final = 8
# Read as before: everything it ran outside tests is the session's (selects as it did).
_UNSCOPED_VERSION: Final = 2
# Read as before: no computed import was watched (each keeps its whole net).
_UNWATCHED_VERSION: Final = 3
# Read as it is: its tests that started another program are unvouched whole.
_WHOLE_VOUCH_VERSION: Final = 4
# Read as it is: no test has a duration (parallelism goes by the file count).
_UNTIMED_VERSION: Final = 5
# Read as it is: its Hypothesis tests are unvouched, whatever seed they drew with.
_UNSEEDED_VERSION: Final = 6
# Read as it is: what it read outside tests is unknown (no data file is narrowed).
_UNREAD_OUTSIDE_VERSION: Final = 7
# A recorded duration above this (a day) is no test's: the map is malformed.
MAX_TEST_MS: Final = 86_400_000
MAX_MAP_BYTES: Final = 64 * 1024 * 1024
# A line number past this is no source file's.
MAX_LINE: Final = 10_000_000
# Hypothesis takes any string for a seed; a longer one is no recording's.
_MAX_SEED: Final = 200


# A call outside every test: the callee's node index; its caller: a node
# index, (file, line) of module-level code (a module or class body), or None:
# code that is not the project's (pytest calling a hook, a library); and the
# collection scope it ran in ("": the session's).
CallerEdge = tuple[int, int | tuple[str, int] | None, str]


class MapTest(TypedDict):
    """One recorded test: indices into the map's nodes and data files."""

    id: str
    file: str
    nodes: list[int]
    data: list[int]
    # Why the map does not vouch for this test (it failed, a process it spawned left no record).
    unvouched: NotRequired[str]
    # Why the map vouches for this test's code but not for the files it read:
    # a program it started that is not Python read what the recording cannot see.
    unvouched_data: NotRequired[str]
    # Indices into the map's sites: the computed imports this test executed.
    sites: NotRequired[list[int]]
    # Milliseconds the test ran in the recording (setup, call and teardown).
    ms: NotRequired[int]
    # A Hypothesis test that drew its examples with a fixed seed: vouched for.
    seeded: NotRequired[bool]


class TestMapDocument(TypedDict):
    """The map file's shape (``lanes affected --record`` writes it)."""

    kind: str
    version: int
    commit: str
    config_digest: str
    python: str
    # The --hypothesis-seed the recording ran with (None: none was given).
    hypothesis_seed: str | None
    nodes: list[tuple[str, str, int, int]]
    data: list[str]
    tests: list[MapTest]
    # Indices of the nodes executed outside every test in the session scope:
    # plugin configure, the first conftests, a module imported by more than one file.
    outside: list[int]
    # Collection scope -> indices of the nodes executed while pytest collected it:
    # a file (its tests), or a directory ending in "/" (every test under it).
    collected: dict[str, list[int]]
    # The computed-import call sites the recording watched: (file, line of the call).
    sites: list[tuple[str, int]]
    # Indices of the sites that executed outside every test.
    outside_sites: list[int]
    # Per site: the project files it imported (ran, or got loaded), or None: unknown.
    site_imports: list[list[str] | None]
    # Every call outside every test, by callee (None: not recorded, an older map).
    outside_callers: list[CallerEdge] | None
    # (file, scope) per data file opened outside every test: "" the session's
    # (a conftest or plugin at start-up), else the collection scope that read
    # it (None: not recorded, an older map).
    data_outside: list[tuple[str, str]] | None


MAP_HINT = "record a new map with `lanes affected --record`, or pass another with --map FILE"


def _bad(path: Path, what: str) -> UsageError:
    return UsageError(f"the affected map {str(path)!r} {what}", hint=MAP_HINT)


def _int_list(value: object, limit: int) -> list[int] | None:
    if not isinstance(value, list):
        return None
    if all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < limit for i in value):
        return list(value)
    return None


def validate_map(path: Path, document: dict[str, object]) -> TestMapDocument:
    if document.get("kind") != MAP_KIND:
        raise _bad(
            path,
            f"is not a lanes affected map: kind {document.get('kind')!r}, expected {MAP_KIND!r}",
        )
    version = document.get("version")
    readable = (
        _UNSCOPED_VERSION,
        _UNWATCHED_VERSION,
        _WHOLE_VOUCH_VERSION,
        _UNTIMED_VERSION,
        _UNSEEDED_VERSION,
        _UNREAD_OUTSIDE_VERSION,
        MAP_VERSION,
    )
    if version not in readable:
        raise _bad(
            path,
            f"has version {version!r}; this lanekit reads versions "
            f"{', '.join(map(str, readable[:-1]))} and {readable[-1]}",
        )
    for key in ("commit", "config_digest", "python"):
        if not isinstance(document.get(key), str):
            raise _bad(path, f"has no string {key!r} (got {document.get(key)!r})")
    seed = document.get("hypothesis_seed")
    if not (seed is None or (isinstance(seed, str) and len(seed) <= _MAX_SEED)):
        raise _bad(
            path, f"has a hypothesis_seed that is not null or a short string: {seed!r}"[:300]
        )
    raw_nodes = document.get("nodes")
    raw_data = document.get("data")
    raw_tests = document.get("tests")
    if (
        not isinstance(raw_nodes, list)
        or not isinstance(raw_data, list)
        or not isinstance(raw_tests, list)
    ):
        raise _bad(path, "must hold lists 'nodes', 'data' and 'tests'")
    nodes: list[tuple[str, str, int, int]] = []
    for node in raw_nodes:
        if not (
            isinstance(node, list)
            and len(node) == 4
            and isinstance(node[0], str)
            and isinstance(node[1], str)
            and all(isinstance(n, int) and not isinstance(n, bool) for n in node[2:])
        ):
            raise _bad(path, f"has a node that is not [file, qualname, start, end]: {node!r}"[:300])
        nodes.append((node[0], node[1], node[2], node[3]))
    if not all(isinstance(p, str) for p in raw_data):
        raise _bad(path, "has a data entry that is not a path string")
    outside = _int_list(document.get("outside"), len(nodes))
    if outside is None:
        raise _bad(path, "must hold 'outside', a list of node indices")
    # A version 2 map has no collection scopes: all it ran outside tests is the session's.
    raw_collected = document.get("collected", {} if version == _UNSCOPED_VERSION else None)
    if not isinstance(raw_collected, dict):
        raise _bad(path, "must hold 'collected', an object of collection scope -> node indices")
    collected: dict[str, list[int]] = {}
    for scope, indices in raw_collected.items():
        checked = _int_list(indices, len(nodes))
        if checked is None:
            raise _bad(path, f"has collection scope {scope[:200]!r} without a list of node indices")
        collected[scope] = checked
    sites, outside_sites, site_imports = _validate_sites(path, document, version)
    outside_callers = _validate_callers(path, document.get("outside_callers"), len(nodes))
    data_outside = (
        _validate_data_outside(path, document.get("data_outside"))
        if version == MAP_VERSION
        else None
    )
    tests = [
        _validate_test(path, test, len(nodes), len(raw_data), len(sites)) for test in raw_tests
    ]
    return {
        "kind": MAP_KIND,
        "version": MAP_VERSION,
        "commit": str(document["commit"]),
        "config_digest": str(document["config_digest"]),
        "python": str(document["python"]),
        "hypothesis_seed": seed,
        "nodes": nodes,
        "data": [str(p) for p in raw_data],
        "tests": tests,
        "outside": outside,
        "collected": collected,
        "sites": sites,
        "outside_sites": outside_sites,
        "site_imports": site_imports,
        "outside_callers": outside_callers,
        "data_outside": data_outside,
    }


def _validate_data_outside(path: Path, value: object) -> list[tuple[str, str]]:
    """``data_outside`` validated: [file, scope] string pairs."""
    if not isinstance(value, list) or not all(
        isinstance(pair, list)
        and len(pair) == 2  # [file, scope]
        and isinstance(pair[0], str)
        and isinstance(pair[1], str)
        for pair in value
    ):
        raise _bad(path, "has 'data_outside' that is not a list of [file, scope] strings")
    return [(pair[0], pair[1]) for pair in value]


def _validate_callers(path: Path, value: object, nodes: int) -> list[CallerEdge] | None:
    """``outside_callers`` validated: [callee node, caller] pairs, every index bounded."""
    if value is None:
        return None
    bad = _bad(path, "has 'outside_callers' that is not a list of [node, caller, scope]")
    if not isinstance(value, list):
        raise bad
    edges: list[CallerEdge] = []
    for edge in value:
        if not (
            isinstance(edge, list)
            and len(edge) == 3  # [node, caller, scope]
            and _index(edge[0], nodes)
            and isinstance(edge[2], str)
        ):
            raise bad
        caller = edge[1]
        if caller is None or _index(caller, nodes):
            edges.append((edge[0], caller, edge[2]))
        elif (
            isinstance(caller, list)
            and len(caller) == 2  # [file, line]
            and isinstance(caller[0], str)
            and _index(caller[1], MAX_LINE)
        ):
            edges.append((edge[0], (caller[0], caller[1]), edge[2]))
        else:
            raise bad
    return edges


def _index(value: object, limit: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < limit


def _validate_sites(
    path: Path, document: dict[str, object], version: object
) -> tuple[list[tuple[str, int]], list[int], list[list[str] | None]]:
    """The computed-import sites of a map, what ran outside tests, what each imported."""
    # Before version 4 no computed import was watched: none is known to the map.
    watched = version not in (_UNSCOPED_VERSION, _UNWATCHED_VERSION)
    raw_sites = document.get("sites") if watched else []
    if not isinstance(raw_sites, list):
        raise _bad(path, "must hold 'sites', a list of [file, line]")
    sites: list[tuple[str, int]] = []
    for site in raw_sites:
        if not (
            isinstance(site, list)
            and len(site) == 2
            and isinstance(site[0], str)
            and isinstance(site[1], int)
            and not isinstance(site[1], bool)
        ):
            raise _bad(path, f"has a site that is not [file, line]: {site!r}"[:300])
        sites.append((site[0], site[1]))
    outside_sites = _int_list(document.get("outside_sites") if watched else [], len(sites))
    if outside_sites is None:
        raise _bad(path, "must hold 'outside_sites', a list of site indices")
    site_imports = _site_imports(document.get("site_imports") if watched else [], len(sites))
    if site_imports is None:
        raise _bad(path, "must hold 'site_imports', per site null or a list of file paths")
    return sites, outside_sites, site_imports


def _site_imports(value: object, count: int) -> list[list[str] | None] | None:
    """``site_imports`` validated: one entry per site, null or a list of paths."""
    if not isinstance(value, list) or len(value) != count:
        return None
    found: list[list[str] | None] = []
    for entry in value:
        if entry is None:
            found.append(None)
        elif isinstance(entry, list) and all(isinstance(f, str) for f in entry):
            found.append([str(f) for f in entry])
        else:
            return None
    return found


def _validate_test(path: Path, test: object, nodes: int, data: int, sites: int) -> MapTest:
    """One test entry, its indices bounded by the map's ``nodes``, ``data`` and ``sites``."""
    if not isinstance(test, dict):
        raise _bad(path, f"has a test that is not an object: {test!r}"[:300])
    ids = _int_list(test.get("nodes"), nodes)
    read = _int_list(test.get("data"), data)
    ran = _int_list(test.get("sites", []), sites)
    name, file, unvouched = test.get("id"), test.get("file"), test.get("unvouched", "")
    unvouched_data = test.get("unvouched_data", "")
    ms = test.get("ms", 0)
    seeded = test.get("seeded", False)
    if (
        ids is None
        or read is None
        or ran is None
        or not isinstance(name, str)
        or not isinstance(file, str)
        or not isinstance(unvouched, str)
        or not isinstance(unvouched_data, str)
        or not isinstance(ms, int)
        or isinstance(ms, bool)
        or not 0 <= ms <= MAX_TEST_MS
        or not isinstance(seeded, bool)
    ):
        raise _bad(path, f"has a malformed test entry: {test!r}"[:300])
    entry: MapTest = {"id": name, "file": file, "nodes": ids, "data": read}
    if unvouched:
        entry["unvouched"] = unvouched
    if unvouched_data:
        entry["unvouched_data"] = unvouched_data
    if ran:
        entry["sites"] = ran
    if "ms" in test:
        entry["ms"] = ms
    if seeded:
        entry["seeded"] = True
    return entry
