#!/usr/bin/env bash
# Do the Ruby entries' database requests wait for a pooled connection, or
# fail (issue 26)? Puma grows to 16,384 threads per server while
# CONCUR_DB_POOL (16, the default, divided among the workers) bounds the
# connections, so under load the queue is in the connection pool, whose wait
# the entries raise from 5 s to 30 s. For each entry, `concur serve --cores
# CORES` (which starts the database), then `concur load` on each of ROUTES
# with CLIENTS connections for DURATION (10 s timeout, concur load's
# default): requests answered, errors by status and kind, p50/p99. A pool
# timeout is a 503 (the database is up), so the 503s are the pool's
# refusals. Appended to bench/RESULTS.md with the load average (the machine
# is shared).
#
# Usage: bench/dbwait.sh
#        IMPLS="ruby-rack" CLIENTS="256 1024" DURATION=10s bench/dbwait.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMPLS=${IMPLS:-"ruby-rack ruby-sinatra ruby-rails"}
CLIENTS=${CLIENTS:-"256 1024"}
ROUTES=${ROUTES:-"/slowdb /queries?queries=20"}
DURATION=${DURATION:-10s}
CORES=${CORES:-2}
PORT=${PORT:-18901}
WORK=$(mktemp -d)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
trap 'stop_impl; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
require "jq" jq
build_concur

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rows=()
for impl in $IMPLS; do
    start_impl "$ROOT" "$impl" "$PORT"
    for route in $ROUTES; do
        for clients in $CLIENTS; do
            "$CONCUR" load "http://127.0.0.1:$PORT$route" -c "$clients" -d "$DURATION" --json "$WORK/load.json" >/dev/null 2>&1 || true
            row=$(jq -r '[.requests, .errors, (.errors_by_kind.status | to_entries | map("\(.key)×\(.value)") | join(" ")), .errors_by_kind.timeout, .unfinished, (.latency.p50_us / 1000 | floor), (.latency.p99_us / 1000 | floor)] | join(";")' "$WORK/load.json")
            IFS=';' read -r ok errors statuses timeouts unfinished p50 p99 <<<"$row"
            rows+=("| $impl | \`$route\` | $clients | $ok | $errors (statuses: ${statuses:-none}; timeouts: $timeouts) | $unfinished | $p50 | $p99 |")
            echo "${rows[-1]}" >&2
        done
    done
    stop_impl
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M') UTC: the Ruby entries' database requests wait for a connection (bench/dbwait.sh)"
    echo
    echo "concur serve --cores $CORES (CONCUR_DB_POOL 16: $((16 / CORES)) per Puma worker), concur load for $DURATION per row, 10 s timeout; load average $load_before before, $load_after after (other helpers' builds share the 2 CPUs); concur $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet || echo +changes)."
    echo
    echo "| entry | route | clients | answered | errors | unfinished | p50 ms | p99 ms |"
    echo "|---|---|---:|---:|---|---:|---:|---:|"
    printf '%s\n' "${rows[@]}"
} | tee -a "$ROOT/bench/RESULTS.md"
