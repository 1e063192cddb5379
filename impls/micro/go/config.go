package main

// The command line of spec/MICRO.md §2, parsed once into a config. A bad
// argument stops the program with exit code 2 and a message naming the flag
// and the fix, so a typo never measures a silently different workload.

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"
)

var benches = []string{"pingping", "pingpong", "spawn", "maxprocs", "pairs", "idle", "supervised"}

type config struct {
	bench   string
	size    int           // --size: payload bytes per pingping message
	reps    int           // --reps: exchanges (pingping) or round trips (pingpong)
	procs   int           // --procs: processes of spawn, maxprocs and idle
	pairs   int           // --pairs: communicating pairs
	seconds float64       // --seconds: run length of pairs and supervised
	kill    float64       // --kill-rate: kills per second, in percent of the 2P (supervised)
	sleep   time.Duration // --sleep-ms: each idle task's sleep
	cores   int           // --cores: GOMAXPROCS
	timeout time.Duration // --timeout: the watchdog of §3.2
	dropOne bool          // --drop-one: the test hook of §3.3
}

// usageError is a bad argument: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func parseArgs(args []string, getenv func(string) string) (config, error) {
	cfg := config{size: 5120, reps: 10000, procs: 10000, pairs: 4, seconds: 1,
		sleep: time.Second, cores: runtime.GOMAXPROCS(0), timeout: 300 * time.Second}
	if v := getenv("CONCUR_CORES"); v != "" {
		n, err := positiveInt("CONCUR_CORES", v)
		if err != nil {
			return cfg, err
		}
		cfg.cores = n
	}
	if len(args) == 0 || !isBench(args[0]) {
		got := "nothing"
		if len(args) > 0 {
			got = fmt.Sprintf("'%s'", args[0])
		}
		return cfg, usagef("the first argument must be a benchmark, one of %v, got %s (e.g. ./micro pingping --size 5120 --reps 10000)", benches, got)
	}
	cfg.bench = args[0]
	seen := map[string]bool{}
	for i := 1; i < len(args); i++ {
		flag := args[i]
		if seen[flag] {
			return cfg, usagef("%s: given twice", flag)
		}
		seen[flag] = true
		if flag == "--drop-one" {
			cfg.dropOne = true
			continue
		}
		if i+1 >= len(args) {
			return cfg, usagef("%s: missing value", flag)
		}
		i++
		if err := cfg.set(flag, args[i]); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

func (cfg *config) set(flag, v string) error {
	var err error
	switch flag {
	case "--size":
		cfg.size, err = positiveInt(flag, v)
	case "--reps":
		cfg.reps, err = positiveInt(flag, v)
	case "--procs":
		cfg.procs, err = positiveInt(flag, v)
	case "--pairs":
		cfg.pairs, err = positiveInt(flag, v)
	case "--cores":
		cfg.cores, err = positiveInt(flag, v)
	case "--seconds":
		cfg.seconds, err = positiveSeconds(flag, v)
	case "--kill-rate":
		cfg.kill, err = killRate(flag, v)
	case "--timeout":
		var s float64
		s, err = positiveSeconds(flag, v)
		cfg.timeout = time.Duration(s * float64(time.Second))
	case "--sleep-ms":
		ms, perr := strconv.Atoi(v)
		if perr != nil || ms < 0 {
			return usagef("%s: '%s' is not an integer >= 0 (e.g. %s 1000)", flag, v, flag)
		}
		cfg.sleep = time.Duration(ms) * time.Millisecond
	default:
		return usagef("unknown flag '%s' (see spec/MICRO.md §2)", flag)
	}
	return err
}

func positiveInt(name, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, usagef("%s: '%s' is not an integer >= 1 (e.g. %s 1000)", name, v, name)
	}
	return n, nil
}

func positiveSeconds(name, v string) (float64, error) {
	s, err := strconv.ParseFloat(v, 64)
	if err != nil || !(s > 0) || s > 1e6 {
		return 0, usagef("%s: '%s' is not a number of seconds > 0 (e.g. %s 0.5)", name, v, name)
	}
	return s, nil
}

func killRate(name, v string) (float64, error) {
	k, err := strconv.ParseFloat(v, 64)
	if err != nil || !(k >= 0) || k > 1000 {
		return 0, usagef("%s: '%s' is not a percentage >= 0 and <= 1000 (e.g. %s 5)", name, v, name)
	}
	return k, nil
}

func isBench(s string) bool {
	for _, b := range benches {
		if s == b {
			return true
		}
	}
	return false
}

func fatalUsage(err error) {
	fmt.Fprintln(os.Stderr, "micro:", err)
	os.Exit(2)
}
