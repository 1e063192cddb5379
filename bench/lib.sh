# Shared by the bench scripts (sourced after ROOT, WORK and SERVER_CPU are
# set): the tool check, the concur build, and the fixed nginx server.

SCRIPT=$(basename "$0")

# require "apt packages" TOOL...: exits naming the missing tool and the fix.
require() {
    local packages=$1 tool
    shift
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "$SCRIPT: $tool is missing (apt-get install $packages)" >&2; exit 1; }
    done
}

# Builds concur in release mode and sets CONCUR to the binary (under
# CARGO_TARGET_DIR when it is set, as cargo itself does).
build_concur() {
    echo "building concur (release)..." >&2
    (cd "$ROOT" && cargo build --release --quiet)
    local target=${CARGO_TARGET_DIR:-target}
    [[ $target == /* ]] || target="$ROOT/$target"
    CONCUR="$target/release/concur"
}

# wait_up URL TRIES WHAT LOG...: waits up to TRIES × 0.1 s for URL to answer;
# otherwise prints the logs and exits.
wait_up() {
    local url=$1 tries=$2 what=$3
    shift 3
    for _ in $(seq "$tries"); do curl -sf -o /dev/null "$url" && return; sleep 0.1; done
    curl -sf -o /dev/null "$url" || { echo "$SCRIPT: $what did not start:" >&2; cat "$@" >&2; exit 1; }
}

# start_nginx PORT: bench/nginx.conf on 127.0.0.1:PORT, its one worker pinned
# to SERVER_CPU, its files in WORK (nginx.pid there is how it is stopped).
start_nginx() {
    sed -e "s#__PORT__#$1#g" -e "s#__DIR__#$WORK#g" "$ROOT/bench/nginx.conf" >"$WORK/nginx.conf"
    taskset -c "$SERVER_CPU" nginx -c "$WORK/nginx.conf" -p "$WORK" >"$WORK/nginx.out" 2>&1 &
    wait_up "http://127.0.0.1:$1/" 50 nginx "$WORK/nginx.out" "$WORK/error.log"
}

# Stops the nginx of start_nginx, if it runs.
stop_nginx() {
    if [[ -f $WORK/nginx.pid ]]; then kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true; rm -f "$WORK/nginx.pid"; fi
}

# start_impl TREE IMPL PORT [CPU]: `concur serve IMPL` of the repository at
# TREE on 127.0.0.1:PORT with CONCUR_CORES=$CORES (1 when unset), pinned to
# CPU (a list for several cores) when one is given
# (it builds first, so the wait is long); SERVE_PID is how stop_impl stops it.
start_impl() {
    local pin=()
    [[ -n ${4:-} ]] && pin=(taskset -c "$4")
    "${pin[@]}" "$CONCUR" serve "$2" --root "$1" --port "$3" --cores "${CORES:-1}" >"$WORK/serve.out" 2>&1 &
    SERVE_PID=$!
    wait_up "http://127.0.0.1:$3/" 1800 "$2 (in $1)" "$WORK/serve.out"
}

# Stops the server of start_impl and its whole tree (concur serve's Ctrl-C), if it runs.
stop_impl() {
    if [[ -n ${SERVE_PID:-} ]]; then
        kill -INT "$SERVE_PID" 2>/dev/null || true
        wait "$SERVE_PID" 2>/dev/null || true
        SERVE_PID=
    fi
}

# checkout_before REV: the repository at REV in a temporary git worktree,
# BEFORE; on exit the server of start_impl stops and the worktree and WORK go.
checkout_before() {
    BEFORE="$WORK/before"
    git -C "$ROOT" worktree add --detach --quiet "$BEFORE" "$1"
    SERVE_PID=
    trap 'stop_impl; git -C "$ROOT" worktree remove --force "$BEFORE" 2>/dev/null || true; rm -rf "$WORK"' EXIT
    # A signal ends the script (a trap that only cleaned up would let it go on); the exit cleans up.
    trap 'exit 130' INT TERM
}

# alternate IMPL TAG CPU MEASURE...: REPEATS rounds of IMPL at BEFORE, then
# at ROOT, each on a fresh server on PORT (pinned to CPU unless it is empty);
# MEASURE's line goes to WORK/before.txt or WORK/after.txt (emptied first)
# and, after TAG, to stderr.
alternate() {
    local impl=$1 tag=$2 cpu=$3 i side tree
    shift 3
    : >"$WORK/before.txt"
    : >"$WORK/after.txt"
    for i in $(seq "$REPEATS"); do
        for side in before after; do
            tree=$ROOT
            [[ $side == before ]] && tree=$BEFORE
            start_impl "$tree" "$impl" "$PORT" "$cpu"
            "$@" | tee -a "$WORK/$side.txt" | sed "s/^/$tag $side $i: /" >&2
            stop_impl
        done
    done
}

# server_pid PORT: the process listening on 127.0.0.1:PORT (the server itself,
# not the `concur serve` in front of it).
server_pid() {
    ss -ltnpH "sport = :$1" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2
}

# median: the median of the numbers on standard input, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# quick_points_root DIR: a repository root at DIR whose impls/ is this one's and whose
# spec/profiles/quick.toml has no [capacity] or [held] table, for scripts that measure
# quick's points and not its searches.
quick_points_root() {
    mkdir -p "$1"
    ln -s "$ROOT/impls" "$1/impls"
    cp -r "$ROOT/spec" "$1/spec"
    python3 - "$1/spec/profiles/quick.toml" <<'EOF_PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
text = re.sub(r"^\[(capacity|held)\]\n(?:[^\[\n].*\n|\n)*", "", text, flags=re.M)
open(path, "w").write(text)
EOF_PY
}
