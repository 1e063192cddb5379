package main

// supervised (spec/MICRO.md §4.7, §8): runs with and without kills from
// outside, and a pair killed by hand from inside.

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

type supervisedLine struct {
	result
	Params map[string]float64 `json:"params"`
}

func runSupervised(t *testing.T, killRate string) supervisedLine {
	t.Helper()
	stdout, stderr, code := runProgram(t, "supervised", "--pairs", "4", "--seconds", "0.4",
		"--kill-rate", killRate, "--cores", "2", "--timeout", "20")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var r supervisedLine
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("not JSON: %v: %q", err, stdout)
	}
	// What concur checks before it accepts the line (§7).
	switch {
	case r.Params["kill_rate"] != mustFloat(t, killRate) || r.Params["pairs"] != 4 || r.Params["seconds"] != 0.4:
		t.Errorf("params not echoed: %v", r.Params)
	case r.RoundTrips == nil || r.Kills == nil || r.Lost == nil || r.RestartP50Ns == nil || r.RestartP99Ns == nil ||
		r.LateRestarts == nil:
		t.Fatalf("a supervised field is missing: %s", stdout)
	case r.Ops != *r.RoundTrips || *r.Messages != r.Checks.Received:
		t.Errorf("ops %d, round_trips %d, messages %d, received %d", r.Ops, *r.RoundTrips, *r.Messages, r.Checks.Received)
	case r.Checks.Received+*r.Lost != r.Checks.Expected || *r.Lost > *r.Kills:
		t.Errorf("checks %+v, lost %d, kills %d", r.Checks, *r.Lost, *r.Kills)
	case math.Abs(*r.MessagesPerS-float64(*r.Messages)/(float64(r.ElapsedNs)/1e9)) > *r.MessagesPerS*1e-6:
		t.Errorf("messages_per_s %v for %d messages in %d ns", *r.MessagesPerS, *r.Messages, r.ElapsedNs)
	}
	return r
}

func mustFloat(t *testing.T, s string) float64 {
	var f float64
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSupervisedWithKillsRestartsEveryKilledProcess(t *testing.T) {
	t.Parallel()
	// 500% of 8 processes a second for 0.4 s: about 16 kills.
	r := runSupervised(t, "500")
	if *r.Kills == 0 || *r.RestartP50Ns <= 0 || *r.RestartP99Ns < *r.RestartP50Ns || *r.RoundTrips == 0 ||
		*r.LateRestarts < 0 || *r.LateRestarts > *r.Kills {
		t.Errorf("kills %d, restart p50 %d p99 %d, round trips %d, late restarts %d",
			*r.Kills, *r.RestartP50Ns, *r.RestartP99Ns, *r.RoundTrips, *r.LateRestarts)
	}
}

func TestSupervisedWithoutKillsLosesNothing(t *testing.T) {
	t.Parallel()
	r := runSupervised(t, "0")
	if *r.Kills != 0 || *r.Lost != 0 || *r.RestartP50Ns != 0 || *r.RestartP99Ns != 0 || *r.RoundTrips == 0 ||
		*r.LateRestarts != 0 {
		t.Errorf("kills %d, lost %d, restart p50 %d p99 %d, round trips %d, late restarts %d",
			*r.Kills, *r.Lost, *r.RestartP50Ns, *r.RestartP99Ns, *r.RoundTrips, *r.LateRestarts)
	}
}

// --kill-rate is accepted, and ignored, by every other benchmark (§2).
func TestKillRateIsIgnoredByPairs(t *testing.T) {
	stdout, stderr, code := runProgram(t, "pairs", "--pairs", "1", "--seconds", "0.05", "--kill-rate", "5")
	if code != 0 || strings.Contains(stdout, "kill") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// within fails the test unless cond holds before the deadline.
func within(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}

// One role killed by hand: its supervisor ends the partner too and starts
// both again, fresh, the new A from ping(1) (the new B checks that), while
// the other pair is left alone.
func TestSupervisorRestartsTheWholePair(t *testing.T) {
	tr := newTree(config{bench: "supervised", pairs: 2, seconds: 1})
	for _, start := range tr.starts {
		start <- struct{}{}
	}
	pair0, pair1 := &tr.slots[0], &tr.slots[1]
	within(t, "pair 0 exchanging", func() bool { return pair0.pongsReceived.Load() >= 10 })
	old, other := pair0.current.Load(), pair1.current.Load()

	order := tr.kill(0, roleB)
	if order == nil {
		t.Fatal("the kill was skipped")
	}
	replaced := make(chan struct{})
	go func() { tr.replacements.Wait(); close(replaced) }()
	for _, ch := range []chan struct{}{replaced, old.ended} {
		select {
		case <-ch: // the new B has run; both old goroutines, the killed B and its A, have ended
		case <-time.After(10 * time.Second):
			t.Fatal("the killed B was not replaced, or the old pair did not end")
		}
	}
	if order.latency <= 0 || pair0.current.Load() == old {
		t.Errorf("restart latency %v, generation replaced %v", order.latency, pair0.current.Load() != old)
	}
	before := pair0.pongsReceived.Load()
	within(t, "the new pair exchanging", func() bool { return pair0.pongsReceived.Load() >= before+10 })
	if pair1.current.Load() != other {
		t.Error("pair 1 was restarted by pair 0's kill")
	}

	tr.stop.Store(true)
	<-tr.stopped
	<-tr.stopped
	tr.supervisors.Wait()
	for i := range tr.slots {
		s := &tr.slots[i]
		lost := s.pingsSent.Load() - s.pingsReceived.Load() + s.pongsSent.Load() - s.pongsReceived.Load()
		if lost > 1 || (i == 1 && lost != 0) {
			t.Errorf("pair %d lost %d messages", i, lost)
		}
	}
}

// The order of §4.7's end: a kill made just before the stop still ends its
// pair, whose replacement runs (most likely after the stop: late) and ends
// at once, and main's wait for the pairs and the replacements ends.
func TestKillJustBeforeTheStopIsReplaced(t *testing.T) {
	for _, role := range []int{roleA, roleB} {
		tr := newTree(config{bench: "supervised", pairs: 2, seconds: 1})
		for _, start := range tr.starts {
			start <- struct{}{}
		}
		within(t, "pair 0 exchanging", func() bool { return tr.slots[0].pongsReceived.Load() >= 10 })
		order := tr.kill(0, role)
		if order == nil {
			t.Fatal("the kill was skipped")
		}
		tr.stop.Store(true)
		done := make(chan struct{})
		go func() {
			<-tr.stopped
			<-tr.stopped
			tr.replacements.Wait()
			tr.supervisors.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("role %d killed just before the stop: the run did not end", role)
		}
		if order.latency <= 0 {
			t.Errorf("role %d: restart latency %v", role, order.latency)
		}
		t.Logf("role %d: restart latency %v, late %v", role, order.latency, order.late)
	}
}

func TestNearestRank(t *testing.T) {
	for _, c := range []struct {
		sorted   []int64
		p        int
		expected int64
	}{
		{nil, 50, 0}, {[]int64{7}, 99, 7}, {[]int64{1, 2, 3, 4}, 50, 2},
		{[]int64{1, 2, 3, 4}, 99, 4}, {[]int64{1, 2, 3, 4, 5}, 50, 3},
	} {
		if got := nearestRank(c.sorted, c.p); got != c.expected {
			t.Errorf("p%d of %v: %d, want %d", c.p, c.sorted, got, c.expected)
		}
	}
}
