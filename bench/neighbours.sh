#!/usr/bin/env bash
# Does an idle neighbour disturb a measured server? In a block design
# (spec/PROFILES.md, "Blocks") every implementation's server waits, warm and
# pinned to the same CPUs, while the others take their windows. This
# measures one implementation's hello windows at 1 core two ways,
# alternating, REPEATS times:
#   alone:   concur run --impl TARGET --blocks BLOCKS (its server alone on its CPU)
#   crowded: concur run --impl TARGET,NEIGHBOURS --blocks BLOCKS (the same
#            windows, the neighbours' servers idle beside it between theirs)
# each into a throw-away results database, with quick's hello settings (1 s
# windows, 250 ms re-warm). Printed and appended to bench/RESULTS.md: per
# run the target's median window and the spread of its windows, and the
# ratio of the crowded medians to the alone ones: an A/A pair whose ratio
# should hold 1 within the windows' own noise.
#
# Usage: bench/neighbours.sh [TARGET] [NEIGHBOURS]
#        REPEATS=3 BLOCKS=6 bench/neighbours.sh go-nethttp java-jetty,kotlin-ktor,elixir,node-http,ruby-rails
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${1:-go-nethttp}
NEIGHBOURS=${2:-java-jetty,kotlin-ktor,scala-pekko-http,elixir,node-http,ruby-rails,python-fastapi}
REPEATS=${REPEATS:-3}
BLOCKS=${BLOCKS:-6}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "python3" python3
build_concur

# The median and the relative spread (half the range over the median) of TARGET's windows in DB.
windows() {
    python3 - "$1" "$TARGET" <<'EOF'
import sqlite3, statistics, sys
db, target = sys.argv[1], sys.argv[2]
rows = sqlite3.connect(db).execute(
    "SELECT successes / duration_s FROM points WHERE implementation = ? AND scenario = 'hello' AND error IS NULL ORDER BY repeat",
    (target,)).fetchall()
v = [r[0] for r in rows]
m = statistics.median(v)
print(f"{m:.0f} {(max(v) - min(v)) / 2 / m * 100:.1f} {len(v)} {' '.join(f'{x:.0f}' for x in v)}")
EOF
}

run() {
    local variant=$1 impls=$2 db="$WORK/$1-$3.db" started
    started=$(date +%s)
    "$CONCUR" run --profile quick --scenario hello --cores 1 --impl "$impls" --blocks "$BLOCKS" --no-verify --results "$db" >"$WORK/$variant-$3.log" 2>&1 ||
        { echo "$SCRIPT: the $variant run failed:" >&2; tail -20 "$WORK/$variant-$3.log" >&2; exit 1; }
    echo "$variant $3 $(($(date +%s) - started)) $(windows "$db") $(cut -d' ' -f1 /proc/loadavg)"
}

# quick's capacity and clients-held searches are not what this measures: a copy of the profile without them.
quick_points_root "$WORK/root"
ln -s "$ROOT/results" "$WORK/root/results"
cd "$WORK/root"

OUT="$WORK/results.txt"
for r in $(seq "$REPEATS"); do
    run alone "$TARGET" "$r" | tee -a "$OUT"
    run crowded "$TARGET,$NEIGHBOURS" "$r" | tee -a "$OUT"
done

python3 - "$OUT" "$TARGET" "$NEIGHBOURS" "$BLOCKS" >>"$ROOT/bench/RESULTS.md" <<'EOF'
import statistics, sys, datetime
path, target, neighbours, blocks = sys.argv[1:5]
runs = [l.split() for l in open(path)]
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
print(f"\n## {now}: idle neighbours beside a measured server (bench/neighbours.sh)\n")
print(f"{target}'s hello windows at 1 core ({blocks} per run, 1 s each after a 250 ms re-warm), alone on its CPU and with "
      f"{neighbours} idle beside it between their own windows, alternating:\n")
print("| run | variant | wall s | median req/s | spread | windows | load average |")
print("|---|---|---:|---:|---:|---|---:|")
for v, r, wall, med, spread, n, *rest in runs:
    values, load = rest[:-1], rest[-1]
    print(f"| {r} | {v} | {wall} | {float(med):,.0f} | ±{spread}% | {' '.join(values)} | {load} |")
alone = [float(x[3]) for x in runs if x[0] == "alone"]
crowded = [float(x[3]) for x in runs if x[0] == "crowded"]
ratios = [c / a for a, c in zip(alone, crowded)]
print(f"\nCrowded over alone, run by run: {', '.join(f'{x:.3f}' for x in ratios)}; median {statistics.median(ratios):.3f}.")
EOF
tail -n 20 "$ROOT/bench/RESULTS.md"
