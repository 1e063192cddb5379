/* spawn, maxprocs and idle (spec/MICRO.md §4.3, §4.4, §4.6): many OS
 * threads alive at once, each costing its 64 KiB stack (resident only as
 * far as touched), its kernel task and, for spawn, its mailbox. */
#include "mailbox.h"
#include "micro.h"

#include <stdint.h>
#include <stdlib.h>

struct dormant {
	struct mailbox inbox;
	struct counter *acks, *stopped;
};

static void *dormant(void *arg)
{
	struct dormant *d = arg;
	counter_post(d->acks);
	mailbox_recv(&d->inbox);
	counter_post(d->stopped);
	return NULL;
}

static void *xcalloc(long n, size_t size)
{
	void *p = calloc((size_t)n, size);
	if (!p)
		fail("out of memory for %ld threads", n);
	return p;
}

void bench_spawn(const struct config *cfg, struct result *r)
{
	long n = cfg->procs;
	struct counter acks, stopped;
	counter_init(&acks);
	counter_init(&stopped);
	pthread_t *threads = xcalloc(n, sizeof *threads);
	struct dormant *procs = xcalloc(n, sizeof *procs);

	int64_t t0 = now_ns();
	for (long i = 0; i < n; i++) {
		procs[i].acks = &acks;
		procs[i].stopped = &stopped;
		mailbox_init(&procs[i].inbox);
		start_thread(&threads[i], dormant, &procs[i], i);
	}
	long received = 0;
	/* A counter holds no message identity: dropping "the first ack" is
	 * taking one more than arrives. */
	long want = cfg->drop_one ? n + 1 : n;
	while (received < want)
		received += counter_take(&acks);
	r->elapsed_ns = now_ns() - t0;

	for (long i = 0; i < n; i++)
		mailbox_send(&procs[i].inbox, (struct msg){.k = MSG_STOP});
	for (long got = 0; got < n; got += counter_take(&stopped))
		;
	received += n;
	for (long i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	r->ops = n;
	r->received = received;
	r->expected = 2 * n;
}

struct sleeper {
	int64_t sleep;
	int skip_notice;
};

static void *sleeper(void *arg)
{
	const struct sleeper *s = arg;
	sleep_ns(s->sleep);
	/* pthread_join carries a value: the completion notice is the 1 returned. */
	return (void *)(intptr_t)!s->skip_notice;
}

void bench_idle(const struct config *cfg, struct result *r)
{
	long n = cfg->procs;
	int64_t sleep = (int64_t)cfg->sleep_ms * 1000000;
	pthread_t *threads = xcalloc(n, sizeof *threads);
	struct sleeper normal = {sleep, 0}, dropped = {sleep, 1};

	int64_t t0 = now_ns();
	for (long i = 0; i < n; i++)
		start_thread(&threads[i], sleeper, (cfg->drop_one && i == 0) ? &dropped : &normal, i);
	long notices = 0;
	for (long i = 0; i < n; i++) {
		void *notice;
		pthread_join(threads[i], &notice);
		notices += (long)(intptr_t)notice;
	}
	r->elapsed_ns = now_ns() - t0;

	if (r->elapsed_ns < sleep)
		fail("idle: all threads ended after %lld ns, before their sleep of %lld ns",
		     (long long)r->elapsed_ns, (long long)sleep);
	r->ops = n;
	r->ns_per_op = (double)(r->elapsed_ns - sleep) / n;
	r->received = notices;
	r->expected = n;
}
