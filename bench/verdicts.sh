#!/usr/bin/env bash
# Do `concur compare` and the report's rankings keep their word? (issue 29)
#
# 1. RUNS A/A runs of one plan, nothing changed between them, one after the
#    other into one database: IMPLS × SCENARIOS × CORES, closed loop at 50
#    connections, REPEATS repeats of DURATION s after a fixed WARMUP s, not
#    verified (the verifier is not what is measured). Consecutive runs are
#    compared (`concur compare --format json`): every verdict other than
#    within noise (or cannot tell) is a false one.
# 2. `concur calibrate` before the runs, into the same database, so the
#    verdicts use this machine's measured noise floor (CALIBRATE=0: the
#    default floor).
# 3. The same comparisons with the first 1, 3 and 5 of each run's repeats
#    (`concur compare --repeats N`), and the smallest difference each repeat
#    count can call: the half-width of the intervals, median over the points.
# 4. A server 2× slower on purpose: the fake implementation of the tests
#    (tests/support/fake_server.py --capacity K, a FIFO server of service
#    rate K = FAST) at K and K/2, REPEATS repeats each, compared with the
#    first 1, 3 and 5 repeats.
# The table is printed, with `uptime` after each run; paste it into
# bench/RESULTS.md with the date.
#
# Usage: bench/verdicts.sh                      (about 45 minutes)
#        DB=/tmp/v.db SKIP_RUNS=1 bench/verdicts.sh   (only the analysis of a database it wrote)
#        CONCUR=target/release/concur bench/verdicts.sh  (no build)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMPLS=${IMPLS:-"go-nethttp,node-http,elixir,go-tcp,rust-threadpool"}
SCENARIOS=${SCENARIOS:-"hello,json"}
CORES=${CORES:-"1,2"}
REPEATS=${REPEATS:-5}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-2}
DURATION=${DURATION:-3}
CALIBRATE=${CALIBRATE:-1}
FAST=${FAST:-400}
SKIP_RUNS=${SKIP_RUNS:-0}
WORK=$(mktemp -d)
DB=${DB:-$WORK/verdicts.db}
trap 'rm -rf "$WORK"' EXIT

# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "jq" jq
require "sqlite3" sqlite3
CONCUR=${CONCUR:-}
[[ -n $CONCUR ]] || build_concur

# The fake implementation at service rate $1 req/s, in a throw-away repository.
fake_repo() {
    local repo=$WORK/fake
    mkdir -p "$repo/impls/http/fake" "$repo/spec"
    cp -r "$ROOT/spec/profiles" "$ROOT/spec/scenarios" "$ROOT/spec/static" "$repo/spec/" 2>/dev/null || cp -r "$ROOT/spec/profiles" "$ROOT/spec/scenarios" "$repo/spec/"
    cp "$ROOT/tests/support/fake_server.py" "$repo/impls/http/fake/server.py"
    cat >"$repo/impls/http/fake/concur.toml" <<TOML
name = "fake"
language = "Python"
runtime = "CPython"
version = "python3 --version"
framework = "http.server"
model = "os-threads"
[requires]
commands = ["python3"]
[start]
command = "python3 server.py {port} --capacity $1 concur-bench-verdicts"
TOML
    echo "$repo"
}

if ((SKIP_RUNS == 0)); then
    echo "uptime before: $(uptime)" | tee "$WORK/uptime"
    "$CONCUR" build --root "$ROOT" ${IMPLS//,/ }
    if ((CALIBRATE == 1)); then "$CONCUR" calibrate --root "$ROOT" --results "$DB" | tail -3; fi
    for i in $(seq "$RUNS"); do
        "$CONCUR" run --root "$ROOT" --profile standard --impl "$IMPLS" --scenario "$SCENARIOS" --cores "$CORES" -c 50 \
            --warmup "$WARMUP" --warmup-max "$WARMUP" -d "$DURATION" --repeat "$REPEATS" --no-verify --results "$DB" >"$WORK/run-$i.log"
        echo "run $i done: $(uptime)" | tee -a "$WORK/uptime"
    done
    # Twice slower on purpose: a FIFO server of service rate K, then K/2, 8 connections (p99 ≈ 8/K).
    for k in "$FAST" $((FAST / 2)); do
        repo=$(fake_repo "$k")
        "$CONCUR" run --root "$repo" --profile standard --impl fake --scenario hello --cores 1 -c 8 \
            --warmup 1 --warmup-max 1 -d "$DURATION" --repeat "$REPEATS" --no-verify --results "$DB" >"$WORK/fake-$k.log"
        echo "fake at $k req/s done: $(uptime)" | tee -a "$WORK/uptime"
    done
fi

# Every run of the database: the A/A runs, then the two fake ones.
mapfile -t RUN_IDS < <(sqlite3 "$DB" "SELECT id FROM runs WHERE profile = 'standard' ORDER BY id")
((${#RUN_IDS[@]} >= 4)) || { echo "$SCRIPT: $DB holds ${#RUN_IDS[@]} runs of profile standard; the analysis needs two A/A runs and the two fake ones" >&2; exit 1; }
N_AA=$((${#RUN_IDS[@]} - 2))
for n in 1 3 5; do
    for ((i = 0; i + 1 < N_AA; i++)); do
        "$CONCUR" compare "${RUN_IDS[i]}" "${RUN_IDS[i + 1]}" --results "$DB" --repeats "$n" --format json >"$WORK/aa-$n-$i.json"
    done
    "$CONCUR" compare "${RUN_IDS[N_AA]}" "${RUN_IDS[N_AA + 1]}" --results "$DB" --repeats "$n" --format json >"$WORK/slow-$n.json"
done

python3 - "$WORK" "$DB" <<'PY' | tee "$WORK/table.md"
import glob, json, math, statistics, sys, sqlite3
work, db = sys.argv[1], sys.argv[2]
def load(pattern):
    return [json.load(open(f)) for f in sorted(glob.glob(f"{work}/{pattern}"))]
floor = load("aa-1-0.json")[0]["floor"]
src = floor["source"]
where = "default floor" if src["kind"] == "default" else f"calibration run {src['run_id']} ({src['rounds_measured']} of {src['rounds_planned']} rounds, {src['measurements']} measurements)"
print(f"Floor: σ {floor['throughput']:.3f} req/s, {floor['p99']:.3f} p99, df {floor['df']}: {where}.\n")
print("| repeats | quantity | A/A comparisons | within noise | cannot tell | false faster/slower | median smallest callable change | 2× slower server |")
print("|---|---|---:|---:|---:|---:|---:|---|")
for n in (1, 3, 5):
    for q, name in (("throughput", "req/s"), ("p99_ms", "p99")):
        pts = [p[q] for c in load(f"aa-{n}-*.json") for p in c["points"]]
        v = [p["verdict"] for p in pts]
        halves = [math.log(p["ratio_high"] / p["ratio"]) for p in pts if p["ratio"]]
        callable_ = f"±{(math.exp(statistics.median(halves)) - 1) * 100:.0f}%"
        slow = [p[q] for c in load(f"slow-{n}.json") for p in c["points"]]
        found = ", ".join(f"{s['verdict']} ({(s['ratio'] - 1) * 100:+.0f}% [{(s['ratio_low'] - 1) * 100:+.0f}%, {(s['ratio_high'] - 1) * 100:+.0f}%])" for s in slow)
        false = v.count("faster") + v.count("slower")
        print(f"| {n} | {name} | {len(v)} | {v.count('within_noise')} | {v.count('cannot_tell')} | {false} ({100 * false / max(len(v), 1):.0f}%) | {callable_} | {found} |")
PY
