"""Runner rules for the JVM build tools: maven and gradle.

Neither has a "test" command as such: a maven build runs the tests when it
reaches the ``test`` phase (``package``, ``verify``, ``install`` ... all pass
through it), and a gradle build when the ``test`` task is in its task graph
(``check`` and ``build`` depend on it). Skipping flags (``-DskipTests``,
``-x test``) make such a build not a test run.
"""

from __future__ import annotations

from lanes.governor.classify.runners.argscan import Call, Match, words

__all__ = ["gradle_rule", "maven_rule"]

# Lifecycle phases that include `test` (it runs in every later phase).
_MAVEN_TEST_PHASES = words(
    """
    test prepare-package package pre-integration-test integration-test
    post-integration-test verify install deploy
    """
)
_MAVEN_TEST_GOALS = (":test", ":integration-test")  # surefire:test, failsafe:integration-test
_MAVEN_VALUES = words(
    """
    -f --file -s --settings -gs --global-settings -t --toolchains -gt --global-toolchains
    -P --activate-profiles -pl --projects -rf --resume-from -T --threads -l --log-file
    -b --builder --color -D --define -el --extensions
    """
)
_MAVEN_SELECTORS = words("-pl --projects -rf --resume-from")
_MAVEN_NOT_A_RUN = words("-v --version -h --help")
_MAVEN_TEST_SELECTORS = ("test", "it.test")

_GRADLE_VALUES = words(
    """
    -p --project-dir -b --build-file -c --settings-file -g --gradle-user-home -I
    --init-script -D --system-prop -P --project-prop --max-workers -x --exclude-task
    --console --warning-mode --priority --include-build -M --write-verification-metadata
    --dependency-verification --tests --configuration-cache-problems --project-cache-dir
    -F --update-locks
    """
)
_GRADLE_NOT_A_RUN = words("--dry-run -m --help -h -? --version -v")
_GRADLE_AGGREGATES = words("check build buildNeeded buildDependents")
_GRADLE_NON_RUN_PREFIXES = (
    "compile", "assemble", "process", "generate", "merge", "package", "bundle", "lint",
    "publish", "install", "upload", "jacoco", "clean",
)  # fmt: skip


def maven_rule(call: Call) -> Match | None:
    argv = call.argv
    match = Match("maven")
    runs_tests = False
    i, n = 1, len(argv)
    while i < n:
        arg = argv[i]
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg.startswith("-D"):
            prop = arg[2:] if len(arg) > 2 else (argv[i + 1] if i + 1 < n else "")
            written = argv[i : i + 1] if len(arg) > 2 else argv[i : i + 2]
            if _maven_skips_tests(prop):
                return None
            key, _, prop_value = prop.partition("=")
            if key in _MAVEN_TEST_SELECTORS and prop_value:
                match.name(written, prop_value)
            i += len(written)
            continue
        if name in _MAVEN_NOT_A_RUN:
            return None
        if name in _MAVEN_VALUES:
            written = argv[i : i + 1] if eq else argv[i : i + 2]
            if name in _MAVEN_SELECTORS and len(written) == (1 if eq else 2):
                match.name(written, value if eq else written[-1])
            i += len(written)
            continue
        if arg.startswith("-"):
            i += 1  # glued values (-Pci, -T4) and flags (-B, -q, -am, -ntp)
            continue
        if arg in _MAVEN_TEST_PHASES or arg.endswith(_MAVEN_TEST_GOALS):
            runs_tests = True
        i += 1
    return match if runs_tests else None


def _maven_skips_tests(prop: str) -> bool:
    key, eq, value = prop.partition("=")
    if key not in ("skipTests", "maven.test.skip"):
        return False
    return not eq or value.lower() != "false"


def gradle_rule(call: Call) -> Match | None:
    argv = call.argv
    match = Match("gradle")
    tasks: list[str] = []
    excluded: set[str] = set()
    i, n = 1, len(argv)
    while i < n:
        arg = argv[i]
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in _GRADLE_NOT_A_RUN:
            return None
        if name in _GRADLE_VALUES:
            written = argv[i : i + 1] if eq else argv[i : i + 2]
            option_value = value if eq else (written[1] if len(written) > 1 else "")
            if name in ("-x", "--exclude-task"):
                excluded.add(option_value.rpartition(":")[2])
            elif name == "--tests" and option_value:
                match.name(written, option_value)
            i += len(written)
            continue
        if arg.startswith("-x") and len(arg) > 2:
            excluded.add(arg[2:].rpartition(":")[2])  # `-xtest`
        elif not arg.startswith("-"):
            tasks.append(arg)
        i += 1
    running = [task for task in tasks if _is_test_task(task) and not _excluded(task, excluded)]
    if not running:
        return None
    for task in running:
        project, _, _ = task.rpartition(":")
        if project.strip(":"):
            match.name([task], task)  # `:core:test` runs one project's tests
    return match


def _is_test_task(task: str) -> bool:
    name = task.rpartition(":")[2]
    if name == "test" or name in _GRADLE_AGGREGATES:
        return True
    return name.endswith(("Test", "Tests")) and not name.startswith(_GRADLE_NON_RUN_PREFIXES)


def _excluded(task: str, excluded: set[str]) -> bool:
    name = task.rpartition(":")[2]
    if name in excluded:
        return True
    if "test" in excluded and name in _GRADLE_AGGREGATES:
        return True  # `build -x test`: the aggregate runs, its tests do not
    return "check" in excluded and name in _GRADLE_AGGREGATES - {"check"}
