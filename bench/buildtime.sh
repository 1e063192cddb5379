#!/usr/bin/env bash
# What an entry's release build costs at two revisions (issue 25: what the
# database driver adds to the Rust entries' LTO builds, which `make test`
# runs from a fresh clone). For each ENTRY, the entry's folder at BEFORE and
# at AFTER is exported (`git archive`) into a fresh folder and built with its
# manifest's command, `cargo build --release --locked`, into a fresh target
# folder: REPEATS times each, alternating (before, after, before, ...), so
# that the other helpers' load falls on both alike. The crates come from
# cargo's registry cache (a fresh clone on a machine without it downloads
# them too; that time is not in these figures).
#
# Wall, user and system seconds of each build come from /usr/bin/time; the
# medians are printed and appended to bench/RESULTS.md with the load average,
# since the machine is shared. CPU seconds (user + system) move less with the
# load than wall seconds do.
#
# Usage: bench/buildtime.sh rust-threadpool rust-axum
#        BEFORE=main AFTER=HEAD REPEATS=3 bench/buildtime.sh rust-axum
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BEFORE=${BEFORE:-main}
AFTER=${AFTER:-HEAD}
REPEATS=${REPEATS:-1}
# Resolved once: a branch that moves during the builds must not move them.
BEFORE_REV=$(git -C "$ROOT" rev-parse --short "$BEFORE")
AFTER_REV=$(git -C "$ROOT" rev-parse --short "$AFTER")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
[[ $# -gt 0 ]] || { echo "usage: bench/buildtime.sh ENTRY... (e.g. rust-axum)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "buildtime.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

# build ENTRY REV N: prints "wall user sys" of one fresh release build.
build() {
    local entry=$1 rev=$2 dir="$WORK/$1-$3-$2"
    mkdir -p "$dir"
    git -C "$ROOT" archive "$rev" "impls/http/$entry" | tar -x -C "$dir"
    (cd "$dir/impls/http/$entry" &&
        CARGO_TARGET_DIR="$dir/target" /usr/bin/time -f "%e %U %S" -o "$dir/time" \
            cargo build --release --locked --quiet >"$dir/build.log" 2>&1) ||
        { echo "buildtime.sh: $entry at $rev did not build:" >&2; tail -20 "$dir/build.log" >&2; exit 1; }
    cat "$dir/time"
    rm -rf "$dir"
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rows=()
for entry in "$@"; do
    : >"$WORK/before" && : >"$WORK/after"
    for n in $(seq "$REPEATS"); do
        for side in before after; do
            rev=$BEFORE_REV && [[ $side == after ]] && rev=$AFTER_REV
            echo "building $entry at $rev ($side, $n of $REPEATS)..." >&2
            build "$entry" "$rev" "$n" | tee -a "$WORK/$side" >&2
        done
    done
    cells=()
    for side in before after; do
        wall=$(cut -d' ' -f1 "$WORK/$side" | median)
        cpu=$(awk '{print $2 + $3}' "$WORK/$side" | median)
        cells+=("$wall" "$cpu")
    done
    rows+=("| $entry | ${cells[0]} | ${cells[2]} | ${cells[1]} | ${cells[3]} | $REPEATS |")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

report=$(cat <<EOF

## $(date -u '+%Y-%m-%d %H:%M') UTC: release build time at two revisions (bench/buildtime.sh)

$(cargo --version); $(nproc) CPUs; load average $load_before before, $load_after after (other helpers' builds share the machine). Before: \`$BEFORE\` ($BEFORE_REV), after: \`$AFTER\` ($AFTER_REV). Each build a fresh export and a fresh target folder, crates from the registry cache; medians.

| entry | wall s, before | wall s, after | CPU s (user+sys), before | CPU s, after | builds each |
|---|---:|---:|---:|---:|---:|
$(printf '%s\n' "${rows[@]}")
EOF
)
echo "$report"
echo "$report" >>"$ROOT/bench/RESULTS.md"
