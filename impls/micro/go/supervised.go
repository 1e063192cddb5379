package main

// supervised (spec/MICRO.md §4.7): the pairs of §4.5, each pair supervised
// as a unit, while main kills goroutines at a set rate. Go's standard
// library has no supervisor, so this is the spec's hand-written Go form: a
// supervising goroutine per pair; each child recovers its panic in a
// deferred function and reports it; the supervisor cancels the pair's
// context (ending the partner), waits for both and starts both again.

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

const (
	roleA, roleB = 0, 1
	// The restart limit (OTP's intensity): a pair restarted more than
	// maxRestarts times within restartWindow fails the run. The largest kill
	// rate, 1000%, restarts a pair 20 times a second on average.
	maxRestarts   = 1000
	restartWindow = time.Second
)

// slot is what of a pair outlives its goroutines: the four counters of
// §4.7, written only by the pair's goroutines, and the pair's current
// generation, at which the killer aims. Padded to a cache line, so that
// neighbouring pairs do not write to the same one.
type slot struct {
	pingsSent, pingsReceived, pongsSent, pongsReceived atomic.Int64
	current                                            atomic.Pointer[generation]
	_                                                  [64 - 5*8]byte
}

// generation is one incarnation of a pair: its two goroutines' kill
// channels, what they report when they end, and the pair's context.
type generation struct {
	kill   [2]chan *killOrder // capacity 1: the killer never waits
	doomed atomic.Bool        // a kill has been aimed at this generation
	exits  chan exit          // capacity 2: each goroutine's last word
	cancel context.CancelFunc // ends the partner of a goroutine that died
	ended  chan struct{}      // closed when both goroutines have ended
}

// killOrder is what the killer sends down a kill channel and what the
// killed goroutine panics with, so that its supervisor knows which kill
// the replacement answers.
type killOrder struct {
	at      time.Time     // t_kill, the killer's clock just before the kill
	latency time.Duration // written by the replacement at its first clock read
	late    bool          // the replacement first ran after the stop
}

// exit is a child's report to its supervisor: the value it panicked with,
// recovered, or nil when it returned.
type exit struct {
	role    int
	failure any
}

// report is every child's deferred function: it recovers the child's panic
// and reports it, so that one child's death is its supervisor's business,
// not the program's.
func (g *generation) report(role int) { g.exits <- exit{role, recover()} }

type tree struct {
	cfg   config
	slots []slot
	// A flag shared by every generation, polled once per round trip, as in
	// pairs: a restarted A sees it as well as the first, and a replacement
	// that first runs after it ends at once.
	stop         atomic.Bool
	ready        chan struct{}   // the first generation's 2P ready messages
	starts       []chan struct{} // the first generation's go, one per A
	stopped      chan struct{}   // an A that saw the stop, one per pair
	replacements sync.WaitGroup  // one per kill, done by its replacement's first clock read
	supervisors  sync.WaitGroup
}

func supervised(cfg config) (*result, error) {
	t := newTree(cfg)

	t0 := time.Now()
	for _, start := range t.starts {
		start <- struct{}{}
	}
	orders := t.killUntil(t0) // main is the killer; returns at t0 + D
	// The pairs stop first, then main waits for the replacements: a
	// goroutine started by a supervisor may not run until the busy pairs
	// let it (runnext, README), and one that runs after the stop ends at
	// once, its pair stopped.
	t.stop.Store(true)
	for range cfg.pairs {
		<-t.stopped
	}
	t.replacements.Wait()
	elapsed := time.Since(t0)
	t.supervisors.Wait() // the tree ends itself: no stopped pair restarts
	return t.result(elapsed, orders), nil
}

// newTree starts a supervisor per pair and returns once the first
// generation's 2P goroutines are ready.
func newTree(cfg config) *tree {
	p := cfg.pairs
	t := &tree{cfg: cfg, slots: make([]slot, p), ready: make(chan struct{}, 2*p),
		starts: make([]chan struct{}, p), stopped: make(chan struct{}, p)}
	for i := range p {
		t.starts[i] = make(chan struct{})
		t.supervisors.Go(func() { t.supervise(i) })
	}
	for range 2 * p {
		<-t.ready
	}
	return t
}

