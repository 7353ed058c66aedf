"""Runner rules for compiled toolchains: go, cargo, swift, dotnet.

Each toolchain's whole-tree form is full: ``go test ./...``, a bare
``cargo test``, ``dotnet test`` on a solution. Compile-only and listing forms
(``go test -c``, ``cargo test --no-run``, ``dotnet test --list-tests``) are not
test runs.
"""

from __future__ import annotations

from lanes.governor.classify.runners.argscan import (
    DASHDASH,
    Call,
    Delegate,
    Match,
    OptionSpec,
    normalise_path,
    scan,
    words,
)

__all__ = ["cargo_rule", "dotnet_rule", "go_rule", "gotestsum_rule", "swift_rule"]

# ----------------------------------------------------------------------- go

_GO_TEST_FLAG_VALUES = words(
    """
    count cpu parallel timeout run skip bench benchtime blockprofile blockprofilerate
    coverprofile cpuprofile memprofile memprofilerate mutexprofile mutexprofilefraction
    outputdir trace list fuzz fuzztime fuzzminimizetime shuffle
    """
)
_GO_BUILD_FLAG_VALUES = words(
    """
    C p covermode coverpkg asmflags buildmode compiler gccgoflags gcflags installsuffix
    ldflags mod modfile overlay pgo pkgdir tags toolexec o exec vet
    """
)
_GO_VALUES = frozenset(
    prefix + name
    for name in _GO_TEST_FLAG_VALUES | _GO_BUILD_FLAG_VALUES
    for prefix in ("-", "--", "-test.", "--test.")
    if not (prefix.endswith("test.") and name in _GO_BUILD_FLAG_VALUES)
)
_GO = OptionSpec(_GO_VALUES, clusters=False, single_dash_long=True)
_GO_NOT_A_RUN = words("-c --c -list --list -test.list -n --n -h -help --help")
_GO_RUN = words("-run --run -test.run --test.run")
_GO_WHOLE = frozenset(("./...", "...", "all"))
# The conventional "match no test" patterns of benchmark-only runs.
_GO_RUN_NOTHING = frozenset(("^$", "^$$", "XXX", "NONE", "none", "^#$"))

_GOTESTSUM_VALUES = words(
    """
    -f --format --junitfile --jsonfile --packages --raw-command --post-run-command
    --format-icons --hide-summary --junitfile-testsuite-name --junitfile-testcase-classname
    --rerun-fails-max-failures --rerun-fails-report --jsonfile-timing-events
    --junitfile-project-name
    """
)

# -------------------------------------------------------------------- cargo

_CARGO_GLOBAL_VALUES = words("-C --config -Z --color --manifest-path")
_CARGO_VALUES = words(
    """
    -p --package --exclude --test --bench --bin --example --features -F --target
    --target-dir --manifest-path -j --jobs --profile --color --message-format --config -Z
    --lockfile-path
    """
)
_CARGO = OptionSpec(
    _CARGO_VALUES,
    flags=words(
        """
        --lib --doc --bins --tests --examples --benches --all-targets --workspace --all
        --release -r --all-features --no-default-features --no-run --no-fail-fast --locked
        --frozen --offline -q --quiet -v --verbose --ignore-rust-version --keep-going
        --future-incompat-report --unit-graph --timings --help -h
        """
    ),
    short_values="pFjZ",
)
_CARGO_SELECTORS = words("-p --package --test --bin")
# Target-kind flags narrow the run only when they leave kinds out: `--lib`
# alone is a filter, `--lib --bins --tests` (or `--all-targets`) is everything.
_CARGO_KIND_SELECTORS = words("--lib --doc")
_CARGO_ALL_KINDS = words("--lib --bins --tests")
_CARGO_NOT_A_RUN = words("--no-run --help -h")
_LIBTEST_VALUES = words(
    "--skip --test-threads --format --color --logfile -Z --shuffle-seed --report-time"
)
_LIBTEST = OptionSpec(_LIBTEST_VALUES, clusters=False)
_NEXTEST = OptionSpec(
    words(
        """
        -p --package -E --filterset --filter-expr --profile -P --partition --target-dir
        --manifest-path -j --jobs --test-threads --retries --features -F --target
        --cargo-profile --archive-file --workspace-remap --run-ignored --final-status-level
        --status-level --failure-output --success-output --message-format
        --tool-config-file --config -Z --color --max-fail --exclude --bin --test --example
        --bench --cargo-message-format
        """
    ),
    flags=words(
        """
        --lib --bins --tests --examples --benches --all-targets --workspace --all --release
        -r --all-features --no-default-features --no-fail-fast --locked --frozen --offline
        --no-capture --nocapture --hide-progress-bar --no-tests --help -h
        """
    ),
    short_values="pEPjFZ",
)
_NEXTEST_SELECTORS = words("-p --package -E --filterset --filter-expr --test --bin")

