package main

// The fault routes of SPEC §9, in the route table only when CONCUR_FAULTS=1:
// a handler that fails as a bug would, and one that computes without
// yielding.

import (
	"net/url"
	"strconv"
	"time"
)

const maxSpin = 10_000 // milliseconds

// panicking fails as a bug in a handler does. Nothing recovers it: a panic
// that leaves a goroutine ends the Go program, every connection with it,
// which is what a hand-written server on net.Listen gets unless it writes
// the recover that net/http has built in.
func (s *server) panicking(req *request, _ string) response {
	panic("fault: /fault/panic")
}

// spin computes for ms milliseconds on the connection's goroutine. Go's
// scheduler preempts it (asynchronously since Go 1.14), so the other
// goroutines on its GOMAXPROCS threads still run.
func (s *server) spin(req *request, _ string) response {
	until := time.Now().Add(time.Duration(spinMillis(req)) * time.Millisecond)
	for time.Now().Before(until) {
	}
	return text(200, "OK")
}

// spinMillis is the ms parameter clamped to 0..10000, as queryCount clamps
// queries; anything that is not an integer counts as 0.
func spinMillis(req *request) int {
	values, _ := url.ParseQuery(req.query)
	n, err := strconv.Atoi(values.Get("ms"))
	switch {
	case err != nil || n < 0:
		return 0
	case n > maxSpin:
		return maxSpin
	}
	return n
}