// supervise runs pair's generations one after another: one for all, when
// either goroutine dies both are started again, fresh. It returns when both
// goroutines of a generation ended without a failure (the run's stop).
func (t *tree) supervise(pair int) {
	var replaces [2]*killOrder
	windowStart, restarts := time.Now(), 0
	for first := true; ; first = false {
		g := t.startPair(pair, replaces, first)
		exits := [2]exit{<-g.exits}
		g.cancel() // the partner ends at its next receive or send
		exits[1] = <-g.exits
		close(g.ended)

		replaces = [2]*killOrder{}
		failed := false
		for _, e := range exits {
			if e.failure != nil {
				failed = true
				if order, ok := e.failure.(*killOrder); ok {
					replaces[e.role] = order
				}
			}
		}
		if !failed {
			return
		}
		if now := time.Now(); now.Sub(windowStart) > restartWindow {
			windowStart, restarts = now, 0
		}
		if restarts++; restarts > maxRestarts {
			fail("supervised: pair %d restarted more than %d times within %v, the restart limit", pair, maxRestarts, restartWindow)
		}
	}
}

// startPair starts one generation of pair: fresh goroutines on fresh
// channels, so that no message of an old generation reaches a new one.
func (t *tree) startPair(pair int, replaces [2]*killOrder, first bool) *generation {
	ctx, cancel := context.WithCancel(context.Background())
	g := &generation{kill: [2]chan *killOrder{make(chan *killOrder, 1), make(chan *killOrder, 1)},
		exits: make(chan exit, 2), cancel: cancel, ended: make(chan struct{})}
	ping, pong := make(chan int), make(chan int)
	var start chan struct{} // a restarted A needs no go
	if first {
		start = t.starts[pair]
	}
	t.slots[pair].current.Store(g)
	go t.initiator(ctx, pair, g, ping, pong, replaces[roleA], start)
	go t.echoer(ctx, pair, g, ping, pong, replaces[roleB], first, first && t.cfg.dropOne && pair == 0)
	return g
}

// replaced is a child's first clock read: when it replaces a killed
// goroutine, the kill's restart latency, and whether it first ran after
// the stop (late: the child then ends at once, as its A sees the stop).
func (t *tree) replaced(order *killOrder) {
	if order != nil {
		order.latency = time.Since(order.at)
		order.late = t.stop.Load()
		t.replacements.Done()
	}
}

// initiator is A: ping(k), pong(k) from k = 1 until the stop, dying on a
// kill and ending when its partner has died.
func (t *tree) initiator(ctx context.Context, pair int, g *generation, ping chan<- int, pong <-chan int,
	replaces *killOrder, start <-chan struct{}) {
	defer g.report(roleA)
	t.replaced(replaces)
	if start != nil {
		t.ready <- struct{}{}
		<-start
	}
	s, kill := &t.slots[pair], g.kill[roleA]
	var k int
	for !t.stop.Load() {
		k++
		s.pingsSent.Add(1)
		select {
		case ping <- k:
		case order := <-kill:
			panic(order)
		case <-ctx.Done():
			return
		}
		select {
		case got := <-pong:
			if got != k {
				fail("supervised: pair %d expected pong %d, got %d", pair, k, got)
			}
			s.pongsReceived.Add(1)
		case order := <-kill:
			panic(order)
		case <-ctx.Done():
			return
		}
	}
	if g.doomed.Load() {
		// A kill aimed at this generation before the stop (the killer
		// stopped first, so none comes after) must still end it, so that
		// the supervisor starts the replacement the kill is owed: wait for
		// it, aimed at A, or for the cancel, when aimed at B.
		select {
		case order := <-kill:
			panic(order)
		case <-ctx.Done():
			return
		}
	}
	close(ping) // the echoer's stop message
	t.stopped <- struct{}{}
}

