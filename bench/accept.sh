#!/usr/bin/env bash
# How fast a cold server takes in a burst of long-poll clients, and whether a
# configured limit leaves some waiting (spec/POLICIES.md §1): for each
# implementation and each VARIANT of its JVM options, REPEATS times, a fresh
# `concur serve IMPL --cores CORES` (no warm-up, as make bench's longpoll
# point) and `concur load /longPoll -c CLIENTS -d DURATION`. Every 0.25 s it
# samples the server's side of the listening socket: connections established
# (`ss`) minus those still in the accept queue (the listener's Recv-Q) is
# what the server has accepted so far. It records the polls answered and left
# unanswered with the oldest one's age (a client a configured limit kept out
# is as old as the run), the seconds until every client was accepted (or "-"
# when some never were), and the server's context switches (voluntary and
# not) and CPU time over the run. Medians go to bench/RESULTS.md.
#
# A variant is "label=JVM options" (JAVA_TOOL_OPTIONS for the server's JVM:
# -D settings override a Pekko application.conf, so one build serves every
# variant); "as-built=" runs the manifest's command unchanged. Variants are
# separated by ";".
#
# Usage: IMPLS=scala-pekko-http CLIENTS="1000 2000" \
#          VARIANTS="as-built=;max-conn=-Dpekko.http.server.max-connections=65536" bench/accept.sh
#        (CORES=2 DURATION=6 REPEATS=3 TITLE=...)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMPLS=${IMPLS:-scala-pekko-http}
VARIANTS=${VARIANTS:-as-built=}
CLIENTS=${CLIENTS:-"1000 2000"}
CORES=${CORES:-2}
DURATION=${DURATION:-6}
REPEATS=${REPEATS:-3}
PORT=${PORT:-18092}
TITLE=${TITLE:-Accepting a burst of long-poll clients}

WORK=$(mktemp -d)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "iproute2 curl python3" ss curl python3
build_concur
SERVE_PID=
trap 'stop_impl; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

# accepted: connections on PORT the server has accepted (established minus the listener's queue).
accepted() {
    local established queued
    established=$(ss -tnH state established "sport = :$PORT" | wc -l)
    queued=$(ss -ltnH "sport = :$PORT" | awk '{ print $2 }' | head -1)
    echo $((established - ${queued:-0}))
}

# counters PID: "voluntary nonvoluntary cpu_ticks" summed over the process's threads.
counters() {
    python3 - "$1" <<'PY'
import os, sys
vol = non = ticks = 0
base = f"/proc/{sys.argv[1]}/task"
for tid in os.listdir(base):
    try:
        status = open(f"{base}/{tid}/status").read().split("\n")
        stat = open(f"{base}/{tid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    for line in status:
        if line.startswith("voluntary_ctxt_switches"):
            vol += int(line.split()[1])
        elif line.startswith("nonvoluntary_ctxt_switches"):
            non += int(line.split()[1])
    ticks += int(stat[11]) + int(stat[12])
print(vol, non, ticks)
PY
}

# measure N: "answered unfinished seconds_to_accept_all voluntary nonvoluntary cpu_ms oldest_unfinished_s" of one cold run.
measure() {
    local n=$1 pid before after load start all="-" t
    pid=$(server_pid "$PORT")
    before=$(counters "$pid")
    start=$(date +%s.%N)
    "$CONCUR" load "http://127.0.0.1:$PORT/longPoll" -c "$n" -d "${DURATION}s" --timeout 30s --json "$WORK/load.json" >/dev/null 2>&1 &
    load=$!
    while kill -0 "$load" 2>/dev/null; do
        if [[ $all == - ]] && (($(accepted) >= n)); then
            t=$(date +%s.%N)
            all=$(awk -v a="$start" -v b="$t" 'BEGIN { printf "%.2f", b - a }')
        fi
        sleep 0.25
    done
    wait "$load" || true
    after=$(counters "$pid")
    python3 -c 'import json,os,sys; r=json.load(open(sys.argv[1])); b=list(map(int,sys.argv[2].split())); a=list(map(int,sys.argv[3].split()))
print(r["requests"], r["unfinished"], sys.argv[4], a[0]-b[0], a[1]-b[1], round((a[2]-b[2])*1000/os.sysconf("SC_CLK_TCK")),
      round(((r.get("unfinished_age") or {}).get("max_us") or 0) / 1e6, 1))' \
        "$WORK/load.json" "$before" "$after" "$all"
}

echo "| implementation | variant | clients | answered | unfinished | oldest unfinished s | s until all accepted | voluntary cs | involuntary cs | server CPU ms |" >"$WORK/table"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|" >>"$WORK/table"
IFS=';' read -ra variants <<<"$VARIANTS"
for impl in $IMPLS; do
    (cd "$ROOT" && "$CONCUR" build "$impl" >/dev/null) # off the clock
    for n in $CLIENTS; do
        for variant in "${variants[@]}"; do : >"$WORK/${variant%%=*}.txt"; done
        for i in $(seq "$REPEATS"); do
            for variant in "${variants[@]}"; do
                label=${variant%%=*}
                JAVA_TOOL_OPTIONS=${variant#*=} CORES=$CORES start_impl "$ROOT" "$impl" "$PORT"
                measure "$n" | tee -a "$WORK/$label.txt" | sed "s/^/$impl $label $n #$i: /" >&2
                stop_impl
            done
        done
        for variant in "${variants[@]}"; do
            label=${variant%%=*}
            col() { cut -d' ' -f"$1" "$WORK/$label.txt" | median; }
            unaccepted=$(cut -d' ' -f3 "$WORK/$label.txt" | grep -c '^-$' || true)
            secs=-
            if ((unaccepted < REPEATS)); then secs=$(cut -d' ' -f3 "$WORK/$label.txt" | grep -v '^-$' | median); fi
            ((unaccepted > 0)) && secs="$secs ($unaccepted of $REPEATS runs never accepted all)"
            echo "| $impl | $label | $n | $(col 1) | $(col 2) | $(col 7) | $secs | $(col 4) | $(col 5) | $(col 6) |" >>"$WORK/table"
        done
    done
done

{
    echo
    echo "## $TITLE ($(date -u '+%Y-%m-%d %H:%M') UTC, bench/accept.sh)"
    echo
    echo "At \`$(git -C "$ROOT" rev-parse --short HEAD)\`$(git -C "$ROOT" diff --quiet HEAD -- impls || echo ' plus uncommitted changes'). A fresh \`concur serve IMPL --cores $CORES\` per run (no warm-up), \`concur load /longPoll -c CLIENTS -d ${DURATION}s\` (5 s polls); variants: \`$VARIANTS\` (JAVA_TOOL_OPTIONS), alternating, medians of $REPEATS; load averages at the end $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs."
    echo
    cat "$WORK/table"
} | tee -a "$ROOT/bench/RESULTS.md"
