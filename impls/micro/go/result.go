package main

// The result line of spec/MICRO.md §7.

import (
	"fmt"
	"runtime"
	"time"
)

type checks struct {
	Received int64 `json:"received"`
	Expected int64 `json:"expected"`
}

type result struct {
	Schema    int            `json:"schema"`
	Bench     string         `json:"bench"`
	Runtime   string         `json:"runtime"`
	Params    map[string]any `json:"params"`
	Ops       int64          `json:"ops"`
	ElapsedNs int64          `json:"elapsed_ns"`
	NsPerOp   float64        `json:"ns_per_op"`
	Checks    checks         `json:"checks"`

	// spawn, maxprocs
	Procs     int64    `json:"procs,omitempty"`
	NsPerProc *float64 `json:"ns_per_proc,omitempty"`
	// pairs, supervised
	// (pointers: a starved pair's 0 must still be printed)
	RoundTrips        *int64   `json:"round_trips,omitempty"`
	Messages          *int64   `json:"messages,omitempty"`
	MessagesPerS      *float64 `json:"messages_per_s,omitempty"`
	MinPairRoundTrips *int64   `json:"min_pair_round_trips,omitempty"`
	// supervised
	Kills        *int64 `json:"kills,omitempty"`
	Lost         *int64 `json:"lost,omitempty"`
	RestartP50Ns *int64 `json:"restart_p50_ns,omitempty"`
	RestartP99Ns *int64 `json:"restart_p99_ns,omitempty"`
	LateRestarts *int64 `json:"late_restarts,omitempty"`
	// idle
	Tasks   int64 `json:"tasks,omitempty"`
	SleepNs int64 `json:"sleep_ns,omitempty"`
}

// newResult fills the fields every benchmark has; ns_per_op is elapsed/ops
// unless the benchmark overrides it.
func newResult(cfg config, params map[string]any, ops int64, elapsed time.Duration, received, expected int64) *result {
	params["cores"] = runtime.GOMAXPROCS(0)
	var perOp float64 // 0 when no op completed (every pair starved): JSON has no NaN
	if ops > 0 {
		perOp = float64(elapsed.Nanoseconds()) / float64(ops)
	}
	return &result{
		Schema: 1, Bench: cfg.bench, Runtime: "go", Params: params,
		Ops: ops, ElapsedNs: elapsed.Nanoseconds(), NsPerOp: perOp,
		Checks: checks{received, expected},
	}
}

// verify is the final check of §3.1 and §6, shared by every benchmark.
func (r *result) verify(cores int) error {
	// Only supervised may lose messages (§4.7): each kill at most its pair's
	// one message in flight, so none without a kill.
	var lost int64
	if r.Lost != nil {
		lost = *r.Lost
		if lost > *r.Kills {
			return fmt.Errorf("lost %d messages in %d kills, at most one a kill", lost, *r.Kills)
		}
	}
	if r.Checks.Received+lost != r.Checks.Expected {
		return fmt.Errorf("received %d messages, expected %d (lost %d)", r.Checks.Received, r.Checks.Expected, lost)
	}
	if got := r.Params["cores"]; got != cores {
		return fmt.Errorf("GOMAXPROCS is %v, --cores asked for %d", got, cores)
	}
	return nil
}
