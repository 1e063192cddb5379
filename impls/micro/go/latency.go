package main

// pingping and pingpong (spec/MICRO.md §4.1, §4.2): two goroutines, each
// owning the channel it receives from.

import (
	"fmt"
	"os"
	"time"
)

// fail ends the program at the first wrong message (spec §3.1): the other
// goroutine would otherwise wait forever for a reply that never comes.
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "micro: "+format+"\n", args...)
	os.Exit(1)
}

// parcel is one pingping message. The slice header is copied into the
// channel; the payload bytes are shared, as Go always passes a []byte.
type parcel struct {
	k    int
	data []byte
}

// newPayload allocates a fresh payload and fills every byte with k mod 251.
// The doubling copy runs at memmove speed; a byte loop would make Go pay
// several times what C's memset or Rust's vec![v; n] pay for the same fill.
func newPayload(size, k int) []byte {
	p := make([]byte, size)
	p[0] = byte(k % 251)
	for n := 1; n < size; n *= 2 {
		copy(p[n:], p[:n])
	}
	return p
}

func (m parcel) check(name string, k, size int) {
	fill := byte(k % 251)
	switch {
	case m.k != k:
		fail("pingping: process %s expected message %d, got %d", name, k, m.k)
	case len(m.data) != size:
		fail("pingping: process %s: message %d has %d bytes, expected %d", name, k, len(m.data), size)
	case m.data[0] != fill || m.data[size-1] != fill:
		fail("pingping: process %s: message %d is not filled with %d", name, k, fill)
	}
}

func pingping(cfg config) (*result, error) {
	// Capacity 1: both goroutines send before they receive (IMB PingPing),
	// so unbuffered channels would deadlock; lock-step keeps at most one
	// more message waiting, so a larger buffer would never be used.
	toA, toB := make(chan parcel, 1), make(chan parcel, 1)
	ready := make(chan struct{}, 2)
	// Each goroutine's go comes alone on a start channel of its own (§4.1):
	// A's message 1 may reach toB before main's go reaches B.
	startA, startB := make(chan struct{}), make(chan struct{})
	done := make(chan int64, 2)
	go exchanger("A", cfg, toA, toB, ready, startA, done, false)
	go exchanger("B", cfg, toB, toA, ready, startB, done, cfg.dropOne)
	<-ready
	<-ready

	t0 := time.Now()
	startA <- struct{}{}
	startB <- struct{}{}
	received := <-done + <-done
	elapsed := time.Since(t0)

	params := map[string]any{"size": cfg.size, "reps": cfg.reps}
	return newResult(cfg, params, int64(cfg.reps), elapsed, received, 2*int64(cfg.reps)), nil
}

func exchanger(name string, cfg config, in <-chan parcel, out chan<- parcel,
	ready chan<- struct{}, start <-chan struct{}, done chan<- int64, dropOne bool) {
	ready <- struct{}{}
	<-start
	if dropOne {
		<-in
	}
	var received int64
	for k := 1; k <= cfg.reps; k++ {
		out <- parcel{k, newPayload(cfg.size, k)}
		(<-in).check(name, k, cfg.size)
		received++
	}
	done <- received
}

func pingpong(cfg config) (*result, error) {
	// Unbuffered: a round trip is a rendezvous anyway, and handing a value
	// to a goroutine already blocked in receive is Go's direct fast path.
	pings, pongs := make(chan int), make(chan int)
	ready := make(chan struct{}, 2)
	start := make(chan struct{})
	pingerDone, pongerDone := make(chan int64, 1), make(chan int64, 1)
	go ponger(pings, pongs, ready, pongerDone, cfg.dropOne)
	go pinger(cfg.reps, pings, pongs, ready, start, pingerDone)
	<-ready
	<-ready

	t0 := time.Now()
	start <- struct{}{}
	pongsReceived := <-pingerDone
	elapsed := time.Since(t0)
	close(pings) // the ponger's stop message
	received := pongsReceived + <-pongerDone

	params := map[string]any{"reps": cfg.reps}
	return newResult(cfg, params, int64(cfg.reps), elapsed, received, 2*int64(cfg.reps)), nil
}

func pinger(reps int, pings chan<- int, pongs <-chan int, ready chan<- struct{}, start <-chan struct{}, done chan<- int64) {
	ready <- struct{}{}
	<-start
	var received int64
	for k := 1; k <= reps; k++ {
		pings <- k
		if got := <-pongs; got != k {
			fail("pingpong: pinger expected pong %d, got %d", k, got)
		}
		received++
	}
	done <- received
}

func ponger(pings <-chan int, pongs chan<- int, ready chan<- struct{}, done chan<- int64, dropOne bool) {
	ready <- struct{}{}
	if dropOne {
		<-pings
	}
	var received int64
	for k := range pings {
		received++
		if int64(k) != received {
			fail("pingpong: ponger expected ping %d, got %d", received, k)
		}
		pongs <- k
	}
	done <- received
}
