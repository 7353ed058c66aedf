"""Runner rules for JavaScript: npm, yarn, pnpm, bun, jest, vitest, playwright.

Package managers run test *scripts* (``npm test``, ``yarn test:unit``): any
script named ``test``, ``test:*`` or ``test-*``. Arguments passed through to
the script (after ``--``, or after the script name for yarn, pnpm and bun)
select when they are positional or a known name filter (``-t``, ``--grep``);
workspace narrowing (``-w``, ``--filter``, ``yarn workspace X``) selects too.
A package manager that runs a runner's binary directly (``yarn jest``,
``pnpm exec vitest``, ``npm exec -- playwright test``) delegates to that
runner's own rule.
"""

from __future__ import annotations

from lanes.governor.classify.runners.argscan import (
    DASHDASH,
    Call,
    Delegate,
    Match,
    OptionSpec,
    looks_like_path,
    normalise_path,
    scan,
    words,
)

__all__ = [
    "bun_rule",
    "jest_rule",
    "npm_rule",
    "playwright_rule",
    "pnpm_rule",
    "react_scripts_rule",
    "vitest_rule",
    "yarn_rule",
]

# Binaries a package manager may run directly, handing over to their own rule.
_RUNNER_BINARIES = frozenset(("jest", "vitest", "playwright"))
_TEST_ALIASES = frozenset(("test", "t", "tst"))
_NPM_RUN = frozenset(("run", "run-script", "rum", "urn"))
_NPM_INSTALL_TEST = frozenset(
    ("it", "install-test", "cit", "install-ci-test", "clean-install-test")
)

# --------------------------------------------------------------------- jest

_JEST_ARRAYS = words(
    """
    --coverageReporters --projects --reporters --roots --selectProjects --ignoreProjects
    --setupFiles --setupFilesAfterEnv --snapshotSerializers --testMatch
    --testPathIgnorePatterns --testPathPattern --testPathPatterns --watchPathIgnorePatterns
    --moduleDirectories --modulePaths --moduleFileExtensions --coveragePathIgnorePatterns
    --modulePathIgnorePatterns --collectCoverageFrom
    """
)
_JEST_VALUES = _JEST_ARRAYS | words(
    """
    -c --config -w --maxWorkers --coverageDirectory --testTimeout --shard --outputFile
    --rootDir --testEnvironment --env --testRunner --seed --testRegex --globalSetup
    --globalTeardown --transform -t --testNamePattern --changedSince --coverageProvider
    --coverageThreshold --testSequencer --maxConcurrency --preset --resolver
    --testFailureExitCode --moduleNameMapper --notifyMode --cacheDirectory --filter
    --workerIdleMemoryLimit --testEnvironmentOptions --globals --haste --runner
    """
)
_JEST_FLAGS = words(
    """
    --ci --coverage --collectCoverage --runInBand -i --watch --watchAll --silent --verbose
    --passWithNoTests --detectOpenHandles --forceExit --logHeapUsage --json --bail -b
    --colors --no-colors --noStackTrace --updateSnapshot -u --onlyChanged -o --onlyFailures
    -f --lastCommit --findRelatedTests --listTests --showConfig --clearCache --init
    --errorOnDeprecated --expand -e --useStderr --watchman --no-watchman --injectGlobals
    --randomize --runTestsByPath --debug --detectLeaks --no-cache --cache --clearMocks
    --resetMocks --restoreMocks --testLocationInResults --workerThreads --help -h
    --version -v --all --no-coverage --openHandlesTimeout
    """
)
_JEST = OptionSpec(_JEST_VALUES, flags=_JEST_FLAGS, short_values="cwt", arrays=_JEST_ARRAYS)
_JEST_NOT_A_RUN = words("--listTests --showConfig --clearCache --init --help -h --version -v")
_JEST_NAME_FILTERS = words("-t --testNamePattern --testPathPattern --testPathPatterns --filter")
_JEST_SUBSET_FLAGS = words("-o --onlyChanged -f --onlyFailures --lastCommit")

# ------------------------------------------------------------------- vitest

