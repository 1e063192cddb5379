#!/usr/bin/env bash
# The database scenarios of `quick` measured two ways, alternating, REPEATS
# times: as quick measures them (a scenario with `after` in
# spec/profiles/quick.toml follows its host's point on one server per
# implementation, warmed up there from quick's 2 s until steady, at most as
# long as a fresh point), and with every point on a fresh server of its own
# (the same profile without `after`: a start and the manifest's warm-up
# each). A scenario without `after` is measured on fresh servers both ways:
# an A/A pair, the noise of one point. Each run is
#   concur run --profile quick --scenario db,fortunes,slowdb --impl IMPLS --no-verify
# into a throw-away results database (the fresh variant from a copy of spec/
# whose quick.toml has no `after`). Printed and appended to bench/RESULTS.md:
# each run's wall time, and per implementation and scenario the median
# throughput, p99 and warm-up (as long as it took) of each variant and the
# throughputs' ratio, with the load average.
#
# Usage: bench/shared-server.sh [IMPL,...]    (default: the four JVM entries and go-nethttp)
#        REPEATS=5 bench/shared-server.sh java-jetty,kotlin-ktor
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMPLS=${1:-java-jetty,java-jetty-vthreads,kotlin-ktor,scala-pekko-http,go-nethttp}
REPEATS=${REPEATS:-3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "python3" python3
build_concur

# The fresh variant's repository: the same implementations and results
# folder (the built servers and the database template), spec/ without `after`.
FRESH="$WORK/fresh"
mkdir -p "$FRESH"
ln -s "$ROOT/impls" "$FRESH/impls"
ln -s "$ROOT/results" "$FRESH/results"
cp -r "$ROOT/spec" "$FRESH/spec"
sed -i '/^after = /d' "$FRESH/spec/profiles/quick.toml"
grep -q '^after = ' "$ROOT/spec/profiles/quick.toml" || { echo "$SCRIPT: spec/profiles/quick.toml has no 'after': nothing to compare" >&2; exit 1; }

run() { # VARIANT ROOT N: one run; prints its wall seconds
    local started=$SECONDS
    "$CONCUR" run --root "$2" --profile quick --scenario db,fortunes,slowdb --impl "$IMPLS" --no-verify --db "$WORK/$1$3.db" >"$WORK/$1$3.log" 2>&1 ||
        { echo "$SCRIPT: the $1 run $3 failed:" >&2; tail -20 "$WORK/$1$3.log" >&2; exit 1; }
    echo $((SECONDS - started))
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
shared_s=() fresh_s=()
for i in $(seq 1 "$REPEATS"); do
    # Alternate which variant goes first, so that drift falls on both.
    if ((i % 2)); then
        shared_s+=("$(run shared "$ROOT" "$i")"); fresh_s+=("$(run fresh "$FRESH" "$i")")
    else
        fresh_s+=("$(run fresh "$FRESH" "$i")"); shared_s+=("$(run shared "$ROOT" "$i")")
    fi
    echo "run $i: shared server ${shared_s[-1]} s, fresh servers ${fresh_s[-1]} s" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

table=$(python3 - "$WORK" "$REPEATS" <<'EOF'
import sqlite3, statistics, sys
work, repeats = sys.argv[1], int(sys.argv[2])
rows = {}
for variant in ("shared", "fresh"):
    for i in range(1, repeats + 1):
        db = sqlite3.connect(f"{work}/{variant}{i}.db")
        for impl, scenario, requests, duration, p99, warmup, error, server_from in db.execute(
                "SELECT implementation, scenario, requests, duration_s, lat_p99_us, warmup_s, error, server_from FROM points"):
            if error:
                print(f"- {variant} run {i}: {impl} {scenario} failed: {error.splitlines()[0]}")
                continue
            if variant == "shared" and scenario != "db" and not server_from:
                print(f"- shared run {i}: {impl} {scenario} was measured on a fresh server (its db point's server was gone)")
            rows.setdefault((impl, scenario), {}).setdefault(variant, []).append((requests / duration, p99 / 1000, warmup))
print("| implementation | scenario | shared: req/s | fresh: req/s | shared / fresh | shared: p99 ms | fresh: p99 ms | shared: warm-up s | fresh: warm-up s |")
print("|---|---|---|---|---|---|---|---|---|")
for (impl, scenario), v in sorted(rows.items()):
    if "shared" not in v or "fresh" not in v:
        continue
    med = lambda xs, k: statistics.median(x[k] for x in xs)
    s, f = med(v["shared"], 0), med(v["fresh"], 0)
    each = lambda xs: ", ".join(f"{x[0]:.0f}" for x in xs)
    print(f"| {impl} | {scenario} | {s:,.0f} ({each(v['shared'])}) | {f:,.0f} ({each(v['fresh'])}) | {s / f:.2f} | {med(v['shared'], 1):.1f} | {med(v['fresh'], 1):.1f} | {med(v['shared'], 2):.1f} | {med(v['fresh'], 2):.1f} |")
EOF
)
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
summary="$REPEATS runs each, alternating; wall time of one run of $IMPLS: shared server median $(median "${shared_s[@]}") s (${shared_s[*]}), fresh servers median $(median "${fresh_s[@]}") s (${fresh_s[*]}); load ${load_before} before, ${load_after} after"
echo "$summary"
echo "$table"
printf '\n## %s: the database scenarios on one server per implementation against fresh servers (bench/shared-server.sh)\n\n%s\n\n%s\n' \
    "$(date -u +'%Y-%m-%d %H:%M UTC')" "$summary" "$table" >>"$ROOT/bench/RESULTS.md"
