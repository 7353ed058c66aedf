"""The runner table, row by row: recognition, what makes a run filtered, and
the forms that are not test runs at all."""

from __future__ import annotations

import pytest

from lanes.governor.classify.classifier import classify
from lanes.governor.classify.runners.names import RUNNERS

# (command, runner, scope, selectors)
ROWS: list[tuple[str, str, str, list[str]]] = [
    # pytest: positional path or node id; -k
    ("pytest", "pytest", "full", []),
    ("py.test -q", "pytest", "full", []),
    ("python -m pytest -x", "pytest", "full", []),
    ("pytest tests/test_a.py", "pytest", "filtered", ["tests/test_a.py"]),
    ("pytest tests/a.py::TestA::test_b", "pytest", "filtered", ["tests/a.py::TestA::test_b"]),
    ("pytest -k 'smoke and not slow'", "pytest", "filtered", ["-k", "smoke and not slow"]),
    ("pytest -ksmoke", "pytest", "filtered", ["-ksmoke"]),
    ("pytest -xk smoke", "pytest", "filtered", ["-xk", "smoke"]),
    ("pytest --lf", "pytest", "filtered", ["--lf"]),
    ("pytest -m 'not slow'", "pytest", "full", []),
    # unittest: module/test names; -k; discover -s DIR or a start dir
    ("python -m unittest", "unittest", "full", []),
    ("python3 -m unittest -v", "unittest", "full", []),
    ("python -m unittest tests.test_x.TestX", "unittest", "filtered", ["tests.test_x.TestX"]),
    ("python -m unittest -k smoke", "unittest", "filtered", ["-k", "smoke"]),
    ("python -m unittest discover", "unittest", "full", []),
    ("python -m unittest discover -s tests/unit", "unittest", "filtered", ["-s", "tests/unit"]),
    ("python -m unittest discover tests/unit", "unittest", "filtered", ["tests/unit"]),
    ("python -m unittest discover -s tests -p 'test_*.py'", "unittest", "full", []),
    # go: -run; package patterns other than ./...
    ("go test ./...", "go", "full", []),
    ("go test -v -race -count=1 ./...", "go", "full", []),
    ("go test", "go", "full", []),
    ("go test ./pkg/...", "go", "filtered", ["./pkg/..."]),
    ("go test ./pkg", "go", "filtered", ["./pkg"]),
    ("go test example.com/x", "go", "filtered", ["example.com/x"]),
    ("go test -run TestFoo ./...", "go", "filtered", ["-run", "TestFoo"]),
    ("go test -run=TestFoo ./...", "go", "filtered", ["-run=TestFoo"]),
    ("gotestsum --format testname -- -race ./...", "go", "full", []),
    ("gotestsum -- ./internal/...", "go", "filtered", ["./internal/..."]),
    # cargo: test-name filter; --test, --lib, --bin, --doc, -p/--package
    ("cargo test", "cargo", "full", []),
    ("cargo test --workspace --all-features", "cargo", "full", []),
    ("cargo test parser", "cargo", "filtered", ["parser"]),
    ("cargo test --test integration", "cargo", "filtered", ["--test", "integration"]),
    ("cargo test --lib", "cargo", "filtered", ["--lib"]),
    ("cargo test --bin cli", "cargo", "filtered", ["--bin", "cli"]),
    ("cargo test --doc", "cargo", "filtered", ["--doc"]),
    ("cargo test -p core", "cargo", "filtered", ["-p", "core"]),
    ("cargo test --package=core", "cargo", "filtered", ["--package=core"]),
    ("cargo test -- --nocapture", "cargo", "full", []),
    ("cargo test -- parser::tests --exact", "cargo", "filtered", ["parser::tests"]),
    ("cargo nextest run", "cargo", "full", []),
    ("cargo nextest run -E 'test(=a)'", "cargo", "filtered", ["-E", "test(=a)"]),
    # npm, yarn, pnpm, bun
    ("npm test", "npm", "full", []),
    ("npm t", "npm", "full", []),
    ("npm run test", "npm", "full", []),
    ("npm run test:unit", "npm", "full", []),
    ("npm run test-ci", "npm", "full", []),
    ("npm test -- --coverage", "npm", "full", []),
    ("npm test -- src/a.test.js", "npm", "filtered", ["src/a.test.js"]),
    ("npm test -- -t renders", "npm", "filtered", ["-t", "renders"]),
    ("npm run test --workspace=api", "npm", "filtered", ["--workspace=api"]),
    ("npm test -w api", "npm", "filtered", ["-w", "api"]),
    ("npm test --workspaces", "npm", "full", []),
    ("yarn test", "yarn", "full", []),
    ("yarn run test", "yarn", "full", []),
    ("yarn test:e2e", "yarn", "full", []),
    ("yarn test src/a.test.ts", "yarn", "filtered", ["src/a.test.ts"]),
    ("yarn workspace web test", "yarn", "filtered", ["workspace", "web"]),
    ("yarn workspaces foreach --all run test", "yarn", "full", []),
    ("pnpm test", "pnpm", "full", []),
    ("pnpm run test", "pnpm", "full", []),
    ("pnpm --filter web test", "pnpm", "filtered", ["--filter", "web"]),
    ("pnpm -F web test", "pnpm", "filtered", ["-F", "web"]),
    ("pnpm --filter=web run test", "pnpm", "filtered", ["--filter=web"]),
    ("pnpm -r test", "pnpm", "full", []),
    ("bun test", "bun", "full", []),
    ("bun test src/math.test.ts", "bun", "filtered", ["src/math.test.ts"]),
    ("bun test -t adds", "bun", "filtered", ["-t", "adds"]),
    ("bun run test", "bun", "full", []),
    # jest, vitest
    ("jest", "jest", "full", []),
    ("npx jest --ci --coverage", "jest", "full", []),
    ("jest src/a.test.js", "jest", "filtered", ["src/a.test.js"]),
    ("jest -t 'renders header'", "jest", "filtered", ["-t", "renders header"]),
    ("jest --testNamePattern=header", "jest", "filtered", ["--testNamePattern=header"]),
    ("jest --maxWorkers 2 --reporters default jest-junit", "jest", "full", []),
    ("vitest", "vitest", "full", []),
    ("vitest run", "vitest", "full", []),
    ("vitest run src/a.test.ts", "vitest", "filtered", ["src/a.test.ts"]),
    ("vitest run -t adds", "vitest", "filtered", ["-t", "adds"]),
    ("vitest related src/a.ts", "vitest", "filtered", ["related", "src/a.ts"]),
    ("vitest run --reporter verbose --pool forks", "vitest", "full", []),
    # playwright
    ("playwright test", "playwright", "full", []),
    ("npx playwright test --project=chromium", "playwright", "full", []),
    ("npx playwright test tests/login.spec.ts", "playwright", "filtered", ["tests/login.spec.ts"]),
    ("npx playwright test -g login", "playwright", "filtered", ["-g", "login"]),
    ("npx playwright test --grep @smoke", "playwright", "filtered", ["--grep", "@smoke"]),
    # dotnet
    ("dotnet test", "dotnet", "full", []),
    ("dotnet test App.sln", "dotnet", "full", []),
    ("dotnet test App.slnx -c Release", "dotnet", "full", []),
    ("dotnet test tests/Unit/Unit.csproj", "dotnet", "filtered", ["tests/Unit/Unit.csproj"]),
    ("dotnet test tests/Unit", "dotnet", "filtered", ["tests/Unit"]),
    ("dotnet test --filter Category=Unit", "dotnet", "filtered", ["--filter", "Category=Unit"]),
    ("dotnet test -c Release --no-build /p:CollectCoverage=true", "dotnet", "full", []),
    # maven
    ("mvn test", "maven", "full", []),
    ("mvn -B verify", "maven", "full", []),
    ("./mvnw clean install", "maven", "full", []),
    ("mvn package", "maven", "full", []),
    ("mvn deploy", "maven", "full", []),
    ("mvn surefire:test", "maven", "full", []),
    ("mvn test -Dtest=FooTest", "maven", "filtered", ["-Dtest=FooTest"]),
    ("mvn test -Dtest=FooTest#bar", "maven", "filtered", ["-Dtest=FooTest#bar"]),
    ("mvn -pl core test", "maven", "filtered", ["-pl", "core"]),
    ("mvn --projects core,api verify", "maven", "filtered", ["--projects", "core,api"]),
    ("mvn -DskipTests=false install", "maven", "full", []),
    # gradle
    ("gradle test", "gradle", "full", []),
    ("./gradlew check", "gradle", "full", []),
    ("./gradlew build --no-daemon", "gradle", "full", []),
    ("./gradlew :core:test", "gradle", "filtered", [":core:test"]),
    ("./gradlew test --tests com.x.FooTest", "gradle", "filtered", ["--tests", "com.x.FooTest"]),
    ("./gradlew test --tests=*Foo*", "gradle", "filtered", ["--tests=*Foo*"]),
    # mix
    ("mix test", "mix", "full", []),
    ("MIX_ENV=test mix test --cover", "mix", "full", []),
    ("mix test test/x_test.exs:12", "mix", "filtered", ["test/x_test.exs:12"]),
    ("mix test --include slow --seed 0", "mix", "full", []),
    ("mix test --failed", "mix", "filtered", ["--failed"]),
    # phpunit
    ("phpunit", "phpunit", "full", []),
    ("vendor/bin/phpunit", "phpunit", "full", []),
    ("vendor/bin/phpunit -c phpunit.xml.dist", "phpunit", "full", []),
    ("vendor/bin/phpunit tests/Unit", "phpunit", "filtered", ["tests/Unit"]),
    ("vendor/bin/phpunit --filter testFoo", "phpunit", "filtered", ["--filter", "testFoo"]),
    ("vendor/bin/phpunit --testsuite unit", "phpunit", "filtered", ["--testsuite", "unit"]),
    ("php vendor/bin/phpunit --coverage-clover build/clover.xml", "phpunit", "full", []),
    # rake / rails
    ("rake test", "rake", "full", []),
    ("bundle exec rake test", "rake", "full", []),
    ("bin/rails test", "rake", "full", []),
    (
        "rake test TEST=test/models/user_test.rb",
        "rake",
        "filtered",
        ["TEST=test/models/user_test.rb"],
    ),
    ("rake test TESTOPTS=--name=test_foo", "rake", "filtered", ["TESTOPTS=--name=test_foo"]),
    (
        "bin/rails test test/models/user_test.rb:12",
        "rake",
        "filtered",
        ["test/models/user_test.rb:12"],
    ),
    ("bin/rails test -n test_saves", "rake", "filtered", ["-n", "test_saves"]),
    # swift
    ("swift test", "swift", "full", []),
    ("swift test --parallel -c release", "swift", "full", []),
    ("swift test --filter ParserTests", "swift", "filtered", ["--filter", "ParserTests"]),
]


