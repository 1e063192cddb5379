#!/usr/bin/env bash
# What the database of SPEC §8 costs in time (issue 24):
#   1. a first start on a machine: `concur db` with no template yet (initdb,
#      the seed, a clean stop, the copy, the start), FIRST times, each on a
#      new template folder;
#   2. a reused template: `concur db` again, REUSED times (the copy of the
#      template and PostgreSQL's start);
#   3. what the database routes add to `concur verify go-nethttp --cores 1,2`:
#      the verification as it is, and with `--only` every check but SPEC §8's
#      (which starts no database), alternating, VERIFY_REPEATS times each
#      after one untimed run of each.
# Each time is the wall time from starting the command to its answer (the
# CONCUR_DB_URL line; the end of `verify`), measured here, 10 ms steps.
# Medians (and ranges) are printed and appended to bench/RESULTS.md, with the
# load average, since the machine is shared.
#
# Usage: bench/database.sh
#        FIRST=3 REUSED=10 VERIFY_REPEATS=3 bench/database.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FIRST=${FIRST:-3}
REUSED=${REUSED:-7}
VERIFY_REPEATS=${VERIFY_REPEATS:-3}
WORK=$(mktemp -d)
DB_PID=
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
trap 'stop_db; rm -rf "$WORK"' EXIT
require "postgresql-15" /usr/lib/postgresql/15/bin/postgres
require "golang-go" go
require "bc" bc
build_concur

stop_db() {
    if [[ -n $DB_PID ]]; then
        kill -INT "$DB_PID" 2>/dev/null || true
        wait "$DB_PID" 2>/dev/null || true
        DB_PID=
    fi
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# db_ready TEMPLATE: seconds from starting `concur db` to its CONCUR_DB_URL line.
db_ready() {
    local out="$WORK/db.out" start
    : >"$out"
    start=$(now_ms)
    "$CONCUR" db --template "$1" >"$out" 2>"$WORK/db.err" &
    DB_PID=$!
    until grep -q '^CONCUR_DB_URL=' "$out"; do
        kill -0 "$DB_PID" 2>/dev/null || { cat "$WORK/db.err" >&2; exit 1; }
        sleep 0.01
    done
    echo "scale=2; ($(now_ms) - $start) / 1000" | bc
    stop_db
}

# verify_time [ARGS]: seconds of `concur verify go-nethttp --cores 1,2 ARGS` (which must pass).
verify_time() {
    local start
    start=$(now_ms)
    "$CONCUR" verify go-nethttp --cores 1,2 --root "$ROOT" "$@" >"$WORK/verify.out" 2>&1 || { cat "$WORK/verify.out" >&2; exit 1; }
    echo "scale=1; ($(now_ms) - $start) / 1000" | bc
}

# median and range of the arguments: "1.2 (1.0-1.9)".
summary() {
    printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f (%.2f-%.2f)", m, v[1], v[NR] }'
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
first=() reused=()
for i in $(seq "$FIRST"); do
    first+=("$(db_ready "$WORK/template-$i")")
    echo "first start $i: ${first[-1]} s" >&2
done
for i in $(seq "$REUSED"); do
    reused+=("$(db_ready "$WORK/template-1")")
    echo "reused template $i: ${reused[-1]} s" >&2
done

# The same verification without the database routes: every check but SPEC
# §8's (an id of those is no part of another id: checked here).
CHECKS=$("$CONCUR" verify --list-checks --root "$ROOT")
mapfile -t OTHERS < <(awk '$2 !~ /^§8/ { print $1 }' <<<"$CHECKS")
mapfile -t DB_CHECKS < <(awk '$2 ~ /^§8/ { print $1 }' <<<"$CHECKS")
for id in "${OTHERS[@]}"; do
    for db in "${DB_CHECKS[@]}"; do
        [[ $db != *"$id"* ]] || { echo "check $db contains $id: --only would select it" >&2; exit 1; }
    done
done
NODB=(--only "$(IFS=,; echo "${OTHERS[*]}")")
with=() without=()
verify_time >/dev/null
verify_time "${NODB[@]}" >/dev/null
for i in $(seq "$VERIFY_REPEATS"); do
    with+=("$(verify_time)")
    without+=("$(verify_time "${NODB[@]}")")
    echo "verify $i: with the database routes ${with[-1]} s, without ${without[-1]} s" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
with_median=$(summary "${with[@]}" | cut -d' ' -f1)
without_median=$(summary "${without[@]}" | cut -d' ' -f1)

{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M') UTC: the database's start-up and verify cost (bench/database.sh)"
    echo
    echo "$(/usr/lib/postgresql/15/bin/postgres --version); $(nproc) CPUs, kernel $(uname -r); load average $load_before before, $load_after after (other builds share the machine); concur $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet || echo +changes)."
    echo
    echo "| what | seconds, median (min-max) | runs |"
    echo "|---|---|---:|"
    echo "| first start: initdb, seed and clean stop of the template, then a copy started (\`concur db\`, no template) | $(summary "${first[@]}") | $FIRST |"
    echo "| start from the reused template: copy and start (\`concur db\`) | $(summary "${reused[@]}") | $REUSED |"
    echo "| \`concur verify go-nethttp --cores 1,2\`, database routes checked | $(summary "${with[@]}") | $VERIFY_REPEATS |"
    echo "| the same, \`--only\` every check but SPEC §8's | $(summary "${without[@]}") | $VERIFY_REPEATS |"
    echo
    echo "The database routes add $(echo "$with_median - $without_median" | bc) s (medians) to go-nethttp's verification at two core counts: one cluster start from the template and the checks of SPEC §8 twice."
} | tee -a "$ROOT/bench/RESULTS.md"
