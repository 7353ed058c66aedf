#!/usr/bin/env bash
# What a confirmed slow-test FAIL costs over the plain run of a short suite,
# in paired runs.
#
#   docs/measurements/slow_confirm_cost.sh [WORKDIR] [BEFORE_CHECKOUT]
#
# On toolz 0.12.1 (downloaded from PyPI) with one planted test sleeping 0.7 s
# against a 0.4 s limit (tier budget 0.2 s, fail_factor 2: 1.75 x its limit),
# lanekit installed from this checkout (and, given BEFORE_CHECKOUT, another
# lanekit checkout into a second venv). Ten rounds; each runs, in an order
# that rotates every round so that a drift in the machine's load spreads
# over the arms:
#   P   python -m pytest toolz/tests                      the plain run
#   N   ... --slow-ratchet                                the confirmed FAIL (this checkout)
#   B   ... --slow-ratchet                                the same, BEFORE_CHECKOUT's lanekit
# Prints each run's wall-clock and CPU seconds (user + system of the whole
# process tree, confirmation child included), then per arm the ratios to the
# plain run of the same round: median [min-max]. On a loaded machine the wall
# ratio flatters (the load stretches the plain run, not the planted sleep);
# the CPU ratio does not move with the load.
set -euo pipefail

lanekit=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d -t lanes-confirm-XXXXXX)}
before=${2:-}
mkdir -p "$work" && cd "$work"
echo "work directory: $work"

python3 -m venv venv
venv/bin/pip install -q pytest "$lanekit"
arms=(P N)
if [ -n "$before" ]; then
    python3 -m venv venv-before
    venv-before/bin/pip install -q pytest "$before"
    arms+=(B)
fi
[ -d toolz-0.12.1 ] || {
    venv/bin/pip download -q --no-binary :all: --no-deps toolz==0.12.1
    tar xzf toolz-0.12.1.tar.gz
}
cd toolz-0.12.1
printf 'import time\n\n\ndef test_planted_slow():\n    time.sleep(0.7)\n' >toolz/tests/test_planted.py
printf '[tool.lanes.slow]\nfail_factor = 2.0\n[tool.lanes.slow.tiers.unit]\nbudget = 0.2\n' \
    >pyproject.toml

plain=(-m pytest toolz/tests -q -p no:cacheprovider)
t() {  # t COMMAND...: "WALL CPU" in seconds
    /usr/bin/time -f "%e %U %S" -o ../time.out "$@" >/dev/null 2>&1 || true
    # The last line: GNU time heads it with "Command exited with non-zero
    # status 1" when the ratchet fails the run, as the confirmed FAIL does.
    awk 'END { printf "%s %.2f\n", $1, $2 + $3 }' ../time.out
}
run() {  # run ARM
    case $1 in
        P) t ../venv/bin/python "${plain[@]}" ;;
        N) t ../venv/bin/python "${plain[@]}" --slow-ratchet ;;
        B) t ../venv-before/bin/python "${plain[@]}" --slow-ratchet ;;
    esac
}
# The first runs fill the byte-code caches; they are not measured.
for arm in "${arms[@]}"; do run "$arm" >/dev/null; done
: >../times.txt
for round in 1 2 3 4 5 6 7 8 9 10; do
    count=${#arms[@]}
    for k in $(seq 0 $((count - 1))); do
        arm=${arms[$(( (k + round) % count ))]}
        echo "$round $arm $(run "$arm")" | tee -a ../times.txt
    done
done
python3 - ../times.txt <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    round_, arm, wall, cpu = line.split()
    runs.setdefault(round_, {})[arm] = (float(wall), float(cpu))
for index, what in enumerate(("wall", "CPU")):
    plain = [r["P"][index] for r in runs.values()]
    print(f"P {what}: median {statistics.median(plain):.2f} s [{min(plain):.2f}-{max(plain):.2f}]")
    for arm in sorted({a for r in runs.values() for a in r} - {"P"}):
        ratios = sorted(r[arm][index] / r["P"][index] for r in runs.values())
        median = statistics.median(ratios)
        print(f"{arm}/P {what}: median {median:.2f}x [{ratios[0]:.2f}-{ratios[-1]:.2f}]")
PY
