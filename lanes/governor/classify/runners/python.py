"""Runner rules for Python: pytest and unittest.

Both apply the whole-tree rule: a path selector that names the project's
whole test root (see :mod:`lanes.governor.classify.test_roots`) is the full suite, not a
filter.
"""

from __future__ import annotations

import os
import posixpath

from lanes.governor.classify.runners.argscan import (
    DASHDASH,
    Call,
    Match,
    OptionSpec,
    looks_like_path,
    normalise_path,
    scan,
    words,
)
from lanes.governor.classify.shell import split_commands
from lanes.governor.classify.test_roots import covers_whole_tree

__all__ = ["django_rule", "pytest_rule", "relative_to_root", "unittest_rule"]

# pytest's own value-taking options plus those of the most used plugins
# (pytest-cov, -xdist, -timeout, -rerunfailures, -django, -benchmark, -html,
# -randomly, -split, -repeat, -asyncio, -playwright, hypothesis).
_PYTEST_VALUES = words(
    """
    -c --config-file --rootdir -k -m -p --basetemp --confcutdir --deselect --ignore
    --ignore-glob --junitxml --junit-xml --junit-prefix -o --override-ini --tb --durations
    --durations-min --maxfail --import-mode --capture --log-level --log-format
    --log-date-format --log-cli-level --log-cli-format --log-cli-date-format --log-file
    --log-file-level --log-file-format --log-file-date-format --log-file-mode
    --log-auto-indent --log-disable -W --pythonwarnings --pastebin --doctest-glob
    --doctest-report --assert --show-capture -r --verbosity --color --code-highlight --lfnf
    --last-failed-no-failures --pdbcls --cov-report --cov-config --cov-fail-under
    --cov-context -n --numprocesses --dist --maxprocesses --max-worker-restart --tx
    --rsyncdir --rsyncignore --timeout --timeout-method --timeout_method --session-timeout
    --reruns --reruns-delay --only-rerun --rerun-except --ds --dc --html --css
    --randomly-seed --splits --group --splitting-algorithm --durations-path --count
    --repeat-scope --asyncio-mode --hypothesis-profile --hypothesis-seed
    --hypothesis-verbosity --browser --browser-channel --base-url --slowmo --device
    --tracing --video --screenshot --output --benchmark-json --benchmark-save
    --benchmark-min-rounds --benchmark-min-time --benchmark-max-time --benchmark-sort
    --benchmark-group-by --benchmark-columns --benchmark-storage --benchmark-warmup
    --benchmark-timer --benchmark-name --json-report-file --alluredir --md-report-output
    --report-log --junit-suite-name --flake-runs --driver
    --snapshot-default-extension --testmon-env --celery-broker --envfile --rootdir
    --cov-reset-config --xfail-file --dburl --sqlalchemy-connect-url
    """
)
# Options whose value is optional (argparse nargs='?'): `--cov` takes `src` in
# `--cov src tests`, exactly as pytest-cov's argparse would.
_PYTEST_OPTIONAL = words(
    """
    --cov --debug --benchmark-compare --benchmark-histogram --cache-show
    --benchmark-autosave
    """
)
_PYTEST_FLAGS = words(
    """
    --lf --last-failed --ff --failed-first --nf --new-first --sw --stepwise --sw-skip
    --stepwise-skip --exitfirst --strict-markers --strict-config --strict --runxfail --pdb
    --trace --showlocals --no-showlocals --no-header --no-summary --disable-warnings
    --disable-pytest-warnings --doctest-modules --doctest-continue-on-failure
    --doctest-ignore-import-errors --cache-clear --full-trace --verbose --quiet --pyargs
    --cov-append --cov-branch --no-cov --no-cov-on-fail --looponfail --boxed --forked
    --reuse-db --create-db --nomigrations --migrations --benchmark-skip --benchmark-only
    --benchmark-disable --benchmark-verbose --hypothesis-show-statistics --instafail
    --testmon --testmon-noselect --runslow --run-slow --slow --integration --run-integration
    --headed --flake8 --mypy --black --isort --ruff --ruff-format --snapshot-update
    --force-regen --update-snapshots --continue-on-collection-errors --keep-duplicates
    --setup-show --version --help --collect-only --co --fixtures --funcargs
    --fixtures-per-test --markers --setup-only --setup-plan --trace-config --lsof --emoji
    --sugar --json-report --xfail-tb --no-cov-report --allow-unregistered-markers
    --randomly-dont-reorganize --dist-load --rsync --flake-finder --cov-reset
    --typeguard-packages --live-server-no-static --capture-no --tb-native --log-cli
    --no-migrations --ignore-flaky --force-flaky --md-report --durations-only
    --suppress-no-test-exit-code
    """
)
_PYTEST = OptionSpec(
    _PYTEST_VALUES,
    flags=_PYTEST_FLAGS,
    optional=_PYTEST_OPTIONAL,
    short_values="ckmpoWrn",
)
_PYTEST_NOT_A_RUN = words(
    """
    --version -V --help -h --collect-only --co --fixtures --funcargs --fixtures-per-test
    --markers --cache-show --setup-plan --setup-only
    """
)
_PYTEST_RERUN_FAILED = frozenset(("--lf", "--last-failed"))
# Options that leave tests out without selecting any: the run is still a
# sweep to the gate, but never vouches for a whole suite.
_PYTEST_NARROWING = words(
    """
    --deselect --ignore --ignore-glob --sw --stepwise --sw-skip --stepwise-skip
    """
)
# pytest reads `@file` as more arguments, one a line (argparse's
# fromfile_prefix_chars); files longer than this are left unread (unknown).
_MAX_ARGS_FILE = 64 * 1024