@pytest.mark.parametrize(("command", "runner", "scope", "selectors"), ROWS)
def test_runner_table_row(command: str, runner: str, scope: str, selectors: list[str]) -> None:
    result = classify(command)
    assert [inv.runner for inv in result.invocations] == [runner]
    invocation = result.invocations[0]
    assert (invocation.scope, list(invocation.selectors)) == (scope, selectors)
    assert result.scope == scope


def test_every_canonical_runner_has_rows() -> None:
    assert {runner for _, runner, _, _ in ROWS} == set(RUNNERS)


def test_a_filtered_run_sorts_each_selector_into_paths_or_name_filters() -> None:
    for command, _, scope, _ in ROWS:
        invocation = classify(command).invocations[0]
        has_selector = bool(invocation.paths or invocation.name_filters)
        assert has_selector == (scope == "filtered"), command


@pytest.mark.parametrize(
    "command",
    [
        # pytest listing / help / version forms
        "pytest --version",
        "pytest -V",
        "pytest --help",
        "pytest -h",
        "pytest --collect-only",
        "pytest --co -q",
        "python -m pytest --fixtures",
        "pytest --markers",
        "pytest --setup-plan tests",
        "python -m unittest --help",
        # compile-only and listing
        "go test -c ./pkg",
        "go test -list . ./...",
        "go test -run '^$' -bench . ./...",
        "cargo test --no-run",
        "cargo test -- --list",
        "cargo nextest list",
        "jest --listTests",
        "npx jest --showConfig",
        "vitest list",
        "npx vitest bench",
        "playwright test --list",
        "npx playwright install --with-deps",
        "npx playwright show-report",
        "dotnet test --list-tests",
        "dotnet build",
        "swift test --list-tests",
        "swift test list",
        "swift build",
        "vendor/bin/phpunit --list-tests",
        "vendor/bin/phpunit --version",
        "rake -T",
        # skipping builds
        "mvn -DskipTests install",
        "mvn -DskipTests=true package",
        "mvn -Dmaven.test.skip=true verify",
        "mvn -B clean compile",
        "mvn -v",
        "./gradlew build -x test",
        "./gradlew build --exclude-task test",
        "./gradlew check -x test",
        "./gradlew build -x check",
        "./gradlew assemble",
        "./gradlew compileTestJava",
        "./gradlew assembleAndroidTest",
        "./gradlew --dry-run test",
        # installs and look-ups
        "pip install pytest",
        "python -m pip install -U pytest pytest-cov",
        "uv pip install pytest",
        "npm install --save-dev jest",
        "npm ci",
        "npm run build",
        "npm run lint -- --fix",
        "yarn add -D vitest",
        "pnpm install --frozen-lockfile",
        "cargo install cargo-nextest",
        "go install gotest.tools/gotestsum@latest",
        "which pytest",
        "command -v pytest",
        "type pytest",
        "go vet ./...",
        "go build ./...",
        "cargo build --release",
        "mix compile",
    ],
)
def test_not_a_test_run(command: str) -> None:
    assert classify(command).scope == "none"


