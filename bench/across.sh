#!/usr/bin/env bash
# Does `concur compare` across runs call only what changed (issue 37)?
# RUNS runs of one plan (quick's hello at 1 core, 3 repeats of one 0.7 s window
# after a 2 s warm-up, no searches) from one clean commit: every two in a row
# are an A/A pair, whose every `faster` or `slower` is a false call. Each pair
# is then compared with `concur compare A B`, which takes the variance between
# runs from the database's other pairs (leave one pair out: A and B are never
# their own reference, spec/COMPARE.md "Between runs, measured"). Printed and
# appended to bench/RESULTS.md.
#
# Usage: bench/across.sh            RUNS=8 IMPLS=go-nethttp,node-http,rust-axum bench/across.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-8}
IMPLS=${IMPLS:-go-nethttp,node-http,rust-axum}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "python3" python3
build_concur

# A copy of quick without its searches, committed: the runs' commit is clean, as an A/A pair's must be.
quick_points_root "$WORK/root"
(cd "$WORK/root" && git init -q && git add -A && git -c user.name=bench -c user.email=bench@localhost commit -qm "across.sh")

started=$(date +%s)
for r in $(seq "$RUNS"); do
    (cd "$WORK/root" && "$CONCUR" run --profile quick --scenario hello --cores 1 --blocks 1 --repeat 3 --impl "$IMPLS" --no-verify --results "$WORK/aa.db" >"$WORK/run$r.log" 2>&1) ||
        { echo "$SCRIPT: run $r failed:" >&2; tail -20 "$WORK/run$r.log" >&2; exit 1; }
    echo "run $r of $RUNS done ($(($(date +%s) - started)) s)" >&2
done
for r in $(seq 1 2 "$RUNS"); do
    (cd "$WORK/root" && "$CONCUR" compare "$r" "$((r + 1))" --format json --results "$WORK/aa.db" >"$WORK/compare$r.json")
done

python3 - "$WORK" "$RUNS" "$IMPLS" "$(($(date +%s) - started))" <<'EOF' | tee -a "$ROOT/bench/RESULTS.md"
import json, sys, datetime, glob
work, runs, impls, wall = sys.argv[1:5]
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
print(f"\n## {now}: `concur compare` across runs on measured A/A variance (bench/across.sh)\n")
print(f"{runs} runs of one plan ({impls}; hello at 1 core, 3 repeats of a 0.7 s window after a 2 s warm-up, quick's "
      f"settings without its searches) from one clean commit, {wall} s in all; each two in a row compared with "
      f"`concur compare`, whose interval came from the other pairs (leave one pair out). Every faster or slower is a "
      f"false call.\n")
print("| compared | reference pairs | point | metric | ratio [95%] | σ between runs (df) | verdict |")
print("|---|---|---|---|---|---|---|")
calls = {"faster": 0, "slower": 0, "same": 0, "cannot_tell": 0}
for path in sorted(glob.glob(f"{work}/compare*.json"), key=lambda p: int(p.split("compare")[1].split(".")[0])):
    doc = json.load(open(path))
    aa = doc["between_runs"] or {"pairs": [], "groups": []}
    refs = ", ".join(f"{x}/{y}" for x, y in aa["pairs"]) or "none"
    for p in doc["points"]:
        for metric, name in (("throughput", "req/s"), ("p99_ms", "p99")):
            c = p[metric]
            g = next((g for g in aa["groups"] if g["scenario"] == p["scenario"] and g["metric"] == metric), None)
            sigma = f"{g['sigma'] * 100:.1f}% ({g['df']:.1f})" if g else "floor"
            ratio = f"{c['ratio']:.3f} [{c['ratio_low']:.3f}, {c['ratio_high']:.3f}]" if c["ratio"] else "—"
            verdict = c["verdict"] + (" (provisional)" if c.get("provisional") else "")
            calls[c["verdict"]] += 1
            print(f"| {doc['a']['id']} → {doc['b']['id']} | {refs} | {p['implementation']} | {name} | {ratio} | {sigma} | {verdict} |")
total = sum(calls.values())
false = calls["faster"] + calls["slower"]
print(f"\nA/A comparisons: {total}; false calls (faster or slower): {false} ({100 * false / max(total, 1):.0f}%); "
      f"the same: {calls['same']}; cannot tell: {calls['cannot_tell']}.")
EOF
