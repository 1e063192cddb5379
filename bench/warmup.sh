#!/usr/bin/env bash
# Is every server warm when `concur run` measures it? (issue 13)
#
# `concur run` starts a fresh server for every point, repeats included
# (src/run/point.rs), waits for `GET /` to answer, then runs one load whose
# warm-up (not recorded, on the measurement's connections) lasts at least
# the profile's `warmup` and then until throughput is steady, at most its
# `warmup_max` (src/load/warmup.rs). So repeat 1 is no colder than repeat 5,
# and what warms a JVM is only the warm-up inside each point.
# This script runs the same sweep up to three times into a temporary
# database (DB keeps it; SWEEPS picks): `none` (`--warmup 0`), `default`
# (the profile's warm-up), and `long`, a fixed LONG_WARMUP (`--warmup N
# --warmup-max N`, LONG_IMPLS: the JVM entries) as the reference for a warm
# server; each is one `concur run` of SCENARIOS at
# CORES server cores, CONNECTIONS connections (closed loop) for DURATION
# seconds, REPEATS repeats. Per implementation and warm-up it reports
#   - requests/s of repeat 1, the median of repeats 2..N, their ratio, and
#     the spread of repeats 2..N (min/median - max/median): the noise;
#   - p99 of repeat 1 and the median p99 of repeats 2..N;
#   - "1st s / rest": the requests of a point's first measured second over
#     its mean second from the third on (median over all repeats), read
#     from the per-second timeline the database keeps; a server still
#     compiling when the measurement starts shows below 1 here.
#   - the warm-up each point took (median, and the range over the repeats).
# Then (unless CURVE=0) one point of each LONG_IMPLS entry is measured for
# CURVE seconds without warm-up: the warm-up curve, each 5 s as a fraction
# of the steady level, and the warm-up after which it stays within 10% of it.
# The tables are printed and appended to bench/RESULTS.md.
#
# Implementations are not verified by default (`make test` does; VERIFY=1
# verifies each once per run, a minute or more apiece). About 15 minutes.
#
# Usage: bench/warmup.sh
#        IMPLS="java-jetty go-nethttp" LONG_WARMUP=10 bench/warmup.sh
#        CONCUR=target/release/concur bench/warmup.sh   (no build)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMPLS=${IMPLS:-"java-jetty java-jetty-vthreads kotlin-ktor scala-pekko-http go-nethttp"}
LONG_IMPLS=${LONG_IMPLS:-"java-jetty java-jetty-vthreads kotlin-ktor scala-pekko-http"}
SCENARIOS=${SCENARIOS:-hello}
PROFILE=${PROFILE:-quick}
CORES=${CORES:-2}
CONNECTIONS=${CONNECTIONS:-50}
DURATION=${DURATION:-5}
REPEATS=${REPEATS:-5}
LONG_WARMUP=${LONG_WARMUP:-20}
CURVE=${CURVE:-30}
SWEEPS=${SWEEPS:-"none default long"}
VERIFY=${VERIFY:-0}

WORK=$(mktemp -d)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "sqlite3" sqlite3
((DURATION >= 3)) || { echo "$SCRIPT: DURATION=$DURATION: needs at least 3 s (the first second is compared with the rest)" >&2; exit 1; }
((CURVE == 0 || CURVE >= 15)) || { echo "$SCRIPT: CURVE=$CURVE: needs at least 15 s (the last 10 are the steady level)" >&2; exit 1; }
((REPEATS >= 2)) || { echo "$SCRIPT: REPEATS=$REPEATS: needs at least 2 (repeat 1 is compared with the others)" >&2; exit 1; }
CONCUR=${CONCUR:-}
[[ -n $CONCUR ]] || build_concur
trap 'rm -rf "$WORK"' EXIT INT TERM

DB=${DB:-$WORK/warmup.db}
comma() { tr -s ' ' ',' <<<"$1" | sed 's/^,//; s/,$//'; }
verify=(--no-verify)
[[ $VERIFY == 1 ]] && verify=()

