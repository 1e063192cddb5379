#!/usr/bin/env bash
# Do the report's rankings decide, and only where they should (issue 37)?
# Each run measures, with quick's hello settings (1 core, three blocks of
# 0.7 s windows after a 250 ms re-warm, spec/profiles/quick.toml), one block
# design of:
#   - A/A pairs: the same folder measured twice under two names
#     (`--impl NEW=NAME`): taxed-base and taxed-base-again, go-nethttp and
#     go-nethttp-again, node-http and node-http-again. Any order between the
#     two of a pair is a false order.
#   - servers slowed on purpose: copies of bench/fixtures/taxed (Go net/http
#     hashing a 1 KiB buffer UNITS times a request) whose work is 1.25x and 2x
#     taxed-base's (the request's own overhead in hash units calibrated first,
#     below). Each run either orders the slowed one below the base or not: the
#     share that does is the power at that factor.
#   - rust-axum, as a real neighbour of a different speed.
# The calibration: one run of taxed-zero (0 units) and taxed-base (BASE_UNITS)
# in CALIBRATION_BLOCKS blocks; their ratio R = (o + B) / o gives the
# overhead o = B / (R - 1) in units, and a copy slowed by f does
# f (o + B) - o units.
# Each run's decisions come from `concur report --export-json` (spec/EXPORT.md,
# "decisions"): the report's own, not recomputed here. Printed and appended
# to bench/RESULTS.md.
#
# Usage: bench/decide.sh            RUNS=10 BASE_UNITS=60 bench/decide.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-10}
BASE_UNITS=${BASE_UNITS:-60}
CALIBRATION_BLOCKS=${CALIBRATION_BLOCKS:-9}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "python3" python3
require "golang" go
build_concur

# quick's capacity and clients-held searches are not what this measures: a copy of the profile without them.
quick_points_root "$WORK/root"

# taxed NAME UNITS: a folder $WORK/NAME holding the fixture and a manifest that starts it with UNITS.
taxed() {
    mkdir -p "$WORK/$1"
    cp "$ROOT/bench/fixtures/taxed/main.go" "$ROOT/bench/fixtures/taxed/go.mod" "$WORK/$1/"
    cat >"$WORK/$1/concur.toml" <<EOF
name = "$1"
language = "Go"
runtime = "Go (gc)"
version = "go version"
framework = "net/http"
model = "green-threads"
[requires]
commands = ["go"]
[build]
command = "go build -o taxed ."
outputs = ["taxed"]
sources = ["*.go", "go.mod"]
[start]
command = "./taxed {port} $2"
[cores]
env = { GOMAXPROCS = "{cores}" }
EOF
}

# measure NAME BLOCKS IMPLS: one run into $WORK/NAME.db, its JSON export into $WORK/NAME.json.
measure() {
    (cd "$WORK/root" && "$CONCUR" run --profile quick --scenario hello --cores 1 --blocks "$2" --impl "$3" --no-verify --results "$WORK/$1.db" >"$WORK/$1.log" 2>&1) ||
        { echo "$SCRIPT: run $1 failed:" >&2; tail -20 "$WORK/$1.log" >&2; exit 1; }
    (cd "$WORK/root" && "$CONCUR" report --results "$WORK/$1.db" --out "$WORK/$1-report" --export-json "$WORK/$1.json" >/dev/null)
}

taxed taxed-zero 0
taxed taxed-base "$BASE_UNITS"
started=$(date +%s)
measure calibration "$CALIBRATION_BLOCKS" "taxed-zero=$WORK/taxed-zero,taxed-base=$WORK/taxed-base"
read -r OVERHEAD U125 U200 R0 < <(python3 - "$WORK/calibration.json" "$BASE_UNITS" <<'EOF'
import json, sys
doc, base = json.load(open(sys.argv[1])), int(sys.argv[2])
d = next(x for x in doc["decisions"] if {x["a"], x["b"]} == {"taxed-base", "taxed-zero"})
r = d["ratio"] if d["a"] == "taxed-zero" else 1 / d["ratio"]
o = base / (r - 1)
print(f"{o:.1f} {round(1.25 * (o + base) - o)} {round(2 * (o + base) - o)} {r:.3f}")
EOF
)
echo "calibration: taxed-zero / taxed-base = $R0, a request's own work = $OVERHEAD units; 1.25x: $U125 units, 2x: $U200" >&2
taxed taxed-x125 "$U125"
taxed taxed-x2 "$U200"