_VITEST_VALUES = words(
    """
    -c --config -r --root --dir --reporter --outputFile --pool --environment --shard
    --maxWorkers --minWorkers --testTimeout --hookTimeout --retry --mode --workspace
    --project -t --testNamePattern --exclude --bail --api --teardownTimeout
    --slowTestThreshold --configLoader --inspect --inspect-brk --diff --sequence.seed
    --coverage.provider --coverage.reporter --coverage.include --coverage.exclude
    --coverage.reportsDirectory --browser.name --browser.provider --poolOptions
    --maxConcurrency --testNamePattern --tags
    """
)
_VITEST_OPTIONAL = words("--changed --silent --browser --merge-reports --update -u")
_VITEST_FLAGS = words(
    """
    --run --watch -w --coverage --ui --open --globals --dom --isolate --no-isolate
    --passWithNoTests --allowOnly --hideSkippedTests --typecheck --clearScreen
    --no-file-parallelism --fileParallelism --standalone --expandSnapshotDiff
    --printConsoleTrace --includeTaskLocation --disableConsoleIntercept --no-color
    --logHeapUsage --help -h --version -v --no-watch --coverage.enabled --sequence.shuffle
    --sequence.concurrent --no-coverage --bail-on-first-failure
    """
)
_VITEST = OptionSpec(
    _VITEST_VALUES, flags=_VITEST_FLAGS, optional=_VITEST_OPTIONAL, short_values="crt"
)
_VITEST_SUBCOMMANDS = frozenset(("run", "watch", "dev", "related", "typecheck"))
_VITEST_NOT_A_RUN = frozenset(("list", "bench", "init"))

# --------------------------------------------------------------- playwright

_PLAYWRIGHT_VALUES = words(
    """
    -c --config --reporter -j --workers --retries --repeat-each --shard --timeout
    --max-failures --output --trace --global-timeout --browser --tsconfig --project
    --grep-invert -G -g --grep --update-source-method --test-list --test-list-invert
    """
)
_PLAYWRIGHT_OPTIONAL = words("--update-snapshots -u --only-changed")
_PLAYWRIGHT_FLAGS = words(
    """
    --headed --debug --ui --forbid-only --fully-parallel --ignore-snapshots --no-deps
    --pass-with-no-tests --quiet -x --list --last-failed --fail-on-flaky-tests --help -h
    """
)
_PLAYWRIGHT = OptionSpec(
    _PLAYWRIGHT_VALUES,
    flags=_PLAYWRIGHT_FLAGS,
    optional=_PLAYWRIGHT_OPTIONAL,
    short_values="cjgG",
)
_PLAYWRIGHT_SELECTORS = words("-g --grep --test-list --last-failed --only-changed")

# ------------------------------------------------ arguments passed to a script

_PASS_VALUES = (
    _JEST_VALUES
    | _VITEST_VALUES
    | _PLAYWRIGHT_VALUES
    | words(
        "--spec --timeout --reporter-options --require --grep --fgrep --file --test-name-pattern"
    )
)
_PASS_FLAGS = _JEST_FLAGS | _VITEST_FLAGS | _PLAYWRIGHT_FLAGS
_PASS = OptionSpec(
    _PASS_VALUES - _VITEST_OPTIONAL,
    flags=_PASS_FLAGS - words("-v --help -h --version"),
    optional=_VITEST_OPTIONAL | _PLAYWRIGHT_OPTIONAL,
    short_values="tgcw",
    arrays=_JEST_ARRAYS,
)
_PASS_NAME_FILTERS = _JEST_NAME_FILTERS | words(
    "-g --grep --fgrep --spec --test-name-pattern --project --selectProjects"
)
_PASS_SUBSET_FLAGS = _JEST_SUBSET_FLAGS | words("--changed --last-failed --only-changed")
_PASS_NOT_A_RUN = words("--listTests --showConfig --clearCache --list")

# ---------------------------------------------------------- package managers

