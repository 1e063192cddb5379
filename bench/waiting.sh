#!/usr/bin/env bash
# What a waiting client costs a server, before and after a change: CLIENTS
# long polls held at once (spec/POLICIES.md §1). For each implementation, the
# one at BASE (checked out into a temporary git worktree and built there) and
# the one in this tree, REPEATS times alternating: `concur serve IMPL --cores
# CORES`, then `concur load /longPoll -c CLIENTS -d DURATION`. It records the
# polls answered and those left unanswered at the end (with the oldest one's
# age: a client a configured limit kept waiting is as old as the run), and the
# server's resident memory and thread count idle and DURATION - 1.5 s into the
# load, when every client's first poll is held: (waiting - idle) / CLIENTS is
# the memory one waiting client costs. Medians go to bench/RESULTS.md.
#
# Usage: IMPLS=rust-threadpool bench/waiting.sh    (BASE=906d228 CLIENTS=2000 CORES=2 DURATION=8 REPEATS=3)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BASE:-906d228}
IMPLS=${IMPLS:-rust-threadpool}
CLIENTS=${CLIENTS:-2000}
CORES=${CORES:-2}
DURATION=${DURATION:-8}
REPEATS=${REPEATS:-3}
PORT=${PORT:-18091}

WORK=$(mktemp -d)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "iproute2 curl python3" ss curl python3
build_concur

checkout_before "$BASE"

# memory PID: "rss_kib threads" of a running process.
memory() { awk '/^VmRSS/ { r = $2 } /^Threads/ { t = $2 } END { print r, t }' "/proc/$1/status"; }

# measure: "answered unfinished oldest_s idle_kib idle_threads waiting_kib waiting_threads" of one run.
measure() {
    local pid idle waiting
    pid=$(server_pid "$PORT")
    idle=$(memory "$pid")
    "$CONCUR" load "http://127.0.0.1:$PORT/longPoll" -c "$CLIENTS" -d "${DURATION}s" --timeout 30s --json "$WORK/load.json" >/dev/null 2>&1 &
    local load=$!
    sleep "$(awk -v d="$DURATION" 'BEGIN { print d - 1.5 }')"
    waiting=$(memory "$pid")
    wait "$load"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["requests"], r["unfinished"], round(r["unfinished_age"]["max_us"] / 1e6, 1), end=" ")' "$WORK/load.json"
    echo "$idle $waiting"
}

echo "| implementation | side | answered | unfinished | oldest unfinished s | idle RSS MiB | threads idle | RSS with $CLIENTS waiting MiB | threads waiting | (waiting - idle RSS) / clients KiB |" >"$WORK/table"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|" >>"$WORK/table"
for impl in $IMPLS; do
    for tree in "$BEFORE" "$ROOT"; do start_impl "$tree" "$impl" "$PORT"; stop_impl; done # build both first, off the clock
    alternate "$impl" "$impl" "" measure
    for side in before after; do
        col() { cut -d' ' -f"$1" "$WORK/$side.txt" | median; }
        awk -v i="$impl" -v s="$side" -v n="$CLIENTS" -v a="$(col 1)" -v u="$(col 2)" -v o="$(col 3)" -v ir="$(col 4)" \
            -v it="$(col 5)" -v wr="$(col 6)" -v wt="$(col 7)" \
            'BEGIN { printf "| %s | %s | %d | %d | %.1f | %.1f | %d | %.1f | %d | %.1f |\n", i, s, a, u, o, ir / 1024, it, wr / 1024, wt, (wr - ir) / n }' >>"$WORK/table"
    done
done

{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M') UTC: waiting clients (bench/waiting.sh)"
    echo
    echo "Before: \`$BASE\`; after: \`$(git -C "$ROOT" rev-parse --short HEAD)\`$(for impl in $IMPLS; do git -C "$ROOT" diff --quiet HEAD -- "impls/http/$impl" || echo " plus uncommitted changes to $impl"; done). \`concur serve IMPL --cores $CORES\`, \`concur load /longPoll -c $CLIENTS -d ${DURATION}s\` (5 s polls), before and after alternating, medians of $REPEATS; memory from /proc/PID/status idle and $(awk -v d="$DURATION" 'BEGIN { print d - 1.5 }') s into the load; load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs."
    echo
    cat "$WORK/table"
} | tee -a "$ROOT/bench/RESULTS.md"