# sweep LABEL IMPLS SECONDS REPEATS [--warmup W]: one `concur run`; its log
# goes to stderr and WORK, its run id to WORK/LABEL.id.
sweep() {
    local label=$1 impls=$2 seconds=$3 repeats=$4
    shift 4
    "$CONCUR" run --root "$ROOT" --profile "$PROFILE" --impl "$(comma "$impls")" --scenario "$(comma "$SCENARIOS")" \
        --cores "$CORES" -c "$CONNECTIONS" -d "${seconds}s" --repeat "$repeats" "${verify[@]}" --results "$DB" "$@" 2>&1 |
        tee "$WORK/$label.log" | sed -u "s/^/[$label] /" >&2
    sqlite3 "$DB" "SELECT max(id) FROM runs" >"$WORK/$label.id"
}


# points RUN IMPL SCENARIO: "repeat req/s p99_us first_second_ratio warmup_s" per measured point.
points() {
    sqlite3 -separator ' ' "$DB" "
        SELECT repeat, successes / duration_s, lat_p99_us,
               json_extract(timeline, '\$[0].requests') /
                   (SELECT avg(json_extract(value, '\$.requests')) FROM json_each(timeline) WHERE key BETWEEN 2 AND $((DURATION - 1))),
               warmup_s
        FROM points WHERE run_id = $1 AND implementation = '$2' AND scenario = '$3' AND error IS NULL ORDER BY repeat"
}

# row RUN IMPL SCENARIO: one table row, or nothing when no point was measured.
row() {
    points "$@" >"$WORK/points"
    [[ -s $WORK/points ]] || return 0
    local failed warmup r1 p1 rest spread p99 first
    failed=$(sqlite3 "$DB" "SELECT count(*) FROM points WHERE run_id = $1 AND implementation = '$2' AND scenario = '$3' AND error IS NOT NULL")
    warmup=$(awk '{ print $5 }' "$WORK/points" | median)
    warmup="$warmup ($(awk '{ print $5 }' "$WORK/points" | sort -n | sed -n '1p;$p' | paste -sd-))"
    r1=$(awk '$1 == 1 { print $2 }' "$WORK/points")
    p1=$(awk '$1 == 1 { print $3 }' "$WORK/points")
    rest=$(awk '$1 > 1 { print $2 }' "$WORK/points" | median)
    spread=$(awk -v m="$rest" '$1 > 1 { r = $2 / m; if (lo == "" || r < lo) lo = r; if (r > hi) hi = r } END { printf "%.2f-%.2f", lo, hi }' "$WORK/points")
    p99=$(awk '$1 > 1 { print $3 }' "$WORK/points" | median)
    first=$(awk '{ print $4 }' "$WORK/points" | median)
    awk -v i="$2" -v s="$3" -v w="$warmup" -v r1="${r1:-0}" -v m="$rest" -v sp="$spread" -v p1="${p1:-0}" -v p="$p99" -v f="$first" \
        -v n="$(wc -l <"$WORK/points")" -v x="$failed" \
        'BEGIN { printf "| %s | %s | %s | %d | %d | %s | %s | %.2f | %.2f | %.2f | %d%s |\n", i, s, w, r1, m, (r1 ? sprintf("%.2f", r1 / m) : "-"), sp, p1 / 1000, p / 1000, f, n, (x ? " (" x " failed)" : "") }'
}

