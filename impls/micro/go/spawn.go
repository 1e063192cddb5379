package main

// spawn, maxprocs and idle (spec/MICRO.md §4.3, §4.4, §4.6): many goroutines
// alive at once, each costing its stack, its g and, for spawn, its channel
// of capacity 1.

import (
	"sync"
	"sync/atomic"
	"time"
)

func spawn(cfg config) (*result, error) {
	n := cfg.procs
	// Main's mailboxes. Their element is zero-sized, so capacity n allocates
	// no buffer, and no goroutine ever blocks on main.
	acks, stopped := make(chan struct{}, n), make(chan struct{}, n)
	mailboxes := make([]chan struct{}, n)

	t0 := time.Now()
	for i := range mailboxes {
		// The same kind of mailbox as a pingping goroutine's (spec §4.3):
		// capacity 1. A zero-sized element allocates no buffer either way.
		mailbox := make(chan struct{}, 1)
		mailboxes[i] = mailbox
		go dormant(mailbox, acks, stopped)
	}
	if cfg.dropOne {
		<-acks
	}
	var received int64
	for range n {
		<-acks
		received++
	}
	elapsed := time.Since(t0)

	for _, mailbox := range mailboxes {
		mailbox <- struct{}{}
	}
	for range n {
		<-stopped
		received++
	}
	res := newResult(cfg, map[string]any{"procs": n}, int64(n), elapsed, received, 2*int64(n))
	res.Procs = int64(n)
	res.NsPerProc = &res.NsPerOp
	return res, nil
}

// dormant acknowledges that it runs, then blocks until its stop message.
func dormant(mailbox <-chan struct{}, acks, stopped chan<- struct{}) {
	acks <- struct{}{}
	<-mailbox
	stopped <- struct{}{}
}

func idle(cfg config) (*result, error) {
	n := cfg.procs
	// Go's join carries no value, so the completion notice is a counter.
	var wg sync.WaitGroup
	var notices atomic.Int64

	t0 := time.Now()
	for i := range n {
		skipNotice := cfg.dropOne && i == 0
		wg.Go(func() {
			time.Sleep(cfg.sleep)
			if !skipNotice {
				notices.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0)

	if elapsed < cfg.sleep {
		fail("idle: all tasks ended after %v, before their sleep of %v", elapsed, cfg.sleep)
	}
	params := map[string]any{"procs": n, "sleep_ms": cfg.sleep.Milliseconds()}
	res := newResult(cfg, params, int64(n), elapsed, notices.Load(), int64(n))
	res.NsPerOp = float64(elapsed-cfg.sleep) / float64(n)
	res.Tasks = int64(n)
	res.SleepNs = cfg.sleep.Nanoseconds()
	return res, nil
}