@pytest.mark.parametrize(
    ("command", "selectors"),
    [
        # Every value-taking option consumes its value: nothing here selects.
        ("pytest -c tox.ini", []),
        ("pytest --config-file pytest.ini", []),
        ("pytest --durations 10 -n 4 --dist loadscope", []),
        ("pytest --cov-report term --cov-report xml:cov.xml", []),
        ("pytest --cov src --cov-branch", []),
        ("pytest --timeout 30 --timeout-method thread", []),
        ("pytest -p no:randomly -p xdist", []),
        ("pytest -o addopts='' --basetemp tmp/x", []),
        ("pytest --junitxml reports/junit.xml", []),
        ("pytest -W error::DeprecationWarning", []),
        ("pytest --rootdir . --confcutdir src", []),
        ("pytest --ignore tests/slow --deselect tests/a.py::t", []),
        ("pytest -m slow", []),
        ("pytest -r a --tb short --maxfail 1", []),
        ("pytest --reruns 2 --reruns-delay 1 --randomly-seed 12", []),
        ("go test -coverprofile cover.out -covermode atomic ./...", []),
        ("go test -timeout 10m -count 1 -p 4 -tags integration ./...", []),
        ("cargo test --target x86_64-unknown-linux-gnu --features full -j 4", []),
        ("cargo test -- --test-threads 1 --skip slow", []),
        ("mix test --include integration --exclude slow --seed 0", []),
        ("mix test --max-failures 1 --slowest 10", []),
        ("dotnet test -c Release -f net8.0 --logger trx --results-directory out", []),
        ("jest --config jest.config.js --shard 1/4", []),
        ("vitest run --config vite.config.ts --shard 1/2 --reporter dot", []),
        ("playwright test --workers 4 --reporter html --retries 2", []),
        ("swift test -Xswiftc -warnings-as-errors --num-workers 4", []),
        ("./gradlew test --max-workers 2 --console plain -Pci=true", []),
        ("mvn -T 4 -P ci -f core/pom.xml test", []),
        ("vendor/bin/phpunit --log-junit out.xml --coverage-html cov", []),
        # ... and a path after them still selects.
        ("pytest --durations 10 tests/test_a.py", ["tests/test_a.py"]),
        ("pytest -n 4 tests/unit", ["tests/unit"]),
        ("go test -timeout 5m ./pkg/...", ["./pkg/..."]),
    ],
)
def test_option_values_are_never_selectors(command: str, selectors: list[str]) -> None:
    (invocation,) = classify(command).invocations
    assert list(invocation.selectors) == selectors


