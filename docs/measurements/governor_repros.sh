#!/usr/bin/env bash
# The governor attack's repro lines, replayed against an installed
# lanekit in a scratch repository; each line prints the hook's exit status
# (0 allow, 2 block) and what it said.
#
#   docs/measurements/governor_repros.sh [LANES]     # LANES: the `lanes` to try (default: on PATH)
#
# Expected: 1 never blocks B; 2 answers in well under a second; 3, 3b and every
# line of 4 block; 9's session-less Pre takes no lock, so G's takes it; 12
# says what is wrong and creates nothing.
set -u
L=${1:-lanes}
R=$(mktemp -d -t lanes-repros-XXXXXX); cd "$R"
git init -q && mkdir -p tests/unit tests/int && echo 'def test_a(): pass' > tests/unit/test_a.py && echo 'def test_b(): pass' > tests/int/test_b.py
cat > pyproject.toml <<'T'
[tool.pytest.ini_options]
testpaths = ["tests"]
[tool.lanes.suites.unit]
paths = ["tests/unit"]
command = "pytest tests/unit -q"
[tool.lanes.suites.int]
paths = ["tests/int"]
command = "pytest tests/int -q"
T
git add -A && git -c user.name=a -c user.email=a@b commit -qm init
pre() { printf '{"hook_event_name":"PreToolUse","session_id":"%s","cwd":"%s","tool_name":"Bash","tool_input":{"command":%s}}' "$1" "$R" "$(python3 -c 'import json,sys;print(json.dumps(sys.argv[1]))' "$2")" | timeout 20 $L hook; echo "  -> exit $?"; }
post() { printf '{"hook_event_name":"PostToolUse","session_id":"%s","cwd":"%s","tool_name":"Bash","tool_input":{"command":%s},"tool_response":{"exit_code":0}}' "$1" "$R" "$(python3 -c 'import json,sys;print(json.dumps(sys.argv[1]))' "$2")" | timeout 20 $L hook; echo "  -> exit $?"; }
echo "== 1. ledger path is a directory: A runs unit (Pre+Post), then B's Pre of int must not be blocked"
mkdir -p .git/lanes && mkdir .git/lanes/verify-ledger.json
pre A "pytest tests/unit -q"; post A "pytest tests/unit -q"; pre B "pytest tests/int -q"; post B "pytest tests/int -q"
echo "  lock left: $(ls .git/lanes/ | grep -c run-lock) (0 = released)"; ls .git/lanes
rmdir .git/lanes/verify-ledger.json
echo "== 2. FIFO at the ledger path: the hook answers (timeout 20 s would say 124)"
mkfifo .git/lanes/verify-ledger.json; s=$(date +%s%N); pre C "pytest tests/unit -q"; echo "  took $(( ($(date +%s%N)-s)/1000000 )) ms"; rm .git/lanes/verify-ledger.json; post C "pytest tests/unit -q"
echo "== 3. payload over 4 MiB, 'pytest; : <4 MiB>': blocked (exit 2)"
python3 -c "
import json; print(json.dumps({'hook_event_name':'PreToolUse','session_id':'D','cwd':'$R','tool_name':'Bash','tool_input':{'command':'pytest; : ' + 'x'*(4<<20)}}))" | timeout 20 $L hook 2>&1 | head -c 200; st=${PIPESTATUS[1]}; echo; echo "  -> exit $st"
echo "== 3b. a NUL in cwd, full pytest: blocked"
printf '{"hook_event_name":"PreToolUse","session_id":"E","cwd":"%s\\u0000x","tool_name":"Bash","tool_input":{"command":"pytest"}}' "$R" | timeout 20 $L hook 2>&1 | head -c 200; st=${PIPESTATUS[1]}; echo; echo "  -> exit $st"
echo "== 4. ways around the sweep gate: each must exit 2"
for c in "pytest tests/../tests" "pytest tests/unit/.." "pytest -k ''" "pytest -k 'not nothing'" "pytest @args.txt" '$(echo pytest)' 'p=pytest; $p' "bash -c 'bash -c \"bash -c pytest\"'"; do printf '%-34s' "$c"; pre F "$c" 2>/dev/null; done
echo "== 9. no session_id: takes no lock; another session is not blocked"
printf '{"hook_event_name":"PreToolUse","cwd":"%s","tool_name":"Bash","tool_input":{"command":"LANES_TEST_FORCE=1 pytest tests/unit -q"}}' "$R" | timeout 20 $L hook; echo "  -> exit $?"
pre G "LANES_TEST_FORCE=1 pytest tests/unit -q" 2>&1 | tail -2; ls .git/lanes
echo "== 12. CLI: envelope validate /dev/zero, report --dir /nonexistent"
timeout 20 $L envelope validate /dev/zero 2>&1 | head -3; echo "  -> exit ${PIPESTATUS[0]}"
timeout 20 $L report --dir /nonexistent/x 2>&1 | head -3; echo "  -> exit ${PIPESTATUS[0]}"; ls -d /nonexistent 2>&1 | head -1
