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
# Each run also counts the requests answered and reads the server's CPU time per request (its process tree's
# user + system time over the requests answered), the steadier figure on a
# shared machine.
#
# CORES=2 serves with CONCUR_CORES=2 (give SERVER_CPU and GENERATOR_CPU as
# lists then, e.g. 0,1); every run also counts the requests it left
# unanswered (the load JSON's `unfinished`), which shows clients a configured
# limit left waiting in the longpoll scenario.
#
# Usage: bench/fairness.sh            (REPEATS=5 DURATION=10 CONNECTIONS=50)
#        IMPLS="elixir" REPEATS=3 bench/fairness.sh
#        BASE=71a7baa IMPLS="bun" SCENARIOS=hello TITLE="Bun in production mode" bench/fairness.sh
#        CORES=2 SERVER_CPU=0,1 GENERATOR_CPU=0,1 SCENARIOS=longpoll CONNECTIONS=2000 DURATION=8 REPEATS=1 bench/fairness.sh
# The machine's load averages (uptime) at the start and the end go into the
# section, since other work on a shared machine moves every figure.
#        BASE=906d228 IMPLS=rust-axum SCENARIOS=hello TITLE="rust-axum's runtime" bench/fairness.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BASE:-ad61a5e}
IMPLS=${IMPLS:-"go-nethttp elixir"}
SCENARIOS=${SCENARIOS:-"hello userinfo"}
REPEATS=${REPEATS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-50}
TITLE=${TITLE:-Fairness changes}
PORT=${PORT:-18090}
CORES=${CORES:-1}
SERVER_CPU=${SERVER_CPU:-0}
GENERATOR_CPU=${GENERATOR_CPU:-1}

WORK=$(mktemp -d)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "util-linux curl python3" taskset curl python3
build_concur

checkout_before "$BASE"

# server_cpu_ticks: user + system clock ticks of every process under
# SERVE_PID (the server's whole tree, `concur serve` itself left out).
server_cpu_ticks() {
    python3 - "$SERVE_PID" <<'PY'
import os, sys
parent, ticks = {}, {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    parent[pid], ticks[pid] = fields[1], int(fields[11]) + int(fields[12])
def under(pid):
    while pid in parent and pid != "1":
        pid = parent[pid]
        if pid == sys.argv[1]:
            return True
    return False
print(sum(t for pid, t in ticks.items() if under(pid)))
PY
}

# measure SCENARIO: prints "requests_per_s p99_us errors unfinished cpu_us_per_request
# oldest_unfinished_ms requests"
# of one run. The server's CPU time per request moves far less than its
# throughput when other work shares the machine: a busy neighbour takes
# the server's time slices, not its work per request.
measure() {
    local think=() before after
    [[ $1 == userinfo ]] && think=(--think-time 0s)
    before=$(server_cpu_ticks)
    taskset -c "$GENERATOR_CPU" "$CONCUR" load "http://127.0.0.1:$PORT/" --scenario "$1" "${think[@]}" \
        -t 1 -c "$CONNECTIONS" -d "${DURATION}s" --timeout 10s --json "$WORK/load.json" >/dev/null
    after=$(server_cpu_ticks)
    python3 -c 'import json,os,sys; r=json.load(open(sys.argv[1])); done=r["requests"]+r["errors"]
print(round(r["requests_per_s"]), r["latency"]["p99_us"], r["errors"], r["unfinished"],
      round((int(sys.argv[3]) - int(sys.argv[2])) * 1e6 / os.sysconf("SC_CLK_TCK") / max(done, 1), 1),
      round(((r.get("unfinished_age") or {}).get("max_us") or 0) / 1000), r["requests"])' \
        "$WORK/load.json" "$before" "$after"
}


LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "| implementation | scenario | before req/s | after req/s | after/before | before p99 ms | after p99 ms | errors | before answered | after answered | before unfinished (oldest ms) | after unfinished (oldest ms) | before CPU µs/req | after CPU µs/req | after/before CPU |" >"$WORK/table"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" >>"$WORK/table"
for impl in $IMPLS; do
    for tree in "$BEFORE" "$ROOT"; do start_impl "$tree" "$impl" "$PORT" "$SERVER_CPU"; stop_impl; done # build both first, off the clock
    for scenario in $SCENARIOS; do
        alternate "$impl" "$impl $scenario" "$SERVER_CPU" measure "$scenario"
        b_rps=$(cut -d' ' -f1 "$WORK/before.txt" | median)
        a_rps=$(cut -d' ' -f1 "$WORK/after.txt" | median)
        b_p99=$(cut -d' ' -f2 "$WORK/before.txt" | median)
        a_p99=$(cut -d' ' -f2 "$WORK/after.txt" | median)
        errors=$(cat "$WORK/before.txt" "$WORK/after.txt" | awk '{ e += $3 } END { print e }')
        b_unf=$(cut -d' ' -f4 "$WORK/before.txt" | median)
        a_unf=$(cut -d' ' -f4 "$WORK/after.txt" | median)
        b_cpu=$(cut -d' ' -f5 "$WORK/before.txt" | median)
        a_cpu=$(cut -d' ' -f5 "$WORK/after.txt" | median)
        b_old=$(cut -d' ' -f6 "$WORK/before.txt" | median)
        a_old=$(cut -d' ' -f6 "$WORK/after.txt" | median)
        b_req=$(cut -d' ' -f7 "$WORK/before.txt" | median)
        a_req=$(cut -d' ' -f7 "$WORK/after.txt" | median)
        awk -v i="$impl" -v s="$scenario" -v br="$b_rps" -v ar="$a_rps" -v bp="$b_p99" -v ap="$a_p99" -v e="$errors" -v bu="$b_unf" -v au="$a_unf" -v bc="$b_cpu" -v ac="$a_cpu" \
            -v bo="$b_old" -v ao="$a_old" -v bq="$b_req" -v aq="$a_req" \
            'BEGIN { printf "| %s | %s | %d | %d | %.2f | %.2f | %.2f | %d | %d | %d | %d (%d) | %d (%d) | %.1f | %.1f | %.2f |\n", i, s, br, ar, ar / br, bp / 1000, ap / 1000, e, bq, aq, bu, bo, au, ao, bc, ac, (bc > 0 ? ac / bc : 0) }' >>"$WORK/table"
    done
done

{
    echo
    echo "## $TITLE, before and after ($(date -u '+%Y-%m-%d %H:%M') UTC, bench/fairness.sh)"
    echo
    echo "Before: \`$BASE\`; after: \`$(git -C "$ROOT" rev-parse --short HEAD)\`$(git -C "$ROOT" diff --quiet HEAD -- impls || echo ' plus uncommitted changes'). CONCUR_CORES=$CORES, server on CPU $SERVER_CPU, \`concur load -t 1 -c $CONNECTIONS -d ${DURATION}s\` on CPU $GENERATOR_CPU (userinfo with no think time), before and after alternating, medians of $REPEATS; $(nproc) CPUs, $(uname -r); load averages $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end."
    echo
    cat "$WORK/table"
} | tee -a "$ROOT/bench/RESULTS.md"
