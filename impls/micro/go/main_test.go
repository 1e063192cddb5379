package main

// End-to-end tests: the test binary re-executes itself as the real program
// (TestMain below), so os.Exit, the watchdog and the exit codes are tested
// exactly as concur micro sees them.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv("MICRO_TEST_AS_PROGRAM") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runProgram runs the program with args and returns stdout, stderr and the
// exit code.
func runProgram(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MICRO_TEST_AS_PROGRAM=1", "CONCUR_CORES=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return stdout.String(), stderr.String(), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}

var small = map[string][]string{
	"pingping": {"--size", "100", "--reps", "500"},
	"pingpong": {"--reps", "500"},
	"spawn":    {"--procs", "300"},
	"maxprocs": {"--procs", "300"},
	"pairs":    {"--pairs", "3", "--seconds", "0.1"},
	"idle":     {"--procs", "300", "--sleep-ms", "20"},
	// No --kill-rate: the default 0, so --drop-one must fail (§4.7).
	"supervised": {"--pairs", "3", "--seconds", "0.1"},
}

func TestEveryBenchPrintsOneValidJSONLine(t *testing.T) {
	for bench, args := range small {
		t.Run(bench, func(t *testing.T) {
			stdout, stderr, code := runProgram(t, append([]string{bench, "--cores", "1"}, args...)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
				t.Fatalf("want exactly one line, got %q", stdout)
			}
			var r map[string]any
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatalf("not JSON: %v: %q", err, stdout)
			}
			checkCommonFields(t, bench, r)
		})
	}
}

func checkCommonFields(t *testing.T, bench string, r map[string]any) {
	t.Helper()
	if r["schema"] != 1.0 || r["bench"] != bench || r["runtime"] != "go" {
		t.Errorf("schema/bench/runtime wrong: %v", r)
	}
	params := r["params"].(map[string]any)
	if params["cores"] != 1.0 {
		t.Errorf("params.cores = %v, want 1", params["cores"])
	}
	c := r["checks"].(map[string]any)
	if c["received"] != c["expected"] || c["expected"].(float64) <= 0 {
		t.Errorf("checks = %v", c)
	}
	if r["ops"].(float64) <= 0 || r["elapsed_ns"].(float64) <= 0 {
		t.Errorf("ops/elapsed_ns = %v/%v", r["ops"], r["elapsed_ns"])
	}
	want := map[string][]string{
		"pingping": {"size", "reps"}, "pingpong": {"reps"}, "spawn": {"procs"},
		"maxprocs": {"procs"}, "pairs": {"pairs", "seconds"}, "idle": {"procs", "sleep_ms"},
		"supervised": {"pairs", "seconds", "kill_rate"},
	}[bench]
	if len(params) != len(want)+1 {
		t.Errorf("params = %v, want exactly %v and cores", params, want)
	}
	extra := map[string][]string{
		"spawn": {"procs", "ns_per_proc"}, "maxprocs": {"procs", "ns_per_proc"},
		"pairs": {"round_trips", "messages", "messages_per_s", "min_pair_round_trips"},
		"idle":  {"tasks", "sleep_ns"},
		"supervised": {"round_trips", "messages", "messages_per_s", "kills", "lost",
			"restart_p50_ns", "restart_p99_ns", "late_restarts"},
	}[bench]
	for _, f := range append(extra, "ns_per_op") {
		if _, ok := r[f]; !ok {
			t.Errorf("field %s missing in %v", f, r)
		}
	}
}

func TestPingpingCountsMatchTheParameters(t *testing.T) {
	stdout, _, _ := runProgram(t, "pingping", "--size", "64", "--reps", "1234")
	var r result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.Ops != 1234 || r.Checks.Expected != 2468 || r.Checks.Received != 2468 {
		t.Errorf("ops %d, checks %+v", r.Ops, r.Checks)
	}
}

