#!/usr/bin/env bash
# Variants of one implementation side by side: each variant is a tree (this
# one, or a git revision checked out into a temporary worktree) and a set of
# environment variables given to `concur serve`; the runs alternate between
# the variants, REPEATS times, and the medians go to bench/RESULTS.md.
#
# Each run: the server with CONCUR_CORES=CORES pinned to CPUs 0..CORES-1 (or
# SERVER_CPU at one core), `concur load -t 1 -c CONNECTIONS -d DURATION` on
# GENERATOR_CPU after a warm-up of WARMUP on the same connections, the
# SCENARIO's requests (hello by default). A variant's variables reach the
# server only where the manifest's [cores].env does not set the same name
# (the manifest's value wins), so toggles use names the manifest leaves alone.
#
# Usage: bench/variants.sh IMPL 'LABEL[@REV] [NAME=VALUE...]' ...
#   bench/variants.sh ruby-rails 'before@906d228' 'after'
#   bench/variants.sh ruby-rack 'interpreter RUBY_YJIT_ENABLE=0' 'yjit RUBY_YJIT_ENABLE=1'
#   REPEATS=5 SCENARIO=json TITLE="YJIT on json" bench/variants.sh ...
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMPL=${1:?usage: bench/variants.sh IMPL 'LABEL[@REV] [NAME=VALUE...]' ... (at least two variants)}
shift
(($# >= 2)) || { echo "variants.sh: give at least two variants to compare, e.g. 'before@HEAD~1' 'after'" >&2; exit 1; }
SCENARIO=${SCENARIO:-hello}
REPEATS=${REPEATS:-3}
DURATION=${DURATION:-5}
WARMUP=${WARMUP:-3}
CONNECTIONS=${CONNECTIONS:-50}
CORES=${CORES:-1}
PORT=${PORT:-18093}
SERVER_CPU=${SERVER_CPU:-0}
GENERATOR_CPU=${GENERATOR_CPU:-1}
TITLE=${TITLE:-"$IMPL: $*"}

WORK=$(mktemp -d)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
require "util-linux curl python3" taskset curl python3
build_concur

SERVE_PID=
TREES=()
cleanup() {
    [[ -n $SERVE_PID ]] && { kill -INT "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; }
    for tree in "${TREES[@]}"; do git -C "$ROOT" worktree remove --force "$tree" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# The tree of a variant's label: LABEL@REV is REV in a worktree of its own.
tree_of() {
    local label=${1%% *}
    [[ $label == *@* ]] || { echo "$ROOT"; return; }
    local rev=${label#*@} dir="$WORK/tree-${label%%@*}"
    if [[ ! -d $dir ]]; then
        git -C "$ROOT" worktree add --detach --quiet "$dir" "$rev" >&2
        TREES+=("$dir")
    fi
    echo "$dir"
}

# serve VARIANT: starts the variant's server with its variables (SERVE_PID).
serve() {
    local tree=$1 assignments=$2 cpus=$SERVER_CPU
    ((CORES > 1)) && cpus=0-$((CORES - 1))
    # shellcheck disable=SC2086 # the assignments are words on purpose
    env $assignments taskset -c "$cpus" "$CONCUR" serve "$IMPL" --root "$tree" --port "$PORT" --cores "$CORES" >"$WORK/serve.out" 2>&1 &
    SERVE_PID=$!
    wait_up "http://127.0.0.1:$PORT/" 1800 "$IMPL (in $tree, $assignments)" "$WORK/serve.out"
}

stop() {
    kill -INT "$SERVE_PID" 2>/dev/null || true
    wait "$SERVE_PID" 2>/dev/null || true
    SERVE_PID=
}

# measure: prints "requests_per_s p99_us errors" of one run.
measure() {
    taskset -c "$GENERATOR_CPU" "$CONCUR" load "http://127.0.0.1:$PORT/" --scenario "$SCENARIO" -t 1 -c "$CONNECTIONS" \
        -d "${DURATION}s" --warmup "${WARMUP}s" --warmup-max "${WARMUP}s" --timeout 10s --json "$WORK/load.json" >/dev/null
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(round(r["requests_per_s"]), r["latency"]["p99_us"], r["errors"])' "$WORK/load.json"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$REPEATS"); do
    for v in $(seq 0 $(($# - 1))); do
        variant=${*:$((v + 1)):1}
        tree=$(tree_of "$variant")
        assignments=${variant#"${variant%% *}"}
        serve "$tree" "$assignments"
        measure | tee -a "$WORK/v$v.txt" | sed "s/^/$IMPL $SCENARIO [$variant] run $i: /" >&2
        stop
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M') UTC: $TITLE (bench/variants.sh)"
    echo
    echo "\`$IMPL\`, $SCENARIO, CONCUR_CORES=$CORES pinned to CPU ${SERVER_CPU}$( ((CORES > 1)) && echo "s 0-$((CORES - 1))"), \`concur load -t 1 -c $CONNECTIONS -d ${DURATION}s\` after ${WARMUP}s of warm-up on CPU $GENERATOR_CPU; variants alternating, medians of $REPEATS; a variant without @REV runs this tree, \`$(git -C "$ROOT" rev-parse --short HEAD)\`$(git -C "$ROOT" diff --quiet HEAD -- impls || echo ' plus uncommitted changes'); load average $load_before before, $load_after after (2 CPUs, shared with other jobs)."
    echo
    echo "| variant | requests/s | ratio to the first | p99 ms | errors | runs (req/s) |"
    echo "|---|---:|---:|---:|---:|---|"
    first=$(cut -d' ' -f1 "$WORK/v0.txt" | median)
    for v in $(seq 0 $(($# - 1))); do
        variant=${*:$((v + 1)):1}
        rps=$(cut -d' ' -f1 "$WORK/v$v.txt" | median)
        p99=$(cut -d' ' -f2 "$WORK/v$v.txt" | median)
        errors=$(awk '{ e += $3 } END { print e }' "$WORK/v$v.txt")
        awk -v l="$variant" -v r="$rps" -v f="$first" -v p="$p99" -v e="$errors" -v runs="$(cut -d' ' -f1 "$WORK/v$v.txt" | paste -sd' ')" \
            'BEGIN { printf "| `%s` | %d | %.2f | %.1f | %d | %s |\n", l, r, r / f, p / 1000, e, runs }'
    done
} | tee -a "$ROOT/bench/RESULTS.md"
