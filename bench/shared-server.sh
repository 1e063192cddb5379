#!/usr/bin/env bash
# The database scenarios of `quick` measured two ways, alternating, REPEATS
# times: with some scenarios following another's point on one server per
# implementation (FOLLOW, written as `after` lines into a copy of
# spec/profiles/quick.toml: spec/PROFILES.md "One server for several
# scenarios"; each warmed up there from quick's 2 s until steady, at most as
# long as a fresh point), and with every point on a fresh server of its own
# (a start and the manifest's warm-up each). A scenario that follows none is
# measured on fresh servers both ways: an A/A pair, the noise of one point.
# Each run is
#   concur run --profile quick --scenario db,fortunes,slowdb --impl IMPLS --no-verify
# into a throw-away results database, from a repository beside this one
# (its implementations and results folder, a copy of spec/). Printed and
# appended to bench/RESULTS.md: each run's wall time, and per implementation
# and scenario the median throughput, p99 and warm-up (as long as it took) of
# each variant and the throughputs' ratio, with the load average.
#
# Usage: bench/shared-server.sh [IMPL,...]    (default: the four JVM entries and go-nethttp)
#        REPEATS=5 FOLLOW='slowdb:db' bench/shared-server.sh deno,bun
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMPLS=${1:-java-jetty,java-jetty-vthreads,kotlin-ktor,scala-pekko-http,go-nethttp}
REPEATS=${REPEATS:-3}
# Which scenario follows which on the shared server: NAME:HOST pairs.
FOLLOW=${FOLLOW:-fortunes:db slowdb:fortunes}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "python3" python3
build_concur

for variant in shared fresh; do
    mkdir -p "$WORK/$variant"
    ln -s "$ROOT/impls" "$WORK/$variant/impls"
    ln -s "$ROOT/results" "$WORK/$variant/results"
    cp -r "$ROOT/spec" "$WORK/$variant/spec"
    sed -i '/^after = /d' "$WORK/$variant/spec/profiles/quick.toml"
done
# shellcheck disable=SC2086 # FOLLOW is a list of words
python3 - "$WORK/shared/spec/profiles/quick.toml" $FOLLOW <<'PY'
import sys
path, pairs = sys.argv[1], [p.split(":") for p in sys.argv[2:]]
lines = open(path).read().split("\n")
for name, host in pairs:
    section = f"[scenario.{name}]"
    if section not in lines:
        sys.exit(f"shared-server.sh: FOLLOW names {name}, which spec/profiles/quick.toml has no {section} for")
    lines.insert(lines.index(section) + 1, f'after = "{host}"')
open(path, "w").write("\n".join(lines))
PY

run() { # VARIANT N: one run; prints its wall seconds
    local started=$SECONDS
    "$CONCUR" run --root "$WORK/$1" --profile quick --scenario db,fortunes,slowdb --impl "$IMPLS" --no-verify --results "$WORK/$1$2.db" >"$WORK/$1$2.log" 2>&1 ||
        { echo "$SCRIPT: the $1 run $2 failed:" >&2; tail -20 "$WORK/$1$2.log" >&2; exit 1; }
    echo $((SECONDS - started))
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
shared_s=() fresh_s=()
for i in $(seq 1 "$REPEATS"); do
    # Alternate which variant goes first, so that drift falls on both.
    if ((i % 2)); then
        shared_s+=("$(run shared "$i")"); fresh_s+=("$(run fresh "$i")")
    else
        fresh_s+=("$(run fresh "$i")"); shared_s+=("$(run shared "$i")")
    fi
    echo "run $i: shared server ${shared_s[-1]} s, fresh servers ${fresh_s[-1]} s" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

followers=$(for pair in $FOLLOW; do echo "${pair%%:*}"; done)
# shellcheck disable=SC2086 # one argument per scenario
table=$(python3 - "$WORK" "$REPEATS" $followers <<'PY'
import sqlite3, statistics, sys
work, repeats, followers = sys.argv[1], int(sys.argv[2]), set(sys.argv[3:])
rows = {}
for variant in ("shared", "fresh"):
    for i in range(1, repeats + 1):
        db = sqlite3.connect(f"{work}/{variant}{i}.db")
        for impl, scenario, requests, duration, p99, warmup, error, server_from in db.execute(
                "SELECT implementation, scenario, requests, duration_s, lat_p99_us, warmup_s, error, server_from FROM points"):
            if error:
                print(f"- {variant} run {i}: {impl} {scenario} failed: {error.splitlines()[0]}")
                continue
            if variant == "shared" and scenario in followers and not server_from:
                print(f"- shared run {i}: {impl} {scenario} was measured on a fresh server (its host point's server was gone)")
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
PY
)
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
summary="$REPEATS runs each, alternating, the shared server with ${FOLLOW// /, } (scenario:host); wall time of one run of $IMPLS: shared server median $(median "${shared_s[@]}") s (${shared_s[*]}), fresh servers median $(median "${fresh_s[@]}") s (${fresh_s[*]}); load ${load_before} before, ${load_after} after"
echo "$summary"
echo "$table"
printf '\n## %s: the database scenarios on one server per implementation against fresh servers (bench/shared-server.sh)\n\n%s\n\n%s\n' \
    "$(date -u +'%Y-%m-%d %H:%M UTC')" "$summary" "$table" >>"$ROOT/bench/RESULTS.md"