# -------------------------------------------------------------------- swift

_SWIFT = OptionSpec(
    words(
        """
        -c --configuration --package-path --scratch-path --build-path --cache-path
        --config-path --security-path -Xswiftc -Xcc -Xlinker -Xcxx -Xbuild-tools-swiftc
        --num-workers --xunit-output --sanitize --triple --sdk --toolchain -j --jobs
        --filter --skip --attachments-path --event-stream-output-path --swift-sdk
        --swift-sdks-path --pkg-config-path --default-registry-url --experimental-xunit-message-failure
        """
    ),
    clusters=False,
    single_dash_long=True,
)
_SWIFT_NOT_A_RUN = words("--list-tests -l --show-codecov-path --help -h --version")

# ------------------------------------------------------------------- dotnet

_DOTNET = OptionSpec(
    words(
        """
        -c --configuration -f --framework -r --runtime -a --arch --os -o --output -l
        --logger -s --settings -v --verbosity --results-directory --collect -d --diag
        --blame-crash-dump-type --blame-hang-timeout --blame-hang-dump-type
        --test-adapter-path -e --environment --filter --project --solution --property
        --artifacts-path --max-parallel-test-modules --configfile --source
        --test-modules --root-directory --report-trx-filename --coverage-output
        --coverage-output-format --minimum-expected-tests --maximum-failed-tests
        """
    ),
    clusters=False,
    single_dash_long=True,
)
_DOTNET_NOT_A_RUN = words("--list-tests -t --help -h -? /? /h /help")
_WHOLE_SOLUTION = (".sln", ".slnx", ".slnf")


def go_rule(call: Call) -> Match | None:
    argv, dynamic = call.argv, call.dynamic
    if len(argv) < 2 or argv[1] != "test":
        return None
    return _go_test(argv, 2, dynamic)


def _go_test(argv: list[str], start: int, dynamic: list[bool]) -> Match | None:
    match = Match("go")
    packages: list[int] = []
    whole = False
    for option, value, index, end in scan(argv, start, _GO):
        if option is None:
            if value in _GO_WHOLE:
                whole = True
            elif not dynamic[index]:
                packages.append(index)
        elif option == DASHDASH:
            break
        elif option in _GO_NOT_A_RUN:
            return None
        elif option in _GO_RUN:
            if value in _GO_RUN_NOTHING:
                return None  # `-run '^$' -bench .`: benchmarks only, no tests
            match.name(argv[index:end], value)
        elif option in ("-args", "--args"):
            break  # the rest goes to the test binary
    if not whole:
        for index in packages:
            match.path([argv[index]], normalise_path(argv[index]))
    return match


def gotestsum_rule(call: Call) -> Match | Delegate | None:
    """``gotestsum [opts] [-- go test args]``: ``go test`` under a reporter."""
    argv = call.argv
    i, n = 1, len(argv)
    packages: list[str] = []
    while i < n:
        arg = argv[i]
        if arg == DASHDASH:
            return Delegate(i, "go", [], insert=("test",))
        name, eq, value = arg.partition("=")
        if name in ("--help", "-h", "--version"):
            return None
        if name in _GOTESTSUM_VALUES:
            if name == "--packages":
                packages = (value if eq else argv[i + 1] if i + 1 < n else "").split()
            i += 1 if eq else 2
        else:
            i += 1
    match = Match("go")
    if packages and not any(package in _GO_WHOLE for package in packages):
        for package in packages:
            match.path([f"--packages={package}"], normalise_path(package))
    return match


