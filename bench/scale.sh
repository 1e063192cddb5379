#!/usr/bin/env bash
# Can `concur load` hold the connection counts the seeds need on a 2-core
# machine? Two bounded runs, each generator pinned to CPU 1:
#
#   1. 10,000 concurrent keep-alive connections against nginx (one worker
#      pinned to CPU 0, bench/nginx.conf), closed loop, DURATION seconds;
#   2. the thesis' 8,000 long-poll clients against go-nethttp (`concur serve
#      go-nethttp --cores 1`, CPU 0), each poll answered after 5 s, for
#      LONGPOLL_DURATION seconds.
#
# For each it records the connections the generator held (its own report,
# and for nginx the server's `Active connections`), successes, errors by
# kind, latency p50/p99, and the generator's CPU seconds, and appends a
# dated table to bench/RESULTS.md.
#
# Usage: bench/scale.sh          (DURATION=10 LONGPOLL_DURATION=12 PORT=18081)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURATION=${DURATION:-10}
LONGPOLL_DURATION=${LONGPOLL_DURATION:-12}
CONNECTIONS=${CONNECTIONS:-10000}
POLLERS=${POLLERS:-8000}
PORT=${PORT:-18081}
GO_PORT=${GO_PORT:-18082}
SERVER_CPU=${SERVER_CPU:-0}
GENERATOR_CPU=${GENERATOR_CPU:-1}

WORK=$(mktemp -d)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "nginx util-linux curl python3 time" nginx taskset curl python3 /usr/bin/time
build_concur

SERVE_PID=
cleanup() {
    stop_nginx
    stop_impl
    sleep 0.3
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# One line per run: name, connections asked, then the figures of the JSON.
summarise() {
    local name=$1 asked=$2 json=$3 cpu=$4 extra=$5
    python3 - "$name" "$asked" "$json" "$cpu" "$extra" <<'EOF'
import json, sys
name, asked, path, cpu, extra = sys.argv[1:]
r = json.load(open(path))
e = r["errors_by_kind"]
kinds = [f"{k} {v}" for k, v in e.items() if isinstance(v, int) and v]
kinds += [f"status {code}: {n}" for code, n in e.get("status", {}).items()]
kinds = ", ".join(kinds) or "none"
lat = r["latency"]
warn = "; ".join(r.get("warnings", [])) or "none"
print(f"| {name} | {asked} | {r['settings']['connections']}{extra} | {r['requests']} | {r['requests_per_s']:.0f} | {kinds} | "
      f"{lat['p50_us'] / 1000:.1f} / {lat['p99_us'] / 1000:.1f} / {lat['max_us'] / 1000:.1f} | {float(cpu):.2f} | {warn} |")
EOF
}

# --- 1. 10,000 keep-alive connections against nginx ----------------------
start_nginx "$PORT"

echo "$CONNECTIONS keep-alive connections to nginx for ${DURATION}s..." >&2
/usr/bin/time -f "%U %S" -o "$WORK/time1" \
    "$CONCUR" load "http://127.0.0.1:$PORT/" -c "$CONNECTIONS" -d "${DURATION}s" --cpus "$GENERATOR_CPU" --json "$WORK/conn.json" >"$WORK/conn.out" 2>&1 &
LOAD=$!
# nginx's own count of open connections, half-way through the run.
sleep $((DURATION / 2))
active=$(curl -sf "http://127.0.0.1:$PORT/nginx_status" | awk 'NR == 1 { print $3 }')
wait "$LOAD" || { echo "scale.sh: concur load failed:" >&2; cat "$WORK/conn.out" >&2; exit 1; }
cpu1=$(awk '{ print $1 + $2 }' "$WORK/time1")
stop_nginx

# --- 2. 8,000 long-poll clients against go-nethttp -------------------------
start_impl "$ROOT" go-nethttp "$GO_PORT"

echo "$POLLERS long-poll clients to go-nethttp for ${LONGPOLL_DURATION}s..." >&2
/usr/bin/time -f "%U %S" -o "$WORK/time2" \
    "$CONCUR" load "http://127.0.0.1:$GO_PORT" --scenario longpoll -c "$POLLERS" -d "${LONGPOLL_DURATION}s" --cpus "$GENERATOR_CPU" --json "$WORK/poll.json" >"$WORK/poll.out" 2>&1 ||
    { echo "scale.sh: concur load failed:" >&2; cat "$WORK/poll.out" >&2; exit 1; }
cpu2=$(awk '{ print $1 + $2 }' "$WORK/time2")

{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC'): scale (bench/scale.sh)"
    echo
    echo "Generator on CPU $GENERATOR_CPU, server on CPU $SERVER_CPU; $(nproc) CPUs, kernel $(uname -r); open-file limit of this shell $(ulimit -n) (concur raises its own); concur $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo '+changes')."
    echo
    echo "| run | connections asked | connections held | successes | successes/s | errors | latency p50 / p99 / max (ms) | generator CPU s | warnings |"
    echo "|---|---:|---:|---:|---:|---|---|---:|---|"
    summarise "nginx \`GET /\`, keep-alive, ${DURATION} s" "$CONNECTIONS" "$WORK/conn.json" "$cpu1" " (nginx saw $active active)"
    summarise "go-nethttp \`GET /longPoll\` (5 s), ${LONGPOLL_DURATION} s" "$POLLERS" "$WORK/poll.json" "$cpu2" ""
} | tee -a "$ROOT/bench/RESULTS.md"