// echoer is B: checks ping(k) against its own count and answers pong(k).
func (t *tree) echoer(ctx context.Context, pair int, g *generation, ping <-chan int, pong chan<- int,
	replaces *killOrder, first, dropOne bool) {
	defer g.report(roleB)
	t.replaced(replaces)
	if first {
		t.ready <- struct{}{}
	}
	s, kill := &t.slots[pair], g.kill[roleB]
	if dropOne {
		select {
		case <-ping:
		case order := <-kill:
			panic(order)
		case <-ctx.Done():
			return
		}
	}
	var received int
	for {
		select {
		case k, open := <-ping:
			if !open {
				return // A saw the stop
			}
			received++
			if k != received {
				fail("supervised: pair %d expected ping %d, got %d", pair, received, k)
			}
			s.pingsReceived.Add(1)
			s.pongsSent.Add(1)
			select {
			case pong <- k:
			case order := <-kill:
				panic(order)
			case <-ctx.Done():
				return
			}
		case order := <-kill:
			panic(order)
		case <-ctx.Done():
			return
		}
	}
}

// kill ends the goroutine that holds role in pair now: the order goes down
// its kill channel, on which it panics. A kill aimed at a generation that
// is already dying (its pair being restarted) is skipped: nil.
func (t *tree) kill(pair, role int) *killOrder {
	g := t.slots[pair].current.Load()
	// doomed is set before the order is sent, and before main sets the
	// stop: an A that sees the stop sees whether its generation is doomed.
	if !g.doomed.CompareAndSwap(false, true) {
		return nil
	}
	t.replacements.Add(1)
	order := &killOrder{at: time.Now()}
	g.kill[role] <- order
	return order
}

// killUntil is the killer: kill j at t0 + j/rate while before t0 + D, each
// aimed at a pair and role drawn uniformly from a constant seed. It returns
// at t0 + D with the kills made.
func (t *tree) killUntil(t0 time.Time) []*killOrder {
	var orders []*killOrder
	p := len(t.slots)
	if rate := t.cfg.kill / 100 * float64(2*p); rate > 0 {
		rng := rand.New(rand.NewPCG(1, 2))
		for j := 1.0; j/rate < t.cfg.seconds; j++ {
			time.Sleep(time.Until(t0.Add(time.Duration(j / rate * float64(time.Second)))))
			if order := t.kill(rng.IntN(p), rng.IntN(2)); order != nil {
				orders = append(orders, order)
			}
		}
	}
	time.Sleep(time.Until(t0.Add(time.Duration(t.cfg.seconds * float64(time.Second)))))
	return orders
}

func (t *tree) result(elapsed time.Duration, orders []*killOrder) *result {
	var roundTrips, received, sent int64
	for i := range t.slots {
		s := &t.slots[i]
		roundTrips += s.pongsReceived.Load()
		received += s.pingsReceived.Load() + s.pongsReceived.Load()
		sent += s.pingsSent.Load() + s.pongsSent.Load()
	}
	latencies := make([]int64, len(orders))
	var late int64
	for i, order := range orders {
		latencies[i] = order.latency.Nanoseconds()
		if order.late {
			late++
		}
	}
	slices.Sort(latencies)
	p50, p99 := nearestRank(latencies, 50), nearestRank(latencies, 99)

	params := map[string]any{"pairs": t.cfg.pairs, "seconds": t.cfg.seconds, "kill_rate": t.cfg.kill}
	res := newResult(t.cfg, params, roundTrips, elapsed, received, sent)
	messages, kills, lost := received, int64(len(orders)), sent-received
	rate := float64(messages) / (float64(elapsed.Nanoseconds()) / 1e9)
	res.RoundTrips, res.Messages, res.MessagesPerS = &roundTrips, &messages, &rate
	res.Kills, res.Lost, res.RestartP50Ns, res.RestartP99Ns = &kills, &lost, &p50, &p99
	res.LateRestarts = &late
	return res
}

// nearestRank is the p-th percentile of sorted by nearest rank, 0 when
// it is empty.
func nearestRank(sorted []int64, p int) int64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ⌈p/100 × n⌉
	return sorted[max(rank, 1)-1]
}
