#!/bin/sh
# Tests of the real program, as concur micro runs it (spec/MICRO.md):
# every benchmark prints one JSON line with the documented fields
# (supervised once without kills and once with them), a lost message
# (--drop-one) makes it exit 1 with an empty stdout, and bad arguments exit
# 2. Uses python3 only to parse JSON.
set -u
MICRO=${1:-./micro}
PROTOCOL=${2:-tests/protocol}
unset CONCUR_CORES
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

not_ok() { echo "not ok - $*"; failures=$((failures + 1)); }
ok() { echo "ok - $*"; }

small() {
	case $1 in
	pingping) echo "--size 100 --reps 500" ;;
	pingpong) echo "--reps 500" ;;
	spawn | maxprocs) echo "--procs 300" ;;
	pairs) echo "--pairs 3 --seconds 0.1" ;;
	idle) echo "--procs 300 --sleep-ms 20" ;;
	supervised) echo "--pairs 3 --seconds 0.1" ;;
	esac
}

# check_json BENCH FILE: the schema of spec §7 for one result line.
check_json() {
	python3 - "$1" "$2" <<'PY'
import json, sys
bench, path = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines()
assert len(lines) == 1, f"want one line, got {lines!r}"
r = json.loads(lines[0])
params = {"pingping": {"size", "reps"}, "pingpong": {"reps"}, "spawn": {"procs"},
          "maxprocs": {"procs"}, "pairs": {"pairs", "seconds"}, "idle": {"procs", "sleep_ms"},
          "supervised": {"pairs", "seconds", "kill_rate"}}[bench]
extra = {"spawn": {"procs", "ns_per_proc"}, "maxprocs": {"procs", "ns_per_proc"},
         "pairs": {"round_trips", "messages", "messages_per_s", "min_pair_round_trips"},
         "idle": {"tasks", "sleep_ns"},
         "supervised": {"round_trips", "messages", "messages_per_s", "kills", "lost", "restart_p50_ns",
                        "restart_p99_ns", "late_restarts"}}.get(bench, set())
assert r["schema"] == 1 and r["bench"] == bench and r["runtime"] == "c-pthreads", r
assert set(r["params"]) == params | {"cores"}, r["params"]
assert r["params"]["cores"] == 1, r["params"]
assert r["ops"] > 0 and r["elapsed_ns"] > 0 and isinstance(r["ns_per_op"], (int, float)), r
if bench == "supervised":
    # §4.7: kills lose messages, each counted; a kill ends one pair, which
    # holds one message in flight.
    assert r["checks"]["received"] + r["lost"] == r["checks"]["expected"] > 0, r
    assert r["messages"] == r["checks"]["received"] >= 2 * r["round_trips"], r
    assert r["ops"] == r["round_trips"] > 0, r
    assert 0 <= r["lost"] <= r["kills"], r
    assert 0 <= r["restart_p50_ns"] <= r["restart_p99_ns"], r
    # late_restarts: kills whose replacement first ran after the stop.
    assert isinstance(r["late_restarts"], int), r
    if r["params"]["kill_rate"] == 0:
        assert (r["kills"], r["lost"], r["restart_p50_ns"], r["restart_p99_ns"], r["late_restarts"]) == (0, 0, 0, 0, 0), r
    else:
        assert r["kills"] > 0 and r["restart_p50_ns"] > 0, r
        assert 0 <= r["late_restarts"] <= r["kills"], r
else:
    assert r["checks"]["received"] == r["checks"]["expected"] > 0, r["checks"]
missing = extra - set(r)
assert not missing, f"missing {missing}"
if bench == "pingping":
    assert r["ops"] == 500 and r["checks"]["expected"] == 1000, r
# concur recomputes the derived numbers and refuses a line off by more than
# a millionth plus 0.001 (spec §7): the printed precision must keep within it.
def close(got, want):
    assert abs(got - want) <= 1e-6 * max(abs(want), 1.0) + 1e-3, f"{got} printed, {want} computed, in {r}"
if bench in ("pairs", "supervised"):
    close(r["messages_per_s"], r["messages"] / (r["elapsed_ns"] / 1e9))
    close(r["ns_per_op"], r["elapsed_ns"] / r["round_trips"])
elif bench != "idle":
    close(r["ns_per_op"], r["elapsed_ns"] / r["ops"])
PY
}

