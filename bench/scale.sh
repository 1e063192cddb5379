#!/usr/bin/env bash
# Can `concur load` hold the connection counts the seeds need on a 2-core
# machine? Two bounded runs, each generator pinned to CPU 1:
#
#   1. 10,000 concurrent keep-alive connections against nginx (one worker
#      pinned to CPU 0, bench/nginx.conf), closed loop, DURATION seconds;
#   2. the thesis' 8,000 long-poll clients against go-nethttp (`concur serve
#      go-nethttp --cores 1`, CPU 0), each poll answered after 5 s, for
#      LONGPOLL_DURATION seconds;
#   3. HELD (100,000, or what the open-file limit allows: one descriptor per
#      connection in the generator and as many in the server, and a root
#      without CAP_SYS_RESOURCE cannot raise the hard limit) idle connections
#      from ONE generator thread: long-poll
#      clients started at SPAWN_RATE per second, one poll each (`-n`),
#      against go-nethttp holding each poll HELD_WAIT_MS (30 s), so that every
#      connection waits, idle, while the generator's CPU and memory are read
#      from /proc (HOLD_SAMPLE seconds while all are held); past one source
#      address's ephemeral ports the generator spreads them over 127.0.0.x.
#
# For each it records the connections the generator held (its own report,
# and for nginx the server's `Active connections`), successes, errors by
# kind, latency p50/p99, and the generator's CPU seconds, and appends a
# dated table to bench/RESULTS.md; run 3 adds the generator's CPU while
# holding, its peak RSS and bytes per connection.
#
# Usage: bench/scale.sh          (DURATION=10 LONGPOLL_DURATION=12 PORT=18081 HELD=100000 SPAWN_RATE=10000)
#        RUNS=3 bench/scale.sh   (only the 100,000; RUNS=12 the first two)
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
HELD=${HELD:-100000}
SPAWN_RATE=${SPAWN_RATE:-10000}
HELD_WAIT_MS=${HELD_WAIT_MS:-30000}
HOLD_SAMPLE=${HOLD_SAMPLE:-5}
RUNS=${RUNS:-123}
# The server of run 3 holds HELD connections, and inherits this shell's limit.
ulimit -Hn 1048576 2>/dev/null || true
ulimit -n "$(ulimit -Hn)"
HELD_ASKED=$HELD
if (( HELD + 64 > $(ulimit -n) )); then
    HELD=$(( $(ulimit -n) - 64 ))
    echo "scale.sh: the open-file limit is $(ulimit -n) (hard; raising it needs CAP_SYS_RESOURCE): holding $HELD connections instead of $HELD_ASKED" >&2
fi

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

# CPU seconds (user + system) of process PID so far, from /proc/PID/stat.
cpu_of() {
    awk -v tick="$(getconf CLK_TCK)" '{ print ($14 + $15) / tick }' "/proc/$1/stat"
}