func TestALostMessageFailsVerification(t *testing.T) {
	for bench, args := range small {
		t.Run(bench, func(t *testing.T) {
			t.Parallel() // most of these end by the watchdog
			args := append([]string{bench, "--drop-one", "--timeout", "3"}, args...)
			stdout, stderr, code := runProgram(t, args...)
			if code != 1 || stdout != "" || stderr == "" {
				t.Fatalf("want exit 1, empty stdout and a reason; got %d, %q, %q", code, stdout, stderr)
			}
		})
	}
}

func TestBadArgumentsExitWith2(t *testing.T) {
	for _, args := range [][]string{
		{}, {"pingpang"}, {"pingping", "--reps", "10k"}, {"pingping", "--reps", "0"},
		{"pairs", "--seconds", "-1"}, {"spawn", "--procs"}, {"spawn", "--frobs", "1"},
		{"spawn", "--procs", "1", "--procs", "2"},
		{"supervised", "--kill-rate", "-1"}, {"supervised", "--kill-rate", "1000.5"},
		{"supervised", "--kill-rate", "5%"}, {"supervised", "--kill-rate", "NaN"},
		{"supervised", "--kill-rate"}, {"pairs", "--kill-rate", "x"},
	} {
		stdout, stderr, code := runProgram(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "micro:") {
			t.Errorf("%v: got %d, %q, %q", args, code, stdout, stderr)
		}
	}
}

func TestPayloadIsFilledEntirely(t *testing.T) {
	for _, size := range []int{1, 2, 3, 5120, 51200, 4097} {
		p := newPayload(size, 300)
		if len(p) != size || bytes.Count(p, []byte{300 % 251}) != size {
			t.Errorf("size %d: payload not filled with 49", size)
		}
	}
}

func TestVerifyRejectsAWrongCount(t *testing.T) {
	r := &result{Params: map[string]any{"cores": 1}, Checks: checks{Received: 9, Expected: 10}}
	if err := r.verify(1); err == nil || !strings.Contains(err.Error(), "received 9 messages, expected 10") {
		t.Errorf("got %v", err)
	}
	r.Checks.Received = 10
	if err := r.verify(2); err == nil || !strings.Contains(err.Error(), "GOMAXPROCS") {
		t.Errorf("a cores mismatch must fail, got %v", err)
	}
}

// Regression for "B expected GO, got Parcel" (spec §4.1): each side of
// pingping starts on its own go, and A's message 1 may reach B before it.
func TestPingpingSidesStartOnTheirOwnGo(t *testing.T) {
	cfg := config{size: 100, reps: 50}
	toA, toB := make(chan parcel, 1), make(chan parcel, 1)
	ready, done := make(chan struct{}, 2), make(chan int64, 2)
	startA, startB := make(chan struct{}), make(chan struct{})
	go exchanger("A", cfg, toA, toB, ready, startA, done, false)
	go exchanger("B", cfg, toB, toA, ready, startB, done, false)
	<-ready
	<-ready

	startA <- struct{}{}
	for deadline := time.Now().Add(5 * time.Second); len(toB) == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if len(toB) != 1 {
		t.Fatal("A did not send its message 1 on its own go")
	}
	select {
	case n := <-done:
		t.Fatalf("a side finished (%d messages) while B waited for its go", n)
	case <-time.After(100 * time.Millisecond):
	}
	if len(toB) != 1 {
		t.Fatal("B took a message before its own go")
	}
	startB <- struct{}{}
	if a, b := <-done, <-done; a != 50 || b != 50 {
		t.Errorf("received %d and %d messages, want 50 each", a, b)
	}
}

// spec §4.5: a run in which no pair completed a round trip is a result.
func TestPairsWithNoRoundTripPrintZeros(t *testing.T) {
	cfg := config{bench: "pairs", pairs: 2, seconds: 0.001}
	res := pairsResult(cfg, 1500*time.Microsecond, make([]int64, 2), make([]int64, 2))
	if err := res.verify(runtime.GOMAXPROCS(0)); err != nil {
		t.Fatal(err)
	}
	line, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ops", "ns_per_op", "round_trips", "messages", "messages_per_s", "min_pair_round_trips"} {
		if v, ok := r[f]; !ok || v != 0.0 {
			t.Errorf("%s = %v, want 0 in %s", f, v, line)
		}
	}
}