_NPM_VALUES = words(
    """
    -w --workspace --prefix --loglevel --userconfig --globalconfig --cache --registry
    --script-shell --node-options --tag --otp --before --omit --include
    """
)
_YARN_VALUES = words(
    """
    --cwd --modules-folder --cache-folder --network-timeout --mutex --global-folder
    --link-folder --registry --use-yarnrc
    """
)
_YARN_FOREACH_VALUES = words("--include --exclude --from --since -j --jobs")
_YARN_FOREACH_SELECTORS = words("--include --from --since")
_PNPM_VALUES = words(
    """
    -C --dir --filter -F --filter-prod --reporter --workspace-concurrency --resume-from
    --loglevel --changed-files-ignore-pattern --test-pattern --store-dir --config-dir
    """
)
_PNPM_SELECTORS = words("--filter -F --filter-prod")
_BUN_TEST_VALUES = words(
    """
    --timeout --rerun-each --preload -r --coverage-reporter --coverage-dir --reporter
    --reporter-outfile --max-concurrency --seed -c --config --env-file --cwd
    --tsconfig-override --define -d --loader -l --conditions -t --test-name-pattern
    """
)
_BUN_TEST_FLAGS = words(
    """
    --coverage --watch --only --todo --update-snapshots -u --concurrent --randomize
    --pass-with-no-tests --dots --only-failures --bail --silent --hot --smol
    """
)
_BUN_TEST = OptionSpec(_BUN_TEST_VALUES, flags=_BUN_TEST_FLAGS, short_values="trcdl")
_BUN_VALUES = words("--cwd -c --config --env-file --filter -F --elide-lines")


def _is_test_script(name: str) -> bool:
    return name == "test" or name.startswith(("test:", "test-"))


def passthrough(match: Match, argv: list[str], start: int, dynamic: list[bool]) -> bool:
    """Read arguments a package manager passes to a test script.

    Positionals and known name filters select; returns ``False`` when the
    arguments ask for a listing instead of a run (``-- --listTests``).
    """
    for option, value, index, end in scan(argv, start, _PASS):
        if option is None:
            if not dynamic[index]:
                _select(match, [value], value)
        elif option == DASHDASH:
            continue
        elif option in _PASS_NOT_A_RUN:
            return False
        elif option in _PASS_NAME_FILTERS:
            match.name(argv[index:end], value)
        elif option in _PASS_SUBSET_FLAGS:
            match.name(argv[index:end], option)
    return True


def _select(match: Match, written: list[str], value: str) -> None:
    if looks_like_path(value):
        match.path(written, normalise_path(value))
    else:
        match.name(written, value)


def _script_run(
    runner: str, argv: list[str], i: int, dynamic: list[bool], narrowed: list[list[str]]
) -> Match | Delegate | None:
    """``argv[i]`` names a script (or a binary); the rest are passed to it."""
    name = argv[i]
    if name in _RUNNER_BINARIES:
        return Delegate(i, None, _flat(narrowed))
    if not _is_test_script(name):
        return None
    match = Match(runner)
    _narrow(match, narrowed)
    start = i + 1
    if start < len(argv) and argv[start] == DASHDASH:
        start += 1
    return match if passthrough(match, argv, start, dynamic) else None


def npm_rule(call: Call) -> Match | Delegate | None:
    argv, dynamic = call.argv, call.dynamic
    narrowed: list[list[str]] = []
    command: str | None = None
    script_at: int | None = None
    extra: list[int] = []
    i, n = 1, len(argv)
    while i < n:
        arg = argv[i]
        if arg == DASHDASH:
            break
        if arg in ("-w", "--workspace") and i + 1 < n:
            narrowed.append(argv[i : i + 2])
            i += 2
            continue
        if arg.startswith("--workspace="):
            narrowed.append([arg])
        elif arg in _NPM_VALUES:
            i += 2
            continue
        elif arg[:1] != "-":
            if command is None:
                command = arg
                if command in ("exec", "x"):
                    return _npm_exec(argv, i + 1, narrowed)
            elif script_at is None and command in _NPM_RUN:
                script_at = i
            else:
                extra.append(i)
        i += 1
    runs_script = command in _NPM_RUN and script_at is not None
    if not (
        command in _TEST_ALIASES
        or command in _NPM_INSTALL_TEST
        or (runs_script and _is_test_script(argv[script_at or 0]))
    ):
        return None
    match = Match("npm")
    _narrow(match, narrowed)
    for index in extra:
        if not dynamic[index]:
            _select(match, [argv[index]], argv[index])
    if i < n and not passthrough(match, argv, i + 1, dynamic):
        return None
    return match


