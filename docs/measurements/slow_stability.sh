#!/usr/bin/env bash
# The slow ratchet's FAIL-set stability under a competing load, in the
# adoption workflow (README, "Measured: the FAIL set under a competing load").
#
#   docs/measurements/slow_stability.sh [WORKDIR]
#
# On attrs 25.4.0 (downloaded from PyPI): tier budget 0.1 s, one fast test
# slowed down by hand (sleep 0.6), a busy loop on core 0 throughout. Adoption
# pins every test the ratchet prints a `lanes slow pin` line for (except the
# hand-slowed one), round after round, until a round prints none; then ten
# runs alternate -n 0 and -n 2. Prints the distinct FAIL sets and how often
# the hand-slowed test was caught. Takes 10-20 minutes on 2 cores.
set -euo pipefail

lanekit=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d -t lanes-stability-XXXXXX)}
mkdir -p "$work" && cd "$work"
echo "work directory: $work"

python3 -m venv venv
venv/bin/pip install -q cloudpickle hypothesis pympler pytest "pytest-xdist[psutil]" "$lanekit"
venv/bin/pip download -q --no-binary :all: --no-deps attrs==25.4.0
tar xzf attrs-25.4.0.tar.gz
cd attrs-25.4.0
../venv/bin/pip install -q -e .

slowed="tests/test_filters.py::TestSplitWhat::test_splits"
python3 - <<'PY'
from pathlib import Path
test = Path("tests/test_filters.py")
text = test.read_text().replace("import pytest\n", "import time\n\nimport pytest\n", 1)
test.write_text(text.replace('        Splits correctly.\n        """\n',
                             '        Splits correctly.\n        """\n        time.sleep(0.6)\n', 1))
with open("pyproject.toml", "a") as pyproject:
    pyproject.write('\n[tool.lanes.slow]\npins = "baselines/slow-tests.json"\n'
                    "[tool.lanes.slow.tiers.unit]\nbudget = 0.1\n")
PY
git init -q && git add -A && git -c user.name=m -c user.email=m@example.invalid commit -qm base

taskset -c 0 python3 -c "while True: pass" &
load=$!
trap 'kill "$load"' EXIT
# Fails without lanekit too (attrs 25.4.0 on this Python): not the ratchet's.
known=(--deselect tests/test_converters.py::TestPipe::test_wrapped_annotation)

ratchet() {  # ratchet WORKERS JSON LOG
    ../venv/bin/python -m pytest -q -p no:cacheprovider -n "$1" --slow-ratchet \
        --slow-json="$2" "${known[@]}" >"$3" 2>&1 || true
}

for round in 1 2 3 4; do
    ratchet $(( round % 2 * 2 )) "envelopes/adopt-$round.json" "../adopt-$round.log"
    mapfile -t asked < <(sed -n "s/^ *lanes slow pin \([^ ]*\) --reason '<why it is slow>'.*/\1/p" \
        "../adopt-$round.log" | tr -d "'" | grep -vxF "$slowed" | sort -u)
    echo "adoption round $round: ${#asked[@]} pins"
    [ "${#asked[@]}" -eq 0 ] && break
    for nodeid in "${asked[@]}"; do
        ../venv/bin/lanes slow pin "$nodeid" --tracking attrs-adoption-1 \
            --reason "Hypothesis property test over generated classes" >/dev/null
    done
done

for run in 1 2 3 4 5 6 7 8 9 10; do
    ratchet $(( (run + 1) % 2 * 2 )) "envelopes/run-$run.json" "../run-$run.log"
done
python3 - "$slowed" <<'PY'
import json, sys
sets = [frozenset(o["nodeid"] for o in json.load(open(f"envelopes/run-{k}.json"))["offenders"])
        for k in range(1, 11)]
print(f"distinct FAIL sets: {len(set(sets))} / 10")
print(f"hand-slowed test caught: {sum(sys.argv[1] in s for s in sets)} / 10")
print("flipping:", sorted(set().union(*sets) - frozenset.intersection(*sets)) or "none")
PY
