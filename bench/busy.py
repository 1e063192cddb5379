#!/usr/bin/env python3
"""Where a one-core server's time goes under a closed loop, side by side.

Each SIDE is LABEL=COMMAND: a server started with PORT and CONCUR_CORES=1 in
its environment (extra NAME=VALUE words before the command are added to it),
pinned to CPU 0, loaded by `concur load -t 1 -c CONNECTIONS` pinned to CPU 1.
The sides alternate, REPEATS times, each on a fresh server after a warm-up.
Over the measurement (its first and last half second left out) the server's
and the generator's time is split, from /proc/PID/task/TID/schedstat summed
over their threads, into on CPU, runnable (woken, waiting for its CPU: other
processes on it, or the wake-up itself) and asleep (nothing to do; for a
one-thread process), with their voluntary context switches (each one a
sleep) per request. A server asleep while its clients
wait is the anomaly; the split says whose turn it was. With --syscalls,
`perf trace -s` counts the server's system calls per request over the same
window (it slows the server; its runs are not the throughput figures).

Usage: bench/busy.py [--repeats 5] [--seconds 10] [--connections 50] [--syscalls] [--results] \\
         before="CONCUR_THREADS=256 /tmp/old/concur-threadpool" \\
         after=impls/http/rust-threadpool/target/release/concur-threadpool
(a side's binary is built beforehand; a toggle variable the build reads can
tell two variants of one build apart)
"""