IMPLS="taxed-base=$WORK/taxed-base,taxed-base-again=$WORK/taxed-base,taxed-x125=$WORK/taxed-x125,taxed-x2=$WORK/taxed-x2"
IMPLS="$IMPLS,go-nethttp,go-nethttp-again=go-nethttp,node-http,node-http-again=node-http,rust-axum"
for r in $(seq "$RUNS"); do
    measure "run$r" 3 "$IMPLS"
    echo "run $r of $RUNS done ($(($(date +%s) - started)) s)" >&2
done

python3 - "$WORK" "$RUNS" "$BASE_UNITS" "$OVERHEAD" "$U125" "$U200" "$R0" "$CALIBRATION_BLOCKS" "$(($(date +%s) - started))" >>"$ROOT/bench/RESULTS.md" <<'EOF'
import json, statistics, sys, datetime
work, runs, base, overhead, u125, u200, r0, cal_blocks, wall = sys.argv[1:10]
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
pairs = {
    "A/A taxed-base": ("taxed-base", "taxed-base-again"),
    "A/A go-nethttp": ("go-nethttp", "go-nethttp-again"),
    "A/A node-http": ("node-http", "node-http-again"),
    "1.25x": ("taxed-base", "taxed-x125"),
    "2x": ("taxed-base", "taxed-x2"),
}
rows = {k: [] for k in pairs}
for r in range(1, int(runs) + 1):
    doc = json.load(open(f"{work}/run{r}.json"))
    for label, (a, b) in pairs.items():
        d = next(x for x in doc["decisions"] if {x["a"], x["b"]} == {a, b})
        flip = d["a"] != a
        ratio, lo, hi = (1 / d["ratio"], 1 / d["hi"], 1 / d["lo"]) if flip else (d["ratio"], d["lo"], d["hi"])
        decision = {"above": "below", "below": "above"}.get(d["decision"], d["decision"]) if flip else d["decision"]
        rows[label].append((ratio, lo, hi, decision))
print(f"\n## {now}: do the rankings decide? A/A pairs and servers slowed on purpose (bench/decide.sh)\n")
print(f"{runs} runs of one block design each (hello at 1 core, quick's three blocks of 0.7 s windows after a 250 ms "
      f"re-warm), {wall} s in all with the calibration. The slowed servers are bench/fixtures/taxed (Go net/http hashing "
      f"1 KiB {base} times a request for the base); the calibration ({cal_blocks} blocks, 0 against {base} hashes: "
      f"{r0}x) put a request's own work at {overhead} hashes, so 1.25x the base's work is {u125} hashes and 2x is {u200}. "
      "Decisions are the report's (`concur report --export-json`, \"decisions\"): the first of each pair against the second.\n")
print("| pair | runs | ordered above | ordered below | cannot tell | median ratio | median interval |")
print("|---|---:|---:|---:|---:|---:|---|")
for label, v in rows.items():
    n = len(v)
    above = sum(1 for x in v if x[3] == "above")
    below = sum(1 for x in v if x[3] == "below")
    ct = n - above - below
    print(f"| {label} ({pairs[label][0]} vs {pairs[label][1]}) | {n} | {above} | {below} | {ct} | {statistics.median(x[0] for x in v):.3f} | "
          f"[{statistics.median(x[1] for x in v):.3f}, {statistics.median(x[2] for x in v):.3f}] |")
aa = [x for k, v in rows.items() if k.startswith("A/A") for x in v]
false = sum(1 for x in aa if x[3] in ("above", "below"))
print(f"\nA/A: {false} false orders in {len(aa)} comparisons ({100 * false / len(aa):.0f}%). "
      f"Power: the 1.25x server ordered below its base in {sum(1 for x in rows['1.25x'] if x[3] == 'above')} of {runs} runs, "
      f"the 2x one in {sum(1 for x in rows['2x'] if x[3] == 'above')} of {runs}.")
EOF
tail -n 16 "$ROOT/bench/RESULTS.md"
