#!/usr/bin/env python3
"""A fake micro implementation obeying spec/MICRO.md's command line and
output, so that `concur micro` can be tested without the real toolchains.
No processes are really started: the numbers are made up, but the counts,
the exit codes and the memory (procs x FAKE_BYTES bytes, really touched)
behave as the spec says. FAKE_MODE picks a misbehaviour:

  ok       correct lines (default)
  hungry   allocates FAKE_BYTES per process slowly, so a budget can catch it
  limited  exits 1 like a runtime out of processes above FAKE_LIMIT processes
  lossy    prints a line whose checks.received is one short
  slow     sleeps before answering (for interrupt tests)
"""
import json
import os
import sys
import time

USED = {
    "pingping": ["size", "reps"],
    "pingpong": ["reps"],
    "spawn": ["procs"],
    "maxprocs": ["procs"],
    "pairs": ["pairs", "seconds"],
    "idle": ["procs", "sleep_ms"],
    "supervised": ["pairs", "seconds", "kill_rate"],
}


def usage(msg):
    sys.stderr.write(msg + "\n")
    sys.exit(2)


def parse(argv):
    if not argv or argv[0] not in USED:
        usage("missing or unknown benchmark (e.g. pingpong)")
    bench, flags, i = argv[0], {}, 1
    while i < len(argv):
        name = argv[i]
        if name == "--drop-one":
            flags["drop-one"] = True
            i += 1
            continue
        if not name.startswith("--") or i + 1 >= len(argv):
            usage(f"{name}: expected --flag value")
        flags[name[2:].replace("-", "_")] = argv[i + 1]
        i += 2
    return bench, flags


def hold_memory(procs, per, slowly):
    chunks, total, step = [], procs * per, 1 << 20
    while total > 0:
        n = min(step, total)
        chunks.append(b"\x01" * n)
        total -= n
        if slowly:
            time.sleep(0.01)
    time.sleep(0.2)
    return chunks


def main():
    bench, f = parse(sys.argv[1:])
    mode = os.environ.get("FAKE_MODE", "ok")
    cores = int(f.get("cores", os.environ.get("CONCUR_CORES", "1")))
    params = {"cores": cores}
    for name in USED[bench]:
        params[name] = float(f[name]) if name in ("seconds", "kill_rate") else int(f[name])
    procs = params.get("procs", 0)
    if mode == "limited" and procs > int(os.environ.get("FAKE_LIMIT", "500")):
        sys.stderr.write(f"fake: cannot create process {os.environ.get('FAKE_LIMIT', '500')}+1: process limit reached\n")
        sys.exit(1)
    if mode == "slow":
        time.sleep(float(os.environ.get("FAKE_SLEEP", "30")))
    held = hold_memory(procs, int(os.environ.get("FAKE_BYTES", "1000")), mode == "hungry") if procs else None
    if bench in ("pingping", "pingpong"):
        ops = params["reps"]
        expected = 2 * ops
    elif bench in ("spawn", "maxprocs"):
        ops, expected = procs, 2 * procs
    elif bench == "idle":
        ops, expected = procs, procs
        time.sleep(params["sleep_ms"] / 1000)
    else:
        ops = 1000 * params["pairs"]
        expected = 2 * ops
    elapsed = int(params.get("sleep_ms", 0) * 1e6) + 1000 * ops + 12345
    received = expected - 1 if mode == "lossy" else expected
    work = elapsed - params.get("sleep_ms", 0) * 1e6
    line = {"schema": 1, "bench": bench, "runtime": os.path.basename(os.getcwd()), "params": params, "ops": ops,
            "elapsed_ns": elapsed, "ns_per_op": work / ops, "checks": {"received": received, "expected": expected}}
    if bench in ("spawn", "maxprocs"):
        line.update(procs=procs, ns_per_proc=line["ns_per_op"])
    if bench == "pairs":
        line.update(round_trips=ops, messages=2 * ops, messages_per_s=2 * ops / (elapsed / 1e9), min_pair_round_trips=1000)
    if bench == "idle":
        line.update(tasks=procs, sleep_ns=params["sleep_ms"] * 1000000)
    if bench == "supervised":
        # Kills at the asked rate over the run; each loses a message, as a kill between a ping and its pong does.
        kills = int(params["kill_rate"] / 100 * 2 * params["pairs"] * params["seconds"])
        line["checks"]["expected"] = received + kills
        line.update(round_trips=ops, messages=received, messages_per_s=received / (elapsed / 1e9), kills=kills, lost=kills,
                    restart_p50_ns=40000 if kills else 0, restart_p99_ns=90000 if kills else 0, late_restarts=0)
    print(json.dumps(line))
    del held


main()