import argparse
import glob
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def threads(pid):
    """tid -> (name, on-CPU ns, runnable ns, voluntary switches) of every thread of pid."""
    out = {}
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            stat = open(f"{task}/stat").read()
            status = open(f"{task}/status").read()
            run, wait, _ = map(int, open(f"{task}/schedstat").read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
        switches = int(re.search(r"voluntary_ctxt_switches:\s+(\d+)", status).group(1))
        out[task] = (stat[stat.index("(") + 1 : stat.rindex(")")], run, wait, switches)
    return out


def split(before, after, wall_ns, requests):
    """A process's shares of the window, summed over its threads, and its
    sleeps (voluntary switches) per request. For a one-thread process the
    three shares add up to 1; with more threads, runnable sums their waits."""
    run = wait = switches = 0
    for task, (name, run1, wait1, switches1) in after.items():
        _, run0, wait0, switches0 = before.get(task, (name, 0, 0, 0))
        run, wait, switches = run + run1 - run0, wait + wait1 - wait0, switches + switches1 - switches0
    return {
        "on_cpu": run / wall_ns,
        "runnable": wait / wall_ns,
        "asleep": max(0.0, 1 - (run + wait) / wall_ns),
        "sleeps_per_request": switches / requests,
        "cpu_us_per_request": run / requests / 1e3,
    }


def start(command, port):
    words = command.split()
    env = dict(os.environ, PORT=str(port), CONCUR_CORES="1")
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    server = subprocess.Popen(["taskset", "-c", "0", *words], env=env, cwd=ROOT, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    sys.exit(f"busy.py: {command!r} did not listen on port {port} within 10 s")


def load(concur, port, args, seconds, out):
    command = ["taskset", "-c", "1", concur, "load", f"http://127.0.0.1:{port}/", "-t", "1", "-c", str(args.connections), "-d", f"{seconds}s"]
    return subprocess.Popen(command + (["--json", out] if out else []), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def syscalls(pid, seconds):
    """perf trace -s of pid for `seconds`: name -> calls (all threads)."""
    trace = subprocess.run(["perf", "trace", "-s", "-p", str(pid), "--", "sleep", str(seconds)], capture_output=True, text=True)
    calls = {}
    for line in trace.stderr.splitlines() + trace.stdout.splitlines():
        m = re.match(r"\s+(\w+)\s+(\d+)\s+\d+\s+[\d.]+", line)
        if m:
            calls[m.group(1)] = calls.get(m.group(1), 0) + int(m.group(2))
    return calls


def one(concur, command, args):
    port = free_port()
    server = start(command, port)
    try:
        load(concur, port, args, args.warmup, None).wait()
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            generator = load(concur, port, args, args.seconds, out.name)
            time.sleep(0.5)
            s0, g0, t0 = threads(server.pid), threads(generator.pid), time.monotonic()
            calls = syscalls(server.pid, args.seconds - 1.0) if args.syscalls else None
            if calls is None:
                time.sleep(args.seconds - 1.0)
            s1, g1, wall = threads(server.pid), threads(generator.pid), (time.monotonic() - t0) * 1e9
            generator.wait()
            result = json.load(open(out.name))
        requests = result["requests_per_s"] * wall / 1e9
        row = {"rps": result["requests_per_s"], "server": split(s0, s1, wall, requests), "generator": split(g0, g1, wall, requests)}
        if calls is not None:
            row["syscalls_per_request"] = {k: v / requests for k, v in sorted(calls.items(), key=lambda kv: -kv[1])[:8]}
        return row
    finally:
        server.terminate()
        server.wait()


def describe(label, row):
    s, g = row["server"], row["generator"]
    text = (f"{label:>10}  {row['rps']:9.0f} req/s  server {s['on_cpu']:4.0%} on CPU {s['runnable']:4.0%} runnable {s['asleep']:4.0%} asleep, "
            f"{s['sleeps_per_request']:.4f} sleeps/req, {s['cpu_us_per_request']:.2f} us/req  |  generator {g['on_cpu']:4.0%} on CPU "
            f"{g['runnable']:4.0%} runnable {g['asleep']:4.0%} asleep, {g['sleeps_per_request']:.4f} sleeps/req")
    if "syscalls_per_request" in row:
        text += "\n            syscalls/req: " + ", ".join(f"{k} {v:.3f}" for k, v in row["syscalls_per_request"].items())
    return text


def table(sides, rows, args):
    med = lambda label, f: statistics.median(f(r) for r in rows[label])
    lines = [
        "| side | req/s (median) | req/s (each run) | server on CPU | runnable | asleep | server sleeps per request | server CPU us per request | generator on CPU | generator asleep |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, _ in sides:
        each = ", ".join(f"{r['rps']:,.0f}" for r in rows[label])
        lines.append(
            f"| {label} | {med(label, lambda r: r['rps']):,.0f} | {each} | {med(label, lambda r: r['server']['on_cpu']):.0%} | "
            f"{med(label, lambda r: r['server']['runnable']):.0%} | {med(label, lambda r: r['server']['asleep']):.0%} | "
            f"{med(label, lambda r: r['server']['sleeps_per_request']):.4f} | {med(label, lambda r: r['server']['cpu_us_per_request']):.2f} | "
            f"{med(label, lambda r: r['generator']['on_cpu']):.0%} | {med(label, lambda r: r['generator']['asleep']):.0%} |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sides", nargs="+", metavar="LABEL=COMMAND")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--syscalls", action="store_true", help="count the server's system calls with perf trace (slows it)")
    parser.add_argument("--results", action="store_true", help="append the table to bench/RESULTS.md")
    args = parser.parse_args()
    sides = [tuple(side.split("=", 1)) for side in args.sides]
    if any(len(side) != 2 for side in sides):
        sys.exit("busy.py: each side is LABEL=COMMAND, e.g. after=impls/http/rust-axum/target/release/server")
    concur = os.path.join(ROOT, "target/release/concur")
    if not os.access(concur, os.X_OK):
        sys.exit(f"busy.py: {concur} is missing: run cargo build --release first")
    loads = [open("/proc/loadavg").read().split()[0]]
    rows = {label: [] for label, _ in sides}
    for i in range(args.repeats):
        for label, command in sides:
            row = one(concur, command, args)
            rows[label].append(row)
            print(f"#{i + 1} {describe(label, row)}", flush=True)
    loads.append(open("/proc/loadavg").read().split()[0])
    text = table(sides, rows, args)
    print(text)
    if args.results:
        with open(os.path.join(ROOT, "bench/RESULTS.md"), "a") as results:
            results.write(
                f"\n## {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC: where a one-core server's time goes (bench/busy.py)\n\n"
                f"Sides: {'; '.join(f'{label} = `{command}`' for label, command in sides)}. Server on CPU 0 with CONCUR_CORES=1, "
                f"`concur load -t 1 -c {args.connections}` on CPU 1, {args.warmup:g} s warm-up then {args.seconds:g} s, sides alternating, "
                f"{args.repeats} repeats, medians; load average {loads[0]} before, {loads[1]} after; {os.cpu_count()} CPUs.\n\n{text}\n"
            )


main()
