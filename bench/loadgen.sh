#!/usr/bin/env bash
# Side-by-side cost of load generators against one fixed server.
#
# nginx (Debian package, one worker pinned to CPU 0) answers `Hello, World!`
# on a loopback port; each generator in turn, pinned to CPU 1, drives it with
# 50 connections for 10 s; the tools alternate, several repeats. For each run:
# requests served (nginx's own counter, the same for every tool), the
# generator's CPU seconds (user + system of the process, from wait4 via GNU
# time), requests/s, CPU seconds per 1,000 requests, and the generator core's
# utilisation. Medians and the concur/wrk ratios are appended to
# bench/RESULTS.md. The bar: concur load <= 0.8x wrk's CPU per request and
# >= wrk's requests/s.
#
# The fixed-rate comparison runs in the same alternation: `concur load -R RATE`
# and, when oha is on the PATH, `oha -q RATE --latency-correction` (both
# measure latency from each request's intended send time), with the same CPU
# figures plus each tool's own p50/p99 from its JSON output, as a sanity check
# that both see the same server. The bar: concur load <= 20% of the generator
# core at 20,000 requests/s; the concur/oha ratio of core utilisation is
# written beside it. oha installs with `cargo install oha --locked` (oha 1.16.0
# took 23 min here, at nice 15 on the 2-core machine shared with two other
# Rust builds).
#
# Usage: bench/loadgen.sh            (REPEATS=5 DURATION=10 CONNECTIONS=50 RATE=20000 PORT=18080)
#        REPEATS=3 bench/loadgen.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPEATS=${REPEATS:-5}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-50}
RATE=${RATE:-20000}
PORT=${PORT:-18080}
SERVER_CPU=${SERVER_CPU:-0}
GENERATOR_CPU=${GENERATOR_CPU:-1}
URL="http://127.0.0.1:$PORT/"

WORK=$(mktemp -d)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "nginx wrk util-linux time curl jq" nginx wrk taskset /usr/bin/time curl awk jq
build_concur

cleanup() {
    stop_nginx
    sleep 0.3
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

start_nginx "$PORT"

served() { curl -sf "http://127.0.0.1:$PORT/nginx_status" | awk 'NR == 3 { print $3 }'; }

# One measured run: prints "tool requests wall_s cpu_s p50_us p99_us sys_s" (the
# percentiles, from the tool's own JSON, only for the fixed-rate runs; else -;
# sys_s: the part of cpu_s spent in the kernel).
measure() {
    local tool=$1 cmd
    case $tool in
        wrk) cmd=(wrk -t 1 -c "$CONNECTIONS" -d "${DURATION}s" "$URL") ;;
        concur) cmd=("$CONCUR" load "$URL" -t 1 -c "$CONNECTIONS" -d "${DURATION}s") ;;
        ab) cmd=(ab -q -k -c "$CONNECTIONS" -t "$DURATION" -n 100000000 "$URL") ;;
        oha) cmd=(oha --no-tui -z "${DURATION}s" -c "$CONNECTIONS" "$URL") ;;
        concur-rate) cmd=("$CONCUR" load "$URL" -t 1 -c "$CONNECTIONS" -d "${DURATION}s" -R "$RATE" --json "$WORK/$tool.json") ;;
        oha-rate) cmd=(oha --no-tui -z "${DURATION}s" -c "$CONNECTIONS" -q "$RATE" --latency-correction --output-format json "$URL") ;;
    esac
    local before after
    before=$(served)
    /usr/bin/time -f "%e %U %S" -o "$WORK/time" taskset -c "$GENERATOR_CPU" "${cmd[@]}" >"$WORK/$tool.out" 2>"$WORK/$tool.err" ||
        { echo "loadgen.sh: $tool failed:" >&2; cat "$WORK/$tool.out" "$WORK/$tool.err" >&2; exit 1; }
    after=$(served)
    read -r wall user sys <"$WORK/time"
    local latency="- -"
    case $tool in
        concur-rate) latency=$(jq -r '"\(.latency.p50_us) \(.latency.p99_us)"' "$WORK/$tool.json") ;;
        oha-rate) latency=$(jq -r '"\(.latencyPercentiles.p50 * 1e6 | round) \(.latencyPercentiles.p99 * 1e6 | round)"' "$WORK/$tool.out") ;;
    esac
    # Minus the status request itself.
    echo "$tool $((after - before - 1)) $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $latency $sys"
}

TOOLS=(wrk concur ab)
command -v oha >/dev/null && TOOLS+=(oha)
TOOLS+=(concur-rate)
command -v oha >/dev/null && TOOLS+=(oha-rate)

echo "warm-up..." >&2
taskset -c "$GENERATOR_CPU" "$CONCUR" load "$URL" -t 1 -c "$CONNECTIONS" -d 2s >/dev/null