_UNITTEST = OptionSpec(
    words(
        """
    -k --durations -s --start-directory -p --pattern -t --top-level-directory
    """
    ),
    flags=frozenset(("--locals", "--verbose", "--quiet", "--failfast", "--catch", "--buffer")),
    short_values="kspt",
)

_DJANGO_TEST = OptionSpec(
    words(
        """
        --settings --pythonpath -v --verbosity --testrunner -t --top-level-directory -p
        --pattern --tag --exclude-tag -k --durations
        """
    ),
    flags=words(
        """
        --noinput --no-input --failfast --keepdb --reverse --debug-mode --debug-sql
        --buffer -b --pdb --timing --traceback --no-color --force-color
        """
    ),
    optional=words("--parallel --shuffle"),
    short_values="vtpk",
)


def relative_to_root(word: str, root: str | None) -> str:
    """An absolute path under ``root`` as a root-relative one (``..`` resolved
    first, so ``/root/../root/tests`` is ``tests``)."""
    if root and word.startswith("/"):
        path, sep, node = word.partition("::")
        word = posixpath.normpath(path) + sep + node
        prefix = root.rstrip("/") + "/"
        if word == root.rstrip("/"):
            return "."
        if word.startswith(prefix):
            return word[len(prefix) :]
    return word


def selects_everything(expression: str) -> bool:
    """Whether a ``-k`` expression selects nothing out: only the empty one
    (``-k ''``), which pytest treats as no ``-k`` at all.

    An expression with words — ``not test_x``, ``a or not b`` — is a filter
    here (the held-out corpus labels it so): how much it leaves out is known
    only once pytest has collected, and the governor's pytest plugin judges
    that. ``-k 'not nothing'`` is thus a sweep the plugin stops,
    not the hook."""
    return not expression.strip()


def _read_args_file(word: str, root: str | None) -> list[str] | None:
    """The arguments of pytest's ``@file``, or None when it cannot be read."""
    path = word[1:]
    if not path:
        return None
    if not os.path.isabs(path):
        if root is None:
            return None
        path = os.path.join(root, path)
    try:
        with open(path, "rb") as handle:  # os only: pathlib costs an import
            data = handle.read(_MAX_ARGS_FILE + 1)
    except (OSError, ValueError):
        return None
    if len(data) > _MAX_ARGS_FILE:
        return None
    return [line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip()]


def _expand_args_files(
    argv: list[str], dynamic: list[bool], root: str | None
) -> tuple[list[str], list[bool]]:
    """``pytest @args.txt``: the file's arguments in place; an unreadable file
    becomes an unknown (dynamic) word, which never demotes a run to filtered."""
    if not any(word.startswith("@") for word in argv[1:]):
        return argv, dynamic
    out, flags = [argv[0]], [dynamic[0]]
    for word, is_dynamic in zip(argv[1:], dynamic[1:], strict=True):
        if word.startswith("@") and not is_dynamic:
            expanded = _read_args_file(word, root)
            if expanded is None:
                out.append(word)
                flags.append(True)
            else:
                out.extend(expanded)
                flags.extend([False] * len(expanded))
            continue
        out.append(word)
        flags.append(is_dynamic)
    return out, flags


