"""Wrappers are stripped before the runner is recognised, their own options
(and their values) never taken for the wrapped command."""

from __future__ import annotations

import pytest

from lanes.governor.classify.classifier import classify


@pytest.mark.parametrize(
    "command",
    [
        "env pytest tests/a.py",
        "env -i PATH=/usr/bin pytest tests/a.py",
        "env -u HOME -C /tmp A=1 pytest tests/a.py",
        "env -S 'pytest tests/a.py'",
        "env - PATH=/bin pytest tests/a.py",
        "env $(cat .env | xargs) pytest tests/a.py",
        'env "$EXTRA" A=1 pytest tests/a.py',
        "time pytest tests/a.py",
        "time -p pytest tests/a.py",
        "/usr/bin/time -v -o t.txt pytest tests/a.py",
        "nice pytest tests/a.py",
        "nice -n 10 pytest tests/a.py",
        "nice -10 pytest tests/a.py",
        "ionice -c 3 pytest tests/a.py",
        "ionice -c2 -n7 pytest tests/a.py",
        "timeout 60 pytest tests/a.py",
        "timeout -s KILL 5m pytest tests/a.py",
        "timeout --signal=INT -k 10 300 pytest tests/a.py",
        "timeout --preserve-status 1h pytest tests/a.py",
        "xvfb-run pytest tests/a.py",
        "xvfb-run -a -s '-screen 0 1024x768x24' pytest tests/a.py",
        "xvfb-run --auto-servernum --server-args='-screen 0 1280x1024x24' pytest tests/a.py",
        "sudo pytest tests/a.py",
        "sudo -u ci -E pytest tests/a.py",
        "sudo -E env PATH=$PATH pytest tests/a.py",
        "command pytest tests/a.py",
        "exec pytest tests/a.py",
        "stdbuf -oL -eL pytest tests/a.py",
        "stdbuf -o L pytest tests/a.py",
        "taskset -c 0,1 pytest tests/a.py",
        "taskset 0x3 pytest tests/a.py",
        "nohup pytest tests/a.py",
        "uv run pytest tests/a.py",
        "uv run --frozen --with pytest-cov pytest tests/a.py",
        "uv run -p 3.12 --extra test pytest tests/a.py",
        "uv --directory sub run pytest tests/a.py",
        "uv run -m pytest tests/a.py",
        "uv run --module pytest tests/a.py",
        "uv run -- pytest tests/a.py",
        "uvx pytest tests/a.py",
        "uvx --from pytest==8.3 pytest tests/a.py",
        "uv tool run pytest@8 tests/a.py",
        "pipx run pytest tests/a.py",
        "pipx run --spec pytest==8.3 pytest tests/a.py",
        "poetry run pytest tests/a.py",
        "poetry -C sub run pytest tests/a.py",
        "pdm run pytest tests/a.py",
        "pdm run -p sub pytest tests/a.py",
        "hatch run pytest tests/a.py",
        "hatch run test:pytest tests/a.py",
        "hatch -e test run pytest tests/a.py",
        "hatch test tests/a.py",
        "pipenv run pytest tests/a.py",
        "rye run pytest tests/a.py",
        "conda run pytest tests/a.py",
        "conda run -n ci pytest tests/a.py",
        "conda run --no-capture-output --name ci pytest tests/a.py",
        "mamba run -n ci pytest tests/a.py",
        "coverage run -m pytest tests/a.py",
        "coverage run --source=src --branch -m pytest tests/a.py",
        "coverage run --rcfile .coveragerc -m pytest tests/a.py",
        "coverage run .venv/bin/pytest tests/a.py",
        "python -m pytest tests/a.py",
        "python3 -m pytest tests/a.py",
        "python3.12 -m pytest tests/a.py",
        "python -X dev -W error -m pytest tests/a.py",
        "python -bb -u -m pytest tests/a.py",
        "python -m coverage run -m pytest tests/a.py",
        "py -3.12 -m pytest tests/a.py",
        ".venv/bin/pytest tests/a.py",
        ".venv/bin/python -m pytest tests/a.py",
        "/usr/local/bin/python3 -m pytest tests/a.py",
        "venv/Scripts/pytest.exe tests/a.py",
        "timeout 60 uv run env A=1 nice -n 5 python -m pytest tests/a.py",
        "bash -c 'timeout 60 pytest tests/a.py'",
    ],
)
def test_wrapper_is_stripped(command: str) -> None:
    (invocation,) = classify(command).invocations
    assert (invocation.runner, invocation.paths) == ("pytest", ("tests/a.py",))
    assert invocation.segment.argv[-1] == "tests/a.py"


