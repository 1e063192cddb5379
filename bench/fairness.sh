#!/usr/bin/env bash
# Before and after the "same work everywhere" changes, side by side in one
# run: go-nethttp's /user store (it stored the posted bytes; now it parses
# them into Go's JSON value and serializes that on every get) and the Elixir
# connection loop (mochiweb's full garbage collection after every request;
# now none). It serves any other change of an implementation too: BASE,
# IMPLS, SCENARIOS and the section's TITLE say which.
#
# The implementations at BASE (default: ad61a5e, the last commit before the
# change) are checked out into a temporary git worktree and built there, the
# current ones in this tree. Each point alternates before and after, REPEATS
# times: the server with CONCUR_CORES=1 pinned to SERVER_CPU, `concur load`
# pinned to GENERATOR_CPU, the `hello` and `userinfo` scenarios (userinfo
# without think time, so both are throughput-bound), CONNECTIONS connections
# for DURATION seconds. Medians of requests/s and p99, and the after/before
# ratio, are appended to bench/RESULTS.md.
#
# Usage: bench/fairness.sh            (REPEATS=5 DURATION=10 CONNECTIONS=50)
#        IMPLS="elixir" REPEATS=3 bench/fairness.sh
#        BASE=906d228 IMPLS=rust-axum SCENARIOS=hello TITLE="rust-axum's runtime" bench/fairness.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BASE:-ad61a5e}
IMPLS=${IMPLS:-"go-nethttp elixir"}
SCENARIOS=${SCENARIOS:-"hello userinfo"}
REPEATS=${REPEATS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-50}
PORT=${PORT:-18090}
SERVER_CPU=${SERVER_CPU:-0}
GENERATOR_CPU=${GENERATOR_CPU:-1}

WORK=$(mktemp -d)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "util-linux curl python3" taskset curl python3
build_concur

checkout_before "$BASE"

# measure SCENARIO: prints "requests_per_s p99_us errors" of one run.
measure() {
    local think=()
    [[ $1 == userinfo ]] && think=(--think-time 0s)
    taskset -c "$GENERATOR_CPU" "$CONCUR" load "http://127.0.0.1:$PORT/" --scenario "$1" "${think[@]}" \
        -t 1 -c "$CONNECTIONS" -d "${DURATION}s" --timeout 10s --json "$WORK/load.json" >/dev/null
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(round(r["requests_per_s"]), r["latency"]["p99_us"], r["errors"])' "$WORK/load.json"
}


echo "| implementation | scenario | before req/s | after req/s | after/before | before p99 ms | after p99 ms | errors |" >"$WORK/table"
echo "|---|---|---|---|---|---|---|---|" >>"$WORK/table"
for impl in $IMPLS; do
    for tree in "$BEFORE" "$ROOT"; do start_impl "$tree" "$impl" "$PORT" "$SERVER_CPU"; stop_impl; done # build both first, off the clock
    for scenario in $SCENARIOS; do
        alternate "$impl" "$impl $scenario" "$SERVER_CPU" measure "$scenario"
        b_rps=$(cut -d' ' -f1 "$WORK/before.txt" | median)
        a_rps=$(cut -d' ' -f1 "$WORK/after.txt" | median)
        b_p99=$(cut -d' ' -f2 "$WORK/before.txt" | median)
        a_p99=$(cut -d' ' -f2 "$WORK/after.txt" | median)
        errors=$(cat "$WORK/before.txt" "$WORK/after.txt" | awk '{ e += $3 } END { print e }')
        awk -v i="$impl" -v s="$scenario" -v br="$b_rps" -v ar="$a_rps" -v bp="$b_p99" -v ap="$a_p99" -v e="$errors" \
            'BEGIN { printf "| %s | %s | %d | %d | %.2f | %.2f | %.2f | %d |\n", i, s, br, ar, ar / br, bp / 1000, ap / 1000, e }' >>"$WORK/table"
    done
done

{
    echo
    echo "## ${TITLE:-Fairness changes}, before and after ($(date -u '+%Y-%m-%d %H:%M') UTC, bench/fairness.sh)"
    echo
    echo "Before: \`$BASE\`; after: \`$(git -C "$ROOT" rev-parse --short HEAD)\`$(git -C "$ROOT" diff --quiet HEAD -- impls || echo ' plus uncommitted changes'). CONCUR_CORES=1, server on CPU $SERVER_CPU, \`concur load -t 1 -c $CONNECTIONS -d ${DURATION}s\` on CPU $GENERATOR_CPU (userinfo with no think time), before and after alternating, medians of $REPEATS; $(nproc) CPUs, $(uname -r)."
    echo
    cat "$WORK/table"
} | tee -a "$ROOT/bench/RESULTS.md"