@pytest.mark.parametrize(
    "command",
    [
        "pytest --some-plugin-flag",
        "pytest --frobnicate 3",
        "pytest -X",
        "go test -someflag ./...",
        "cargo test --frobnicate",
        "npm test -- --frobnicate",
        "jest --frobnicate",
        "vitest run --frobnicate",
        "playwright test --frobnicate",
        "dotnet test --frobnicate",
        "mvn test --frobnicate",
        "./gradlew test --frobnicate",
        "mix test --frobnicate",
        "phpunit --frobnicate",
        "swift test --frobnicate",
    ],
)
def test_an_unrecognised_flag_never_demotes_to_filtered(command: str) -> None:
    assert classify(command).scope == "full"


def test_pytest_markers_and_name_filters_are_reported_apart() -> None:
    (invocation,) = classify("pytest tests/a.py -k smoke -m 'not slow'").invocations
    assert invocation.paths == ("tests/a.py",)
    assert invocation.name_filters == ("smoke",)
    assert invocation.markers == "not slow"


def test_paths_are_normalised_and_node_ids_keep_their_parts() -> None:
    (invocation,) = classify("pytest ./tests/unit/ ./tests/a.py::T::t[1]").invocations
    assert invocation.paths == ("tests/unit", "tests/a.py::T::t[1]")
    assert invocation.selectors == ("./tests/unit/", "./tests/a.py::T::t[1]")


