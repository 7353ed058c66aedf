"""Runner rules for the scripting-language runners: mix, phpunit, rake/rails."""

from __future__ import annotations

from lanes.governor.classify.runners.argscan import (
    Call,
    Match,
    OptionSpec,
    normalise_path,
    scan,
    words,
)

__all__ = ["mix_rule", "phpunit_rule", "rails_rule", "rake_rule"]

_MIX = OptionSpec(
    words(
        """
        --include --exclude --only --seed --max-failures --formatter --partitions --slowest
        --slowest-modules --export-coverage --repeat-until-failure --timeout --max-cases
        --max-requires --exit-status
        """
    ),
    flags=words(
        """
        --cover --failed --stale --trace --warnings-as-errors --no-compile
        --no-deps-check --no-archives-check --no-elixir-version-check --raise --breakpoints
        --preload-modules --listen-on-stdin --profile-require --force --color --no-color
        """
    ),
)
_MIX_SUBSET_FLAGS = words("--failed --stale")

_PHPUNIT = OptionSpec(
    words(
        """
        -c --configuration --bootstrap --coverage-clover --coverage-html --coverage-xml
        --coverage-cobertura --coverage-php --coverage-crap4j --log-junit --log-teamcity
        --testdox-html --testdox-text --testdox-xml --cache-directory --cache-result-file
        --include-path -d --columns --printer --order-by --random-order-seed --extension
        --covers --uses --test-suffix --exclude-testsuite --group --exclude-group --filter
        --testsuite --log-events-text --log-events-verbose-text --coverage-filter
        --requires --list-tests-xml --generate-baseline --use-baseline --log-otr
        """
    ),
    flags=words(
        """
        --colors --no-coverage --path-coverage --disallow-test-output --fail-on-warning
        --fail-on-risky --fail-on-deprecation --fail-on-notice --fail-on-skipped
        --fail-on-incomplete --fail-on-empty-test-suite --stop-on-failure --stop-on-error
        --stop-on-defect --stop-on-warning --stop-on-risky --stop-on-skipped
        --stop-on-incomplete --no-configuration --no-extensions --no-logging --no-output
        --no-progress --no-results --teamcity --testdox --debug --strict-coverage
        --strict-global-state --process-isolation --globals-backup --static-backup
        --enforce-time-limit --dont-report-useless-tests --display-deprecations
        --display-warnings --display-notices --display-errors --display-skipped
        --display-incomplete --display-all-issues --display-phpunit-deprecations
        --reverse-order --random-order --resolve-dependencies --ignore-dependencies
        --cache-result --do-not-cache-result --coverage-text --only-summary-for-coverage-text
        --show-uncovered-for-coverage-text --testdox-summary --verbose -v
        """
    ),
    optional=words("--coverage-text --colors"),
    short_values="cd",
)
_PHPUNIT_NOT_A_RUN = words(
    """
    --list-groups --list-suites --list-tests --list-tests-xml --list-test-files --version
    --help -h --check-version --generate-configuration --migrate-configuration
    --warm-coverage-cache --atleast-version --check-php-configuration
    """
)
_PHPUNIT_NAME_FILTERS = words("--filter --testsuite")

_RAKE_VALUES = words(
    "-f --rakefile -C --directory -j --jobs -I --libdir -r --require -R --rakelibdir"
)
_RAKE_NOT_A_RUN = words(
    """
    -T --tasks -D --describe -W --where -P --prereqs -e --execute -p --execute-print -E
    --execute-continue -n --dry-run -h --help -V --version
    """
)
_RAILS_TEST = OptionSpec(
    words("-n --name -e --environment -s --seed --exclude -j --profile"),
    flags=words(
        "-v --verbose -b --backtrace -d --defer-output -f --fail-fast -c --color --no-color -p"
    ),
    short_values="nesj",
    clusters=False,
)
_RAKE_SELECTOR_VARS = ("TEST",)


def mix_rule(call: Call) -> Match | None:
    argv, dynamic = call.argv, call.dynamic
    if len(argv) < 2 or argv[1] != "test":
        return None
    match = Match("mix")
    for option, value, index, end in scan(argv, 2, _MIX):
        if option is None:
            if not dynamic[index]:
                match.path([value], normalise_path(value))
        elif option in ("--help", "-h"):
            return None
        elif option in _MIX_SUBSET_FLAGS:
            match.name(argv[index:end], option)
    return match


def phpunit_rule(call: Call) -> Match | None:
    argv, dynamic = call.argv, call.dynamic
    match = Match("phpunit")
    for option, value, index, end in scan(argv, 1, _PHPUNIT):
        if option is None:
            if not dynamic[index]:
                match.path([value], normalise_path(value))
        elif option in _PHPUNIT_NOT_A_RUN:
            return None
        elif option in _PHPUNIT_NAME_FILTERS:
            match.name(argv[index:end], value)
    return match


def rake_rule(call: Call) -> Match | None:
    """``rake test``, ``rake test:models``, ``rake test TEST=test/x_test.rb``."""
    argv = call.argv
    match = Match("rake")
    runs_tests = False
    i, n = 1, len(argv)
    while i < n:
        arg = argv[i]
        if arg in _RAKE_NOT_A_RUN:
            return None
        if arg in _RAKE_VALUES:
            i += 2
            continue
        if not arg.startswith("-"):
            name, eq, value = arg.partition("=")
            if eq:
                _rake_variable(match, [arg], name, value)
            elif _is_test_task(arg):
                runs_tests = True
        i += 1
    if not runs_tests:
        return None
    for name, value in call.env.items():
        _rake_variable(match, [f"{name}={value}"], name, value)
    return match


def rails_rule(call: Call) -> Match | None:
    """``rails test [paths] [-n NAME]`` (also ``bin/rails``)."""
    argv, dynamic = call.argv, call.dynamic
    if len(argv) < 2 or not _is_test_task(argv[1]):
        return None
    match = Match("rake")
    for option, value, index, end in scan(argv, 2, _RAILS_TEST):
        if option is None:
            if dynamic[index]:
                continue
            name, eq, var_value = value.partition("=")
            if eq and name.isupper():
                _rake_variable(match, [value], name, var_value)
            else:
                match.path([value], normalise_path(value))
        elif option in ("-n", "--name"):
            match.name(argv[index:end], value)
        elif option in ("-h", "--help"):
            return None
    for name, value in call.env.items():
        _rake_variable(match, [f"{name}={value}"], name, value)
    return match


def _is_test_task(task: str) -> bool:
    return task == "test" or task.startswith("test:")


def _rake_variable(match: Match, written: list[str], name: str, value: str) -> None:
    """``TEST=path`` selects; ``TESTOPTS`` selects only when it names tests."""
    if not value:
        return
    if name in _RAKE_SELECTOR_VARS:
        match.path(written, normalise_path(value))
    elif name == "TESTOPTS" and any(word.startswith(("-n", "--name")) for word in value.split()):
        match.name(written, value)
