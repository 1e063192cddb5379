package main

// The fault routes of SPEC §9, routed only when CONCUR_FAULTS=1: a handler
// that fails as a bug would, and one that computes without yielding.

import (
	"net/http"
	"strconv"
	"time"
)

const maxSpin = 10_000 // milliseconds

// panicking fails as a bug in a handler does. net/http recovers the panic
// itself: it logs it and closes the connection, and serves on.
func (s *server) panicking(w http.ResponseWriter, r *http.Request) {
	panic("fault: /fault/panic")
}

// spin computes for ms milliseconds on the goroutine serving the request.
// Go's scheduler preempts it (asynchronous preemption since Go 1.14), so
// the other goroutines on its GOMAXPROCS threads still run.
func (s *server) spin(w http.ResponseWriter, r *http.Request) {
	until := time.Now().Add(time.Duration(spinMillis(r)) * time.Millisecond)
	for time.Now().Before(until) {
	}
	writeText(w, "OK")
}

// spinMillis is the ms parameter clamped to 0..10000, as queryCount clamps
// queries; anything that is not an integer counts as 0.
func spinMillis(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("ms"))
	switch {
	case err != nil || n < 0:
		return 0
	case n > maxSpin:
		return maxSpin
	}
	return n
}