def test_an_expansion_is_not_a_selector() -> None:
    # `$(...)` is unknown until run time; an unknown never demotes to filtered.
    assert classify("go test $(go list ./... | grep -v /vendor/)").scope == "full"
    assert classify('pytest "$TEST_DIR"').scope == "full"


def test_package_managers_delegate_to_the_runner_they_run() -> None:
    for command, runner, selectors in [
        ("yarn jest src/a.test.ts", "jest", ["src/a.test.ts"]),
        ("pnpm vitest run", "vitest", []),
        ("pnpm exec vitest run", "vitest", []),
        ("pnpm --filter web exec vitest run", "vitest", ["--filter", "web"]),
        ("npm exec -- jest -t x", "jest", ["-t", "x"]),
        ("npx jest@29 --ci", "jest", []),
        ("bunx vitest run", "vitest", []),
        ("yarn playwright test", "playwright", []),
        ("yarn dlx jest", "jest", []),
    ]:
        (invocation,) = classify(command).invocations
        assert (invocation.runner, list(invocation.selectors)) == (runner, selectors), command


def test_inline_env_selects_a_rake_test() -> None:
    (invocation,) = classify("TEST=test/a_test.rb bundle exec rake test").invocations
    assert invocation.scope == "filtered"
    assert invocation.env == {"TEST": "test/a_test.rb"}


def test_rake_testopts_without_a_name_filter_stays_full() -> None:
    assert classify('rake test TESTOPTS="-v"').scope == "full"


def test_pytest_addopts_from_inline_env_count_as_written() -> None:
    (invocation,) = classify('PYTEST_ADDOPTS="-k smoke -n 4" pytest').invocations
    assert (invocation.scope, invocation.selectors) == ("filtered", ("-k", "smoke"))
    assert classify("PYTEST_ADDOPTS='-x -n 4' pytest").scope == "full"
    assert classify("PYTEST_ADDOPTS=--version pytest").scope == "none"


@pytest.mark.parametrize(
    ("command", "scope", "selectors"),
    [
        ("python manage.py test", "full", []),
        ("python manage.py test --parallel --keepdb", "full", []),
        ("./manage.py test --settings app.settings.ci -v 2", "full", []),
        ("python manage.py test polls", "filtered", ["polls"]),
        ("python manage.py test polls.tests.QuestionTests -k recent", "filtered",
         ["polls.tests.QuestionTests", "-k", "recent"]),
        ("django-admin test --settings x.settings", "full", []),
        ("python -m django test", "full", []),
    ],
)  # fmt: skip
def test_django_test_is_a_unittest_run(command: str, scope: str, selectors: list[str]) -> None:
    (invocation,) = classify(command).invocations
    assert (invocation.runner, invocation.scope) == ("unittest", scope)
    assert sorted(invocation.selectors) == sorted(selectors)
    assert classify("python manage.py migrate").scope == "none"