: >"$WORK/runs"
for repeat in $(seq "$REPEATS"); do
    # Alternate the order so that no tool always runs first or last.
    order=("${TOOLS[@]}")
    if ((repeat % 2 == 0)); then order=(); for ((i = ${#TOOLS[@]} - 1; i >= 0; i--)); do order+=("${TOOLS[i]}"); done; fi
    for tool in "${order[@]}"; do
        line=$(measure "$tool")
        echo "$line" >>"$WORK/runs"
        echo "repeat $repeat: $line" | awk '{ printf "%s %s %-11s %10d requests %6.2fs wall %6.3fs CPU  %9.0f req/s  %.4f CPU s/1000 req  p50 %s p99 %s us\n", $1, $2, $3, $4, $5, $6, $4 / $5, $6 * 1000 / $4, $7, $8 }' >&2
    done
done

# Medians per tool: requests/s, CPU s per 1000 requests, core utilisation, p50 and p99 (µs, fixed rate only),
# the kernel's share of the CPU, and the kernel's time alone as a share of the core.
summary=$(awk '
    { n[$1]++; rps[$1, n[$1]] = $2 / $3; cpu[$1, n[$1]] = $4 * 1000 / $2; util[$1, n[$1]] = $4 / $3; p50[$1, n[$1]] = $5; p99[$1, n[$1]] = $6
      kshare[$1, n[$1]] = ($4 > 0) ? $7 / $4 : 0; kutil[$1, n[$1]] = $7 / $3 }
    function median(a, t, k,   v, i, j, x) {
        for (i = 1; i <= k; i++) v[i] = a[t, i]
        for (i = 2; i <= k; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
        return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
    }
    function pct(a, t, k) { return (a[t, 1] == "-") ? "-" : sprintf("%.0f", median(a, t, k)) }
    END { for (t in n) printf "%s %.0f %.5f %.3f %d %s %s %.3f %.3f\n", t, median(rps, t, n[t]), median(cpu, t, n[t]), median(util, t, n[t]), n[t], pct(p50, t, n[t]), pct(p99, t, n[t]), median(kshare, t, n[t]), median(kutil, t, n[t]) }
' "$WORK/runs" | sort)

field() { awk -v t="$1" -v f="$2" '$1 == t { print $f }' <<<"$summary"; }
cpu_ratio=$(awk -v c="$(field concur 3)" -v w="$(field wrk 3)" 'BEGIN { printf "%.2f", c / w }')
rps_ratio=$(awk -v c="$(field concur 2)" -v w="$(field wrk 2)" 'BEGIN { printf "%.2f", c / w }')
verdict() { awk -v r="$1" -v bar="$2" -v op="$3" 'BEGIN { ok = (op == "le") ? r <= bar : r >= bar; print ok ? "met" : "MISSED" }'; }
rate_util=$(field concur-rate 4)
oha_version=$( (oha --version 2>/dev/null || echo "oha not installed") | head -1)

{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "$(nginx -v 2>&1 | sed 's/.*: //'), one worker on CPU $SERVER_CPU; each generator on CPU $GENERATOR_CPU, $CONNECTIONS connections, ${DURATION} s, $REPEATS alternating repeats; $(nproc) CPUs, kernel $(uname -r); concur $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo '+changes'); $oha_version."
    echo
    echo "| generator | requests/s | CPU s per 1,000 requests | generator core utilisation | of it in the kernel | runs |"
    echo "|---|---:|---:|---:|---:|---:|"
    while read -r tool rps cpu util runs _ _ kshare _; do
        case $tool in
            wrk) name="wrk $( (wrk -v 2>&1 || true) | awk 'NR == 1 { print $2 }')" ;; concur) name="concur load" ;; ab) name="ab -k" ;;
            concur-rate | oha-rate) continue ;; *) name=$tool ;;
        esac
        echo "| $name | $rps | $cpu | $(awk -v u="$util" 'BEGIN { printf "%.0f%%", u * 100 }') | $(awk -v k="$kshare" 'BEGIN { printf "%.0f%%", k * 100 }') | $runs |"
    done <<<"$summary"
    echo
    echo "Medians. concur / wrk: CPU per request **$cpu_ratio** (bar <= 0.80: $(verdict "$cpu_ratio" 0.80 le)), requests/s **$rps_ratio** (bar >= 1.00: $(verdict "$rps_ratio" 1.00 ge))."
    echo
    echo "Fixed rate, $RATE requests/s asked, same runs' alternation (latency from each request's intended send time, as each tool reports it):"
    echo
    echo "| generator | requests/s served | CPU s per 1,000 requests | generator core utilisation | of it in the kernel | p50 latency | p99 latency | runs |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    while read -r tool rps cpu util runs p50 p99 kshare _; do
        case $tool in concur-rate) name="concur load -R $RATE" ;; oha-rate) name="oha -q $RATE --latency-correction" ;; *) continue ;; esac
        echo "| $name | $rps | $cpu | $(awk -v u="$util" 'BEGIN { printf "%.0f%%", u * 100 }') | $(awk -v k="$kshare" 'BEGIN { printf "%.0f%%", k * 100 }') | $p50 µs | $p99 µs | $runs |"
    done <<<"$summary"
    echo
    line="Medians. concur load at $RATE/s: **$(awk -v u="$rate_util" 'BEGIN { printf "%.0f%%", u * 100 }')** of a core (bar <= 20%: $(verdict "$rate_util" 0.20 le))"
    if [[ -n $(field oha-rate 4) ]]; then
        line+=", concur / oha core utilisation **$(awk -v c="$rate_util" -v o="$(field oha-rate 4)" 'BEGIN { printf "%.2f", c / o }')**"
    fi
    echo "$line."
    # What no user-space change can take away: the kernel's time alone (sending into the
    # server's socket over loopback, waking it, receiving), as a share of the core.
    echo
    echo "Of concur load's $RATE/s, the kernel's time alone (system CPU): **$(awk -v k="$(field concur-rate 9)" 'BEGIN { printf "%.0f%%", k * 100 }')** of a core; wrk's closed loop spends $(awk -v k="$(field wrk 8)" 'BEGIN { printf "%.0f%%", k * 100 }') of its CPU in the kernel."
} | tee -a "$ROOT/bench/RESULTS.md"