def pytest_rule(call: Call) -> Match | None:
    argv, dynamic, root = call.argv, call.dynamic, call.root
    argv, dynamic = _expand_args_files(argv, dynamic, root)
    addopts = call.env.get("PYTEST_ADDOPTS")
    if addopts:
        # pytest reads these options as if written first on its command line.
        extra = [word for command in split_commands(addopts) for word in command.words]
        argv = [argv[0], *(word.value for word in extra), *argv[1:]]
        dynamic = [dynamic[0], *(word.dynamic for word in extra), *dynamic[1:]]
    match = Match("pytest")
    positionals: list[tuple[int, str, str]] = []  # (index, as written, normalised)
    names: list[tuple[int, list[str], str]] = []  # (index, as written, name filter)
    pyargs = False
    for option, value, index, end in scan(argv, 1, _PYTEST):
        if option is None:
            if not dynamic[index]:
                path = normalise_path(relative_to_root(value, root))
                positionals.append((index, value, path))
        elif option == DASHDASH:
            continue
        elif option in _PYTEST_NOT_A_RUN:
            return None
        elif option == "-k":
            if dynamic[index] or (end > index + 1 and dynamic[end - 1]):
                match.narrowing.append(option)  # unknown: never demotes the run
            elif selects_everything(value):
                match.narrowing.append(" ".join(argv[index:end]))
            else:
                names.append((index, argv[index:end], value))
        elif option == "-m":
            match.markers = value
        elif option in _PYTEST_RERUN_FAILED:
            names.append((index, argv[index:end], option))
        elif option in _PYTEST_NARROWING:
            match.narrowing.append(" ".join(argv[index:end]))
        elif option == "--pyargs":
            pyargs = True
    plain = [path for _, _, path in positionals if "::" not in path]
    if positionals and not pyargs and covers_whole_tree(plain, root):
        positionals = []  # the whole test root: the full suite, not a filter
    selected: list[tuple[int, bool, list[str], str]] = []  # (index, is a path, written, value)
    for index, written, path in positionals:
        is_path = not pyargs or looks_like_path(written)
        selected.append((index, is_path, [written], path if is_path else written))
    selected += [(index, False, written, name) for index, written, name in names]
    for _, is_path, as_written, value in sorted(selected, key=lambda item: item[0]):
        if is_path:
            match.path(as_written, value)
        else:
            match.name(as_written, value)
    return match


def unittest_rule(call: Call) -> Match | None:
    argv, dynamic, root = call.argv, call.dynamic, call.root
    match = Match("unittest")
    discover = False
    start_dir: tuple[str, int, int] | None = None
    names: list[tuple[str, int]] = []
    for option, value, index, end in scan(argv, 1, _UNITTEST):
        if option is None:
            if not names and not discover and value == "discover" and start_dir is None:
                discover = True
            elif discover:
                if start_dir is None and not dynamic[index]:
                    start_dir = (value, index, end)
                # later positionals are the pattern and the top-level dir: not selectors
            elif not dynamic[index]:
                names.append((value, index))
        elif option in ("-h", "--help"):
            return None
        elif option == "-k":
            match.name(argv[index:end], value)
        elif option in ("-s", "--start-directory"):
            start_dir = (value, index, end)
    if discover and start_dir is not None:
        path = normalise_path(relative_to_root(start_dir[0], root))
        if not covers_whole_tree([path], root):
            match.path(argv[start_dir[1] : start_dir[2]], path)
    elif names:
        normalised = [normalise_path(relative_to_root(word, root)) for word, _ in names]
        if not covers_whole_tree(normalised, root):
            for (word, _), path in zip(names, normalised, strict=True):
                if looks_like_path(word):
                    match.path([word], path)
                else:
                    match.name([word], word)
    return match


def django_rule(call: Call) -> Match | None:
    """``manage.py test [labels]`` / ``django-admin test``: Django's runner is unittest."""
    argv, dynamic, root = call.argv, call.dynamic, call.root
    if len(argv) < 2 or argv[1] != "test":
        return None
    match = Match("unittest")
    labels: list[str] = []
    for option, value, index, end in scan(argv, 2, _DJANGO_TEST):
        if option is None:
            if not dynamic[index]:
                labels.append(value)
        elif option in ("-h", "--help"):
            return None
        elif option == "-k":
            match.name(argv[index:end], value)
    normalised = [normalise_path(relative_to_root(label, root)) for label in labels]
    if labels and not covers_whole_tree(normalised, root):
        for label, path in zip(labels, normalised, strict=True):
            if looks_like_path(label):
                match.path([label], path)
            else:
                match.name([label], label)
    return match