rows=()
if [[ $RUNS == *1* ]]; then
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
rows+=("$(summarise "nginx \`GET /\`, keep-alive, ${DURATION} s" "$CONNECTIONS" "$WORK/conn.json" "$cpu1" " (nginx saw $active active)")")
fi

if [[ $RUNS == *2* ]]; then
# --- 2. 8,000 long-poll clients against go-nethttp -------------------------
start_impl "$ROOT" go-nethttp "$GO_PORT"

echo "$POLLERS long-poll clients to go-nethttp for ${LONGPOLL_DURATION}s..." >&2
/usr/bin/time -f "%U %S" -o "$WORK/time2" \
    "$CONCUR" load "http://127.0.0.1:$GO_PORT" --scenario longpoll -c "$POLLERS" -d "${LONGPOLL_DURATION}s" --cpus "$GENERATOR_CPU" --json "$WORK/poll.json" >"$WORK/poll.out" 2>&1 ||
    { echo "scale.sh: concur load failed:" >&2; cat "$WORK/poll.out" >&2; exit 1; }
cpu2=$(awk '{ print $1 + $2 }' "$WORK/time2")
stop_impl
rows+=("$(summarise "go-nethttp \`GET /longPoll\` (5 s), ${LONGPOLL_DURATION} s" "$POLLERS" "$WORK/poll.json" "$cpu2" "")")
fi

held_row=
if [[ $RUNS == *3* ]]; then
# --- 3. HELD idle connections from one generator thread ----------------------
CONCUR_LONGPOLL_MS=$HELD_WAIT_MS start_impl "$ROOT" go-nethttp "$GO_PORT" "$SERVER_CPU"
spawn_s=$(( (HELD + SPAWN_RATE - 1) / SPAWN_RATE ))
echo "$HELD long-poll clients, one thread, started at $SPAWN_RATE/s (${spawn_s} s), each held ${HELD_WAIT_MS} ms..." >&2
/usr/bin/time -f "%U %S %M" -o "$WORK/time3" \
    "$CONCUR" load "http://127.0.0.1:$GO_PORT" --scenario longpoll -c "$HELD" -n "$HELD" -t 1 --spawn-rate "$SPAWN_RATE" \
    --timeout "$(( HELD_WAIT_MS / 1000 + 30 ))s" --cpus "$GENERATOR_CPU" --json "$WORK/held.json" >"$WORK/held.out" 2>&1 &
LOAD=$!
# While every client is held: from one second after the last connect, HOLD_SAMPLE seconds.
sleep $((spawn_s + 1))
gen=$(pgrep -P "$LOAD" -x concur || echo "$LOAD")
established=$(ss -Htn state established "( dport = :$GO_PORT )" | wc -l)
c0=$(cpu_of "$gen"); t0=$(date +%s.%N)
sleep "$HOLD_SAMPLE"
c1=$(cpu_of "$gen"); t1=$(date +%s.%N)
rss_holding=$(awk '/^VmRSS/ { print $2 }' "/proc/$gen/status")
wait "$LOAD" || { echo "scale.sh: concur load failed:" >&2; cat "$WORK/held.out" >&2; exit 1; }
stop_impl
read -r u3 s3 maxrss3 <"$WORK/time3"
held_row=$(python3 - "$WORK/held.json" "$HELD" "$established" "$c0" "$c1" "$t0" "$t1" "$rss_holding" "$maxrss3" "$u3" "$s3" <<'EOF'
import json, sys
path, asked, established, c0, c1, t0, t1, rss_kib, maxrss_kib, u, s = sys.argv[1:]
r = json.load(open(path))
holding = (float(c1) - float(c0)) / (float(t1) - float(t0))
e = r["errors_by_kind"]
kinds = ", ".join([f"{k} {v}" for k, v in e.items() if isinstance(v, int) and v] + [f"status {c}: {n}" for c, n in e.get("status", {}).items()]) or "none"
lat = r["latency"]
print(f"| {int(asked):,} | {r['peak_in_flight']:,} | {int(established):,} | {r['requests']:,} | {kinds} | "
      f"{lat['p50_us'] / 1000:.0f} / {lat['max_us'] / 1000:.0f} | {holding * 100:.1f}% | {int(rss_kib) / 1024:.0f} / {int(maxrss_kib) / 1024:.0f} | "
      f"{int(maxrss_kib) * 1024 / int(asked):,.0f} | {float(u) + float(s):.2f} |")
EOF
)
fi

{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC'): scale (bench/scale.sh)"
    echo
    echo "Generator on CPU $GENERATOR_CPU, server on CPU $SERVER_CPU; $(nproc) CPUs, kernel $(uname -r); open-file limit of this shell $(ulimit -n) (concur raises its own); concur $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo '+changes')."
    echo
    if (( ${#rows[@]} )); then
        echo "| run | connections asked | connections held | successes | successes/s | errors | latency p50 / p99 / max (ms) | generator CPU s | warnings |"
        echo "|---|---:|---:|---:|---:|---|---|---:|---|"
        printf '%s\n' "${rows[@]}"
        echo
    fi
    if [[ -n $held_row ]]; then
        echo "One generator thread holding long-poll clients of go-nethttp (\`CONCUR_LONGPOLL_MS=$HELD_WAIT_MS\`, server on CPU $SERVER_CPU), started at $SPAWN_RATE/s, one poll each; the generator's CPU and RSS read from /proc for ${HOLD_SAMPLE} s while all were held; load $(cut -d' ' -f1-3 /proc/loadavg)."
        if (( HELD < HELD_ASKED )); then
            echo
            echo "$HELD_ASKED were asked; the open-file limit here is $(ulimit -n) descriptors per process (hard, and this root lacks CAP_SYS_RESOURCE to raise it), so no process, generator or server, holds more than that many connections on this machine."
        fi
        echo
        echo "| clients | held at once (peak in flight) | established (ss) | answered | errors | latency p50 / max (ms) | generator CPU while holding | generator RSS holding / peak (MiB) | bytes per connection (peak RSS) | generator CPU s, whole run |"
        echo "|---:|---:|---:|---:|---|---|---:|---|---:|---:|"
        echo "$held_row"
    fi
} | tee -a "$ROOT/bench/RESULTS.md"