def _npm_exec(argv: list[str], i: int, narrowed: list[list[str]]) -> Delegate | None:
    """``npm exec [opts] [--] jest ...`` / ``npm x``: the binary runs."""
    n = len(argv)
    while i < n and argv[i].startswith("-"):
        if argv[i] == DASHDASH:
            i += 1
            break
        i += 2 if argv[i] in ("-p", "--package", "-w", "--workspace", "-c", "--call") else 1
    return Delegate(i, _strip_version(argv[i]), _flat(narrowed)) if i < n else None


def _strip_version(program: str) -> str:
    at = program.rfind("@")
    return program[:at] if at > 0 else program


def _flat(narrowed: list[list[str]]) -> list[str]:
    return [word for pair in narrowed for word in pair]


def _narrow(match: Match, narrowed: list[list[str]]) -> None:
    """Workspace selectors as written (``-w api``, ``--filter=web``) -> name filters."""
    for written in narrowed:
        match.name(written, written[-1].rpartition("=")[2])


def yarn_rule(call: Call) -> Match | Delegate | None:
    argv, dynamic = call.argv, call.dynamic
    narrowed: list[list[str]] = []
    i, n = 1, len(argv)
    while i < n:
        arg = argv[i]
        if arg in _YARN_VALUES:
            i += 2
        elif arg.startswith("-"):
            i += 1
        elif arg == "workspace" and i + 1 < n:
            narrowed.append(argv[i : i + 2])
            i += 2
        elif arg == "workspaces":
            return _yarn_workspaces(argv, i + 1, dynamic)
        elif arg in ("exec", "dlx"):
            j = i + 1
            while j < n and argv[j].startswith("-"):
                j += 2 if argv[j] in ("-p", "--package") else 1
            return Delegate(j, _strip_version(argv[j]), _flat(narrowed)) if j < n else None
        elif arg == "run" and i + 1 < n:
            return _script_run("yarn", argv, i + 1, dynamic, narrowed)
        else:
            return _script_run("yarn", argv, i, dynamic, narrowed)
    return None


def _yarn_workspaces(argv: list[str], i: int, dynamic: list[bool]) -> Match | Delegate | None:
    """``yarn workspaces foreach [opts] run test`` (berry), ``yarn workspaces run test`` (v1)."""
    n = len(argv)
    narrowed: list[list[str]] = []
    if i < n and argv[i] == "foreach":
        i += 1
        while i < n and argv[i].startswith("-"):
            name = argv[i].partition("=")[0]
            if name in _YARN_FOREACH_VALUES:
                if name in _YARN_FOREACH_SELECTORS:
                    narrowed.append(argv[i : i + 1 if "=" in argv[i] else i + 2])
                i += 1 if "=" in argv[i] else 2
            else:
                i += 1
    if i < n and argv[i] == "run":
        i += 1
    if i >= n:
        return None
    return _script_run("yarn", argv, i, dynamic, narrowed)


def pnpm_rule(call: Call) -> Match | Delegate | None:
    argv, dynamic = call.argv, call.dynamic
    narrowed: list[list[str]] = []
    i, n = 1, len(argv)
    while i < n:
        arg = argv[i]
        name = arg.partition("=")[0]
        if name in _PNPM_SELECTORS:
            written = [arg] if "=" in arg else argv[i : i + 2]
            narrowed.append(written)
            i += len(written)
        elif arg in _PNPM_VALUES:
            i += 2
        elif arg.startswith("-"):
            i += 1
        elif arg in ("exec", "dlx", "x"):
            j = i + 1
            while j < n and argv[j].startswith("-"):
                j += 2 if argv[j] in ("--package", "--resume-from", "--reporter") else 1
            return Delegate(j, _strip_version(argv[j]), _flat(narrowed)) if j < n else None
        elif arg in _TEST_ALIASES:
            match = Match("pnpm")
            _narrow(match, narrowed)
            return match if passthrough(match, argv, i + 1, dynamic) else None
        elif arg in ("run", "run-script") and i + 1 < n:
            return _script_run("pnpm", argv, _skip_flags(argv, i + 1), dynamic, narrowed)
        else:
            return _script_run("pnpm", argv, i, dynamic, narrowed)
    return None