# curve RUN IMPL SCENARIO: one row of the warm-up curve of a point measured
# without warm-up: each 5 s as a fraction of the steady level (the median
# second of the last 10), and the warm-up after which every 3-s mean stays
# at 90% of it or more.
curve() {
    sqlite3 -separator ' ' "$DB" "
        SELECT t.key, json_extract(t.value, '\$.requests') FROM points, json_each(points.timeline) AS t
        WHERE run_id = $1 AND implementation = '$2' AND scenario = '$3' AND error IS NULL AND t.key < $CURVE ORDER BY t.key" >"$WORK/curve"
    [[ -s $WORK/curve ]] || return 0
    local steady
    steady=$(awk -v n="$CURVE" '$1 >= n - 10 { print $2 }' "$WORK/curve" | median)
    awk -v i="$2" -v s="$3" -v m="$steady" -v n="$CURVE" '
        { v[$1] = $2 }
        END {
            line = sprintf("| %s | %s | %d |", i, s, m)
            for (a = 0; a + 5 <= n; a += 5) { t = 0; for (k = a; k < a + 5; k++) t += v[k]; line = line sprintf(" %.2f |", t / 5 / m) }
            w = "> " (n - 3) " s"
            for (k = n - 3; k >= 0; k--) { if ((v[k] + v[k + 1] + v[k + 2]) / 3 < 0.9 * m) break; w = k " s" }
            print line " " w " |"
        }' "$WORK/curve"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)
for label in $SWEEPS; do
    case $label in
    none) sweep none "$IMPLS" "$DURATION" "$REPEATS" --warmup 0 ;;
    default) sweep default "$IMPLS" "$DURATION" "$REPEATS" ;;
    long) sweep long "$LONG_IMPLS" "$DURATION" "$REPEATS" --warmup "${LONG_WARMUP}s" --warmup-max "${LONG_WARMUP}s" ;;
    *) echo "$SCRIPT: SWEEPS: unknown sweep '$label' (none, default, long)" >&2; exit 1 ;;
    esac
done
((CURVE == 0)) || sweep curve "$LONG_IMPLS" "$CURVE" 1 --warmup 0
minutes=$(( ($(date +%s) - started + 30) / 60 ))

{
    echo "| implementation | scenario | warm-up s (range) | r1 req/s | median r2..$REPEATS req/s | r1 / median | spread r2..$REPEATS | r1 p99 ms | median p99 ms r2..$REPEATS | 1st s / rest | points |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for impl in $IMPLS; do
        for scenario in $SCENARIOS; do
            for label in $SWEEPS; do row "$(cat "$WORK/$label.id")" "$impl" "$scenario"; done
        done
    done
} >"$WORK/table"
((CURVE == 0)) || {
    printf '| implementation | scenario | steady req/s |'
    for ((a = 1; a + 4 <= CURVE; a += 5)); do printf ' s %d-%d |' "$a" $((a + 4)); done
    echo ' warm-up to 90% |'
    printf '|---|---|---:|'
    for ((a = 1; a + 4 <= CURVE; a += 5)); do printf -- '---:|'; done
    echo '---:|'
    for impl in $LONG_IMPLS; do
        for scenario in $SCENARIOS; do curve "$(cat "$WORK/curve.id")" "$impl" "$scenario"; done
    done
} >"$WORK/curve-table"

first_sweep=${SWEEPS%% *}
points_total=$(sqlite3 "$DB" "SELECT count(*) FROM points WHERE run_id >= $(cat "$WORK/$first_sweep.id")")
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M') UTC: warm-up (bench/warmup.sh)"
    echo
    echo "Sweeps \`$SWEEPS\` of \`concur run --profile $PROFILE --cores $CORES -c $CONNECTIONS -d ${DURATION}s --repeat $REPEATS --scenario $(comma "$SCENARIOS") ${verify[*]}\`, one after another (none: \`--warmup 0\`; default: the profile's warm-up, at least its \`warmup\`, then until steady, at most its \`warmup_max\`; long: a fixed \`--warmup ${LONG_WARMUP}s --warmup-max ${LONG_WARMUP}s\`, JVM entries only)$( ((CURVE == 0)) || echo ', then the warm-up curve below'); $points_total points in $minutes min. Each point is a fresh server on CPUs 0..$((CORES - 1)), the generator on the CPUs left (on the server's when none are); $(nproc) CPUs, kernel $(uname -r), load average $load_before before; concur $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src impls || echo '+changes')."
    echo
    cat "$WORK/table"
    echo
    echo "1st s / rest: requests in a point's first measured second over its mean second from the third on, median of the $REPEATS repeats."
    echo
    ((CURVE == 0)) || echo "Warm-up curve: one point of each JVM entry measured for $CURVE s without warm-up (\`--warmup 0 -d ${CURVE}s --repeat 1\`); each 5 s as a fraction of the steady level (the median second of the last 10), and the warm-up after which every 3-s mean stays at 90% of it or more."
    ((CURVE == 0)) || { echo; cat "$WORK/curve-table"; }
} | tee -a "$ROOT/bench/RESULTS.md"