# run_json NAME BENCH ARGS…: one run whose line must pass check_json.
run_json() {
	name=$1
	bench=$2
	shift 2
	"$MICRO" $bench --cores 1 "$@" >"$tmp/out" 2>"$tmp/err"
	code=$?
	if [ $code -ne 0 ]; then
		not_ok "$name exits 0 (got $code: $(cat "$tmp/err"))"
	elif check_json $bench "$tmp/out" 2>"$tmp/py"; then
		ok "$name prints one valid JSON line"
	else
		not_ok "$name JSON: $(tail -1 "$tmp/py")"
	fi
}

for bench in pingping pingpong spawn maxprocs pairs idle supervised; do
	# shellcheck disable=SC2046
	run_json "$bench" $bench $(small $bench)
done
# supervised with kills: 200% of 16 threads a second for 0.5 s is 16 kills,
# every one replaced (restart figures > 0) and the pairs still exchanging.
run_json "supervised with kills" supervised --pairs 8 --seconds 0.5 --kill-rate 200
# --kill-rate is accepted, and ignored, by every other benchmark.
run_json "pingpong with --kill-rate" pingpong --reps 500 --kill-rate 5

# The lost-message runs end by the watchdog; run them side by side.
for bench in pingping pingpong spawn maxprocs pairs idle supervised; do
	# shellcheck disable=SC2046
	("$MICRO" $bench --drop-one --timeout 3 $(small $bench) >"$tmp/$bench.out" 2>"$tmp/$bench.err"
	 echo $? >"$tmp/$bench.code") &
done
wait
for bench in pingping pingpong spawn maxprocs pairs idle supervised; do
	code=$(cat "$tmp/$bench.code")
	if [ "$code" = 1 ] && [ ! -s "$tmp/$bench.out" ] && grep -q '^micro: ' "$tmp/$bench.err"; then
		ok "$bench --drop-one fails verification ($(cat "$tmp/$bench.err"))"
	else
		not_ok "$bench --drop-one: exit $code, stdout '$(cat "$tmp/$bench.out")'"
	fi
done

for args in "" "pingpang" "pingping --reps 10k" "pingping --reps 0" "pairs --seconds -1" \
	"spawn --procs" "spawn --frobs 1" "spawn --procs 1 --procs 2" "supervised --kill-rate -1" \
	"supervised --kill-rate 1001" "supervised --kill-rate five" "supervised --kill-rate nan" \
	"pairs --kill-rate"; do
	# shellcheck disable=SC2086
	"$MICRO" $args >"$tmp/out" 2>"$tmp/err"
	code=$?
	if [ $code -eq 2 ] && [ ! -s "$tmp/out" ] && [ -s "$tmp/err" ]; then
		ok "'$args' is a usage error"
	else
		not_ok "'$args': exit $code, want 2"
	fi
done

# spec §4.1's start, §4.5's run with no round trip and §4.7's restart of a
# pair killed by hand, which no run from outside can force: tests/protocol
# drives the sources directly, reports the start and the restart on stderr and prints the zero-round-trip line on stdout, then
# a slow run's line (3 round trips in 9 s), whose messages_per_s concur
# recomputes and refuses if it is off by more than a millionth plus 0.001.
if "$PROTOCOL" >"$tmp/out" 2>"$tmp/err"; then
	cat "$tmp/err"
	if python3 - "$tmp/out" <<'PY' 2>"$tmp/py"; then
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, f"want two lines, got {lines!r}"
r = json.loads(lines[0])
for field in ("ops", "round_trips", "messages", "min_pair_round_trips", "ns_per_op", "messages_per_s"):
    assert r[field] == 0, f"{field} = {r[field]} in {r}"
assert r["checks"] == {"received": 0, "expected": 0}, r
PY
		ok "pairs with no round trip prints zeros"
	else
		not_ok "pairs with no round trip: $(tail -1 "$tmp/py")"
	fi
	if python3 - "$tmp/out" <<'PY' 2>"$tmp/py"; then
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[1])
assert (r["round_trips"], r["messages"], r["elapsed_ns"]) == (3, 6, 9000000000), r
want = 6 / 9
assert abs(r["messages_per_s"] - want) <= 1e-6 * max(want, 1.0) + 1e-3, f"messages_per_s {r['messages_per_s']}, want {want}"
PY
		ok "pairs at under one message a second prints messages_per_s precisely enough"
	else
		not_ok "pairs precision: $(tail -1 "$tmp/py")"
	fi
else
	cat "$tmp/err"
	not_ok "tests/protocol exits 0"
fi

if [ $failures -ne 0 ]; then
	echo "$failures failed"
	exit 1
fi
echo "all passed"