def _skip_flags(argv: list[str], i: int) -> int:
    while i < len(argv) - 1 and argv[i].startswith("-"):
        i += 1
    return i


def bun_rule(call: Call) -> Match | Delegate | None:
    argv, dynamic = call.argv, call.dynamic
    i, n = 1, len(argv)
    narrowed: list[list[str]] = []
    while i < n:
        arg = argv[i]
        if arg in ("--filter", "-F") and i + 1 < n:
            narrowed.append(argv[i : i + 2])
            i += 2
        elif arg in _BUN_VALUES:
            i += 2
        elif arg.startswith("-"):
            i += 1
        elif arg == "test":
            return _bun_test(argv, i + 1, dynamic)
        elif arg == "x":
            j = i + 1
            while j < n and argv[j].startswith("-"):
                j += 1
            return Delegate(j, _strip_version(argv[j]), _flat(narrowed)) if j < n else None
        elif arg == "run" and i + 1 < n:
            return _script_run("bun", argv, _skip_flags(argv, i + 1), dynamic, narrowed)
        else:
            return _script_run("bun", argv, i, dynamic, narrowed)
    return None


def _bun_test(argv: list[str], start: int, dynamic: list[bool]) -> Match | None:
    """``bun test``: bun's own runner; paths and ``-t`` select."""
    match = Match("bun")
    for option, value, index, end in scan(argv, start, _BUN_TEST):
        if option is None:
            if not dynamic[index]:
                match.path([value], normalise_path(value))
        elif option in ("-t", "--test-name-pattern"):
            match.name(argv[index:end], value)
        elif option in ("--help", "-h"):
            return None
    return match


def jest_rule(call: Call) -> Match | None:
    argv, dynamic = call.argv, call.dynamic
    match = Match("jest")
    for option, value, index, end in scan(argv, 1, _JEST):
        if option is None:
            if not dynamic[index]:
                match.path([value], normalise_path(value))
        elif option == DASHDASH:
            continue
        elif option in _JEST_NOT_A_RUN:
            return None
        elif option in _JEST_NAME_FILTERS:
            match.name(argv[index:end], value)
        elif option in _JEST_SUBSET_FLAGS or option in ("--changedSince", "--selectProjects"):
            match.name(argv[index:end], value or option)
    return match


def vitest_rule(call: Call) -> Match | None:
    argv, dynamic = call.argv, call.dynamic
    match = Match("vitest")
    start = 1
    if len(argv) > 1:
        if argv[1] in _VITEST_NOT_A_RUN:
            return None
        if argv[1] in _VITEST_SUBCOMMANDS:
            start = 2
            if argv[1] == "related":
                match.name([argv[1]], argv[1])
    for option, value, index, end in scan(argv, start, _VITEST):
        if option is None:
            if not dynamic[index]:
                match.path([value], normalise_path(value))
        elif option == DASHDASH:
            continue
        elif option in ("--help", "-h", "--version", "-v"):
            return None
        elif option in ("-t", "--testNamePattern", "--project", "--changed"):
            match.name(argv[index:end], value or option)
    return match


def playwright_rule(call: Call) -> Match | None:
    argv, dynamic = call.argv, call.dynamic
    if len(argv) < 2 or argv[1] != "test":
        return None  # install, show-report, codegen ...: not test runs
    match = Match("playwright")
    for option, value, index, end in scan(argv, 2, _PLAYWRIGHT):
        if option is None:
            if not dynamic[index]:
                match.path([value], normalise_path(value))
        elif option == DASHDASH:
            continue
        elif option in ("--list", "--help", "-h"):
            return None
        elif option in _PLAYWRIGHT_SELECTORS:
            match.name(argv[index:end], value or option)
    return match


def react_scripts_rule(call: Call) -> Delegate | None:
    """``react-scripts test`` (Create React App) is jest with CRA's config."""
    argv = call.argv
    if len(argv) < 2 or argv[1] != "test":
        return None
    return Delegate(1, "jest", [])
