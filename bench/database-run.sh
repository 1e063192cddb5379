#!/usr/bin/env bash
# What the database scenarios cost `concur run` in start-up (issue 24): the
# time from asking for the run's cluster to its first accepted login, as
# `concur run` prints it ("== database: ... (ready in X s)"), from the
# reused template (results/postgres, made by the first run when missing,
# which is not counted). Each of REPEATS runs is
#   concur run --scenario db --impl go-nethttp --cores 1 -c 16 -d 1s --warmup 0 --no-verify
# into a throw-away results database. The median and range are printed and
# appended to bench/RESULTS.md with the load average, since the machine is shared.
#
# Usage: bench/database-run.sh
#        REPEATS=9 bench/database-run.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPEATS=${REPEATS:-5}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CONCUR="$ROOT/target/release/concur"
[ -x "$CONCUR" ] || (cd "$ROOT" && cargo build --release --quiet)

run() {
    "$CONCUR" run --root "$ROOT" --scenario db --impl go-nethttp --cores 1 -c 16 -d 1s --warmup 0 --no-verify --results "$WORK/r$1.db" >"$WORK/run$1.log" 2>&1
    sed -n 's/.*(ready in \([0-9.]*\) s).*/\1/p' "$WORK/run$1.log"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
run 0 >/dev/null # makes the template when missing; not counted
times=()
for i in $(seq 1 "$REPEATS"); do
    t=$(run "$i")
    [ -n "$t" ] || { echo "run $i printed no ready time:"; cat "$WORK/run$i.log"; exit 1; }
    times+=("$t")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(printf '%s\n' "$sorted" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
line="- $(date -u +'%Y-%m-%d %H:%M UTC'): the run's cluster from the reused template ready in a median of ${median} s over ${REPEATS} runs (range $(printf '%s\n' "$sorted" | head -1)-$(printf '%s\n' "$sorted" | tail -1) s; each: ${times[*]}), load ${load_before} before, ${load_after} after"
echo "$line"
printf '\n## %s: the run'"'"'s database ready (bench/database-run.sh)\n\n%s\n' "$(date -u +'%Y-%m-%d %H:%M UTC')" "$line" >>"$ROOT/bench/RESULTS.md"