def cargo_rule(call: Call) -> Match | None:
    argv, dynamic = call.argv, call.dynamic
    i, n = 1, len(argv)
    while i < n and (argv[i].startswith(("-", "+"))):
        i += 2 if argv[i] in _CARGO_GLOBAL_VALUES else 1
    if i >= n:
        return None
    if argv[i] in ("test", "t"):
        return _cargo_test(argv, i + 1, dynamic)
    if argv[i] == "nextest" and i + 1 < n and argv[i + 1] == "run":
        return _cargo_nextest(argv, i + 2, dynamic)
    return None


def _cargo_test(argv: list[str], start: int, dynamic: list[bool]) -> Match | None:
    match = Match("cargo")
    kinds: list[tuple[str, list[str]]] = []
    for option, value, index, end in scan(argv, start, _CARGO):
        if option is None:
            if not dynamic[index]:
                match.name([value], value)
        elif option == DASHDASH:
            if not _libtest_args(match, argv, index + 1, dynamic):
                return None
            break
        elif option in _CARGO_NOT_A_RUN:
            return None
        elif option in _CARGO_SELECTORS:
            match.name(argv[index:end], value)
        elif option in _CARGO_KIND_SELECTORS or option in ("--bins", "--tests", "--all-targets"):
            kinds.append((option, argv[index:end]))
    _select_kinds(match, kinds)
    return match


def _select_kinds(match: Match, kinds: list[tuple[str, list[str]]]) -> None:
    """``--lib`` / ``--doc`` select unless the kinds given add up to every target."""
    given = {option for option, _ in kinds}
    if "--all-targets" in given or given >= _CARGO_ALL_KINDS:
        return
    for option, written in kinds:
        if option in _CARGO_KIND_SELECTORS:
            match.name(written, option)


def _libtest_args(match: Match, argv: list[str], start: int, dynamic: list[bool]) -> bool:
    """The test binary's own arguments; ``False`` for ``-- --list``."""
    for option, value, index, end in scan(argv, start, _LIBTEST):
        if option is None:
            if not dynamic[index]:
                match.name([value], value)
        elif option in ("--list", "--help", "-h"):
            return False
        elif option == "--ignored":
            match.name(argv[index:end], option)  # only the #[ignore]d tests
    return True


def _cargo_nextest(argv: list[str], start: int, dynamic: list[bool]) -> Match | None:
    match = Match("cargo")
    kinds: list[tuple[str, list[str]]] = []
    for option, value, index, end in scan(argv, start, _NEXTEST):
        if option is None:
            if not dynamic[index]:
                match.name([value], value)
        elif option == DASHDASH:
            continue
        elif option in ("--help", "-h", "--no-run"):
            return None
        elif option in _NEXTEST_SELECTORS:
            match.name(argv[index:end], value)
        elif option in ("--lib", "--bins", "--tests", "--all-targets"):
            kinds.append((option, argv[index:end]))
        elif option == "--run-ignored" and value in ("only", "ignored-only"):
            match.name(argv[index:end], value)
    _select_kinds(match, kinds)
    return match


def swift_rule(call: Call) -> Match | None:
    argv = call.argv
    if len(argv) < 2 or argv[1] != "test":
        return None
    if len(argv) > 2 and argv[2] == "list":
        return None
    match = Match("swift")
    for option, value, index, end in scan(argv, 2, _SWIFT):
        if option in _SWIFT_NOT_A_RUN:
            return None
        if option == "--filter":
            match.name(argv[index:end], value)
    return match


def dotnet_rule(call: Call) -> Match | None:
    argv, dynamic = call.argv, call.dynamic
    if len(argv) < 2 or argv[1] != "test":
        return None
    match = Match("dotnet")
    for option, value, index, end in scan(argv, 2, _DOTNET):
        if option is None:
            if _is_msbuild_switch(value) or dynamic[index]:
                continue
            path = normalise_path(value)
            if path != "." and not path.lower().endswith(_WHOLE_SOLUTION):
                match.path([value], path)
        elif option == DASHDASH:
            break  # RunSettings arguments
        elif option in _DOTNET_NOT_A_RUN:
            return None
        elif option == "--filter":
            match.name(argv[index:end], value)
        elif option == "--project":
            match.path(argv[index:end], normalise_path(value))
    return match


def _is_msbuild_switch(word: str) -> bool:
    """``/p:Configuration=Release``, ``/m``, ``/bl`` — not a project path."""
    if not word.startswith("/") or len(word) < 2:
        return False
    name = word[1:].partition(":")[0]
    return name.isalpha() and "/" not in word[1 : len(name) + 2]
