"""Container wrappers: the test run inside ``docker compose run --rm app pytest``.

A suite run in a container is still this project's suite, so the command the
container runs is classified like any other: ``docker``/``podman`` ``run`` and
``exec``, ``docker compose`` / ``docker-compose`` ``run`` and ``exec``, and
``kubectl exec POD -- cmd``. Imported only when a command starts with one of
these programs.
"""

from __future__ import annotations

from lanes.governor.classify.runners.argscan import words
from lanes.governor.classify.wrappers import Unwrapped, skip_options

__all__ = ["unwrap_container"]

_COMPOSE_GLOBAL_VALUES = words(
    """
    -f --file -p --project-name --profile --env-file --project-directory --ansi --progress
    --parallel
    """
)
_COMPOSE_RUN_VALUES = words(
    """
    -e --env -l --label --name -p --publish -u --user -v --volume -w --workdir --entrypoint
    --env-from-file --pull --cap-add --cap-drop --index --detach-keys
    """
)
_DOCKER_GLOBAL_VALUES = words(
    "-c --context -H --host -l --log-level --config --tlscacert --tlscert --tlskey"
)
# `docker run` takes many options, nearly all with a value; these are its flags.
_DOCKER_RUN_FLAGS = words(
    """
    --rm -d --detach -i --interactive -t --tty -it -ti -P --publish-all --init --privileged
    --read-only -q --quiet --no-healthcheck --oom-kill-disable --sig-proxy
    """
)


def unwrap_container(argv: list[str], name: str) -> Unwrapped | None:
    """Where the command a container program runs starts, or ``None``."""
    if name in ("kubectl", "oc"):
        return _after_dashdash(argv)
    if name in ("docker-compose", "podman-compose"):
        return _compose(argv, 1)
    i = skip_options(argv, 1, _DOCKER_GLOBAL_VALUES)
    if i >= len(argv):
        return None
    verb = argv[i]
    if verb == "compose":
        return _compose(argv, i + 1)
    if verb == "container" and i + 1 < len(argv):
        i += 1
        verb = argv[i]
    if verb in ("run", "exec"):
        return _image_then_command(argv, i + 1)
    return None


def _compose(argv: list[str], i: int) -> Unwrapped | None:
    i = skip_options(argv, i, _COMPOSE_GLOBAL_VALUES)
    if i >= len(argv) or argv[i] not in ("run", "exec"):
        return None
    i = skip_options(argv, i + 1, _COMPOSE_RUN_VALUES)
    return Unwrapped(i + 1) if i + 1 < len(argv) else None  # past the SERVICE


def _image_then_command(argv: list[str], i: int) -> Unwrapped | None:
    n = len(argv)
    while i < n and argv[i].startswith("-"):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        takes_value = arg not in _DOCKER_RUN_FLAGS and "=" not in arg
        if takes_value and not arg.startswith("--") and len(arg) > 2:
            takes_value = False  # `-eFOO=1`, `-it` style: value glued or a flag cluster
        i += 2 if takes_value else 1
    return Unwrapped(i + 1) if i + 1 < n else None  # past the IMAGE / CONTAINER


def _after_dashdash(argv: list[str]) -> Unwrapped | None:
    if "--" not in argv:
        return None
    start = argv.index("--") + 1
    return Unwrapped(start) if start < len(argv) else None
