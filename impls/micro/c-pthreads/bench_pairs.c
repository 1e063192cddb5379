/* pairs (spec/MICRO.md §4.5): P pairs of threads bouncing an integer
 * through one-slot mailboxes for D seconds. */
#include "mailbox.h"
#include "micro.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

struct pair {
	long index;
	struct mailbox a_inbox, b_inbox;
	atomic_bool *stop;
	struct counter *ready, *done;
	int drop_one;
	long round_trips, pings;
};

/* A flag polled once per round trip: the cheapest stop a thread can check. */
static void *initiator(void *arg)
{
	struct pair *p = arg;
	counter_post(p->ready);
	mailbox_recv(&p->a_inbox); /* go */
	long k = 0;
	while (!atomic_load_explicit(p->stop, memory_order_relaxed)) {
		k++;
		mailbox_send(&p->b_inbox, (struct msg){.k = k});
		long got = mailbox_recv(&p->a_inbox).k;
		if (got != k)
			fail("pairs: pair %ld expected pong %ld, got %ld", p->index, k, got);
	}
	p->round_trips = k;
	mailbox_send(&p->b_inbox, (struct msg){.k = MSG_STOP});
	counter_post(p->done);
	return NULL;
}

static void *echoer(void *arg)
{
	struct pair *p = arg;
	counter_post(p->ready);
	if (p->drop_one)
		mailbox_recv(&p->b_inbox);
	for (;;) {
		struct msg m = mailbox_recv(&p->b_inbox);
		if (m.k == MSG_STOP)
			break;
		if (m.k != p->pings + 1)
			fail("pairs: pair %ld expected ping %ld, got %ld", p->index, p->pings + 1, m.k);
		p->pings++;
		mailbox_send(&p->a_inbox, m);
	}
	counter_post(p->done);
	return NULL;
}

void bench_pairs(const struct config *cfg, struct result *r)
{
	long n = cfg->pairs;
	atomic_bool stop = false;
	struct counter ready, done;
	counter_init(&ready);
	counter_init(&done);
	struct pair *pairs = calloc((size_t)n, sizeof *pairs);
	pthread_t *threads = calloc((size_t)(2 * n), sizeof *threads);
	if (!pairs || !threads)
		fail("pairs: out of memory");
	for (long i = 0; i < n; i++) {
		struct pair *p = &pairs[i];
		*p = (struct pair){.index = i, .stop = &stop, .ready = &ready, .done = &done,
				   .drop_one = cfg->drop_one && i == 0};
		mailbox_init(&p->a_inbox);
		mailbox_init(&p->b_inbox);
		start_thread(&threads[2 * i], initiator, p, 2 * i);
		start_thread(&threads[2 * i + 1], echoer, p, 2 * i + 1);
	}
	for (long got = 0; got < 2 * n; got += counter_take(&ready))
		;

	int64_t t0 = now_ns();
	for (long i = 0; i < n; i++)
		mailbox_send(&pairs[i].a_inbox, (struct msg){.k = MSG_GO});
	sleep_ns((int64_t)(cfg->seconds * 1e9));
	atomic_store(&stop, true);
	for (long got = 0; got < 2 * n; got += counter_take(&done))
		;
	r->elapsed_ns = now_ns() - t0;

	for (long i = 0; i < 2 * n; i++)
		pthread_join(threads[i], NULL);
	r->min_pair_round_trips = pairs[0].round_trips;
	for (long i = 0; i < n; i++) {
		struct pair *p = &pairs[i];
		if (p->round_trips != p->pings)
			fail("pairs: pair %ld made %ld round trips but its echoer received %ld pings", i, p->round_trips, p->pings);
		r->round_trips += p->round_trips;
		r->received += p->round_trips + p->pings;
		if (p->round_trips < r->min_pair_round_trips)
			r->min_pair_round_trips = p->round_trips;
	}
	r->ops = r->round_trips;
	r->expected = 2 * r->round_trips;
}
