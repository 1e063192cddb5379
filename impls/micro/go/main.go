// Command micro is Concur's process micro-benchmarks (spec/MICRO.md) on
// goroutines and channels: one benchmark per invocation, one JSON line on
// stdout, exit 1 when a message was lost or a count is wrong.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"time"
)

func main() {
	cfg, err := parseArgs(os.Args[1:], os.Getenv)
	if err != nil {
		fatalUsage(err)
	}
	// GOMAXPROCS (set by the manifest) already says the same when concur runs
	// us; setting it here makes a run by hand with --cores mean the same.
	runtime.GOMAXPROCS(cfg.cores)
	time.AfterFunc(cfg.timeout, func() {
		fmt.Fprintf(os.Stderr, "micro: timeout after %v in %s\n", cfg.timeout, cfg.bench)
		os.Exit(1)
	})

	res, err := runBench(cfg)
	if err == nil {
		err = res.verify(cfg.cores)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "micro: %s: %v\n", cfg.bench, err)
		os.Exit(1)
	}
	line, _ := json.Marshal(res)
	fmt.Printf("%s\n", line)
}

func runBench(cfg config) (*result, error) {
	switch cfg.bench {
	case "pingping":
		return pingping(cfg)
	case "pingpong":
		return pingpong(cfg)
	case "spawn", "maxprocs":
		return spawn(cfg)
	case "pairs":
		return pairs(cfg)
	case "supervised":
		return supervised(cfg)
	default:
		return idle(cfg)
	}
}