@pytest.mark.parametrize(
    ("command", "runner"),
    [
        ("bundle exec rake test", "rake"),
        ("bundle exec rails test", "rake"),
        ("npx jest", "jest"),
        ("npx --yes jest", "jest"),
        ("npx -y vitest run", "vitest"),
        ("npx -p @playwright/test playwright test", "playwright"),
        ("pnpm exec jest", "jest"),
        ("pnpm dlx vitest run", "vitest"),
        ("bunx jest", "jest"),
        ("./node_modules/.bin/jest", "jest"),
        ("node_modules/.bin/vitest run", "vitest"),
        ("node node_modules/jest/bin/jest.js", "jest"),
        ("node --max-old-space-size=4096 node_modules/.bin/jest", "jest"),
        ("vendor/bin/phpunit", "phpunit"),
        ("php -d memory_limit=-1 vendor/bin/phpunit", "phpunit"),
        ("./gradlew test", "gradle"),
        ("gradlew.bat test", "gradle"),
        ("./mvnw test", "maven"),
        ("mvnw.cmd verify", "maven"),
        ("bin/rails test", "rake"),
        ("bin/rake test", "rake"),
        ("xvfb-run -a npm test", "npm"),
        ("sudo -E go test ./...", "go"),
        ("timeout 600 cargo test", "cargo"),
        ("time dotnet test", "dotnet"),
        ("nice mix test", "mix"),
        ("doas swift test", "swift"),
        ("git diff --name-only | xargs -r pytest", "pytest"),
        ("find . -name '*_test.go' -print0 | xargs -0 -n 1 go test", "go"),
    ],
)
def test_wrapped_runners_of_every_ecosystem(command: str, runner: str) -> None:
    assert [inv.runner for inv in classify(command).invocations] == [runner]


@pytest.mark.parametrize(
    "command",
    [
        "command -v pytest",
        "command -V jest",
        "sudo -l",
        "ionice -p 1234",
        "taskset -p 1234",
        "python -c 'import pytest'",
        "python - <<'EOF'\nimport pytest\nEOF",
        "uv pip install pytest",
        "uv sync --extra test",
        "poetry install --with test",
        "poetry add --group dev pytest",
        "coverage report -m",
        "coverage combine",
        "timeout 60",
        "env",
        "env A=1",
        "nice",
        "uv run",
        "python script.py",
        "node --test",
        "node -e 'require(\"jest\")'",
    ],
)
def test_wrappers_that_run_no_test(command: str) -> None:
    assert classify(command).scope == "none"


def test_wrapper_env_is_recorded() -> None:
    (invocation,) = classify("env LANES_TEST_FORCE=1 pytest").invocations
    assert invocation.env == {"LANES_TEST_FORCE": "1"}
    (invocation,) = classify("sudo CI=1 pytest").invocations
    assert invocation.env == {"CI": "1"}


def test_segment_argv_is_the_wrapped_command() -> None:
    (segment,) = classify("LANES_TEST_FORCE=1 timeout 5 uv run make verify").segments
    assert segment.argv == ("make", "verify")
    assert segment.env == {"LANES_TEST_FORCE": "1"}
    (segment,) = classify("python -m pytest -q").segments
    assert segment.argv == ("pytest", "-q")


@pytest.mark.parametrize(
    "command",
    [
        "docker compose run --rm app pytest tests/a.py",
        "docker compose -f ci.yml run --rm -e CI=1 -T app pytest tests/a.py",
        "docker-compose exec -T web pytest tests/a.py",
        "docker compose exec -u app -w /src web python -m pytest tests/a.py",
        "docker run --rm -v $PWD:/src -w /src python:3.12 pytest tests/a.py",
        "docker run -it --rm --network host -e CI=1 img:1 pytest tests/a.py",
        "docker exec -it ci pytest tests/a.py",
        "podman run --rm img pytest tests/a.py",
        "docker container exec ci pytest tests/a.py",
        "kubectl exec -n ci pod/x -- pytest tests/a.py",
    ],
)
def test_container_commands_run_what_they_wrap(command: str) -> None:
    (invocation,) = classify(command).invocations
    assert (invocation.runner, invocation.paths) == ("pytest", ("tests/a.py",))


@pytest.mark.parametrize(
    "command",
    ["docker compose up -d", "docker build -t x .", "docker ps", "kubectl get pods"],
)
def test_container_commands_that_run_no_test(command: str) -> None:
    assert classify(command).scope == "none"


def test_xargs_arguments_are_unknown_so_the_run_stays_full() -> None:
    assert classify("git ls-files tests | xargs pytest -q").scope == "full"
    assert classify("ls tests | xargs -I{} pytest tests/{}").scope == "filtered"
