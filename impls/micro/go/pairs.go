package main

// pairs (spec/MICRO.md §4.5): P pairs of goroutines bouncing an integer over
// unbuffered channels for D seconds.

import (
	"sync/atomic"
	"time"
)

type pairCount struct {
	pair int
	n    int64
}

func pairs(cfg config) (*result, error) {
	p := cfg.pairs
	// A flag polled once per round trip: cheaper than a select on a done
	// channel in the hot loop, and just as idiomatic for a global stop.
	var stop atomic.Bool
	ready := make(chan struct{}, 2*p)
	starts := make([]chan struct{}, p)
	initiated, echoed := make(chan pairCount, p), make(chan pairCount, p)
	for i := range p {
		ping, pong := make(chan int), make(chan int)
		starts[i] = make(chan struct{})
		go initiator(i, ping, pong, &stop, ready, starts[i], initiated)
		go echoer(i, ping, pong, ready, echoed, cfg.dropOne && i == 0)
	}
	for range 2 * p {
		<-ready
	}

	t0 := time.Now()
	for _, start := range starts {
		start <- struct{}{}
	}
	time.Sleep(time.Duration(cfg.seconds * float64(time.Second)))
	stop.Store(true)
	roundTrips, pings := make([]int64, p), make([]int64, p)
	for range p {
		c := <-initiated
		roundTrips[c.pair] = c.n
	}
	for range p {
		c := <-echoed
		pings[c.pair] = c.n
	}
	elapsed := time.Since(t0)
	return pairsResult(cfg, elapsed, roundTrips, pings), nil
}

func pairsResult(cfg config, elapsed time.Duration, roundTrips, pings []int64) *result {
	var total, received int64
	minimum := roundTrips[0]
	for i := range roundTrips {
		if roundTrips[i] != pings[i] {
			fail("pairs: pair %d made %d round trips but its echoer received %d pings", i, roundTrips[i], pings[i])
		}
		total += roundTrips[i]
		received += roundTrips[i] + pings[i]
		minimum = min(minimum, roundTrips[i])
	}
	params := map[string]any{"pairs": cfg.pairs, "seconds": cfg.seconds}
	res := newResult(cfg, params, total, elapsed, received, 2*total)
	messages, rate := 2*total, float64(2*total)/elapsed.Seconds()
	res.RoundTrips, res.Messages, res.MessagesPerS, res.MinPairRoundTrips = &total, &messages, &rate, &minimum
	return res
}

func initiator(pair int, ping chan<- int, pong <-chan int, stop *atomic.Bool,
	ready chan<- struct{}, start <-chan struct{}, done chan<- pairCount) {
	ready <- struct{}{}
	<-start
	var k int
	for !stop.Load() {
		k++
		ping <- k
		if got := <-pong; got != k {
			fail("pairs: pair %d expected pong %d, got %d", pair, k, got)
		}
	}
	close(ping) // the echoer's stop message
	done <- pairCount{pair, int64(k)}
}

func echoer(pair int, ping <-chan int, pong chan<- int, ready chan<- struct{}, done chan<- pairCount, dropOne bool) {
	ready <- struct{}{}
	if dropOne {
		<-ping
	}
	var received int64
	for k := range ping {
		received++
		if int64(k) != received {
			fail("pairs: pair %d expected ping %d, got %d", pair, received, k)
		}
		pong <- k
	}
	done <- pairCount{pair, received}
}
