#!/usr/bin/env bash
# What a second scaffolded `nox -s slow` costs over the bare suite,
# and what a confirmed slow-test FAIL costs over the plain run, in paired runs.
#
#   docs/measurements/session_reuse.sh [WORKDIR]
#
# On toolz 0.12.1 (downloaded from PyPI, 180 tests), scaffolded with
# `lanes init`, lanekit installed from a wheel of this checkout. Five rounds,
# each running, in turn:
#   A  LANES_REINSTALL=1 nox -s slow   every install again (the noxfile before the digest)
#   B  nox -s slow                     the digest matches: no install
#   R  nox -R -s slow                  nox's own no-install reuse, for reference
#   C  python -m pytest toolz/tests    the bare suite, in the same venv
# then, with a planted test sleeping 0.7 s judged against a 0.4 s limit
# (--slow-budget=unit=0.2; 1.75 x the limit), in turn:
#   P   the plain run
#   N2  --slow-ratchet --slow-confirm-once-past=0   re-timed twice (before)
#   N1  --slow-ratchet --slow-confirm-once-past=1.5 re-timed once (>= 1.5 x its limit; opt-in)
# Prints one line per run: the label and the wall-clock seconds.
set -euo pipefail

lanekit=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d -t lanes-reuse-XXXXXX)}
mkdir -p "$work" && cd "$work"
echo "work directory: $work"

python3 -m venv venv
venv/bin/pip install -q nox
venv/bin/pip wheel -q --no-deps --wheel-dir dist "$lanekit"
wheel=$(ls "$PWD"/dist/lanekit-*.whl)
venv/bin/pip download -q --no-binary :all: --no-deps toolz==0.12.1
tar xzf toolz-0.12.1.tar.gz
cd toolz-0.12.1
git init -q && git add -A && git -c user.name=m -c user.email=m@example.invalid commit -qm base
../venv/bin/pip install -q "lanekit[lanes] @ file://$wheel"
../venv/bin/lanes init --no-hook --no-workflows >/dev/null
# toolz keeps its tests inside the package; CI would use a released lanekit.
sed -i 's|^paths = \["tests"\]|paths = ["toolz/tests"]|' pyproject.toml
sed -i "s|^LANEKIT_SOURCE: str \\| None = None|LANEKIT_SOURCE = \" @ file://$wheel\"|" noxfile.py
export PATH="$work/venv/bin:$PATH"
nox -s slow >/dev/null 2>&1  # the first run builds the venv

t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
for _ in 1 2 3 4 5; do
    echo "A $(LANES_REINSTALL=1 t nox -s slow)"
    echo "B $(t nox -s slow)"
    echo "R $(t nox -R -s slow)"
    echo "C $(t .nox/slow/bin/python -m pytest toolz/tests -q -p no:cacheprovider)"
done

printf 'import time\n\n\ndef test_planted_slow():\n    time.sleep(0.7)\n' >toolz/tests/test_planted.py
py=.nox/slow/bin/python
judge=(--slow-ratchet --slow-budget=unit=0.2)
for _ in 1 2 3 4 5; do
    echo "P $(t $py -m pytest toolz/tests -q -p no:cacheprovider)"
    echo "N2 $(t $py -m pytest toolz/tests -q -p no:cacheprovider "${judge[@]}" --slow-confirm-once-past=0)"
    echo "N1 $(t $py -m pytest toolz/tests -q -p no:cacheprovider "${judge[@]}" --slow-confirm-once-past=1.5)"
done
