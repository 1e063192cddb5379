/* pingping and pingpong (spec/MICRO.md §4.1, §4.2): two threads, each
 * owning a one-slot mailbox. */
#include "mailbox.h"
#include "micro.h"

#include <stdlib.h>
#include <string.h>

struct party {
	const char *name;
	const struct config *cfg;
	struct mailbox inbox;
	struct mailbox *peer;
	/* go arrives on its own: the other process's first message may reach
	 * the inbox before main's go does (spec §4.1). */
	struct counter start;
	struct counter *ready, *done;
	int drop_one;
	long received;
};

static struct msg recv_checked_k(struct party *p, long k, const char *bench)
{
	struct msg m = mailbox_recv(&p->inbox);
	if (m.k != k)
		fail("%s: process %s expected message %ld, got %ld", bench, p->name, k, m.k);
	return m;
}

static void wait_for_go(struct party *p)
{
	counter_post(p->ready);
	counter_take(&p->start);
}

/* A fresh payload per message: malloc and memset; the receiver frees it.
 * Only the pointer passes through the mailbox. */
static void *exchanger(void *arg)
{
	struct party *p = arg;
	long size = p->cfg->size;
	wait_for_go(p);
	if (p->drop_one)
		free(mailbox_recv(&p->inbox).data);
	for (long k = 1; k <= p->cfg->reps; k++) {
		unsigned char fill = (unsigned char)(k % 251);
		unsigned char *data = malloc((size_t)size);
		if (!data)
			fail("pingping: out of memory");
		memset(data, fill, (size_t)size);
		mailbox_send(p->peer, (struct msg){.k = k, .len = (size_t)size, .data = data});

		struct msg m = recv_checked_k(p, k, "pingping");
		if ((long)m.len != size)
			fail("pingping: process %s: message %ld has %zu bytes, expected %ld", p->name, k, m.len, size);
		if (m.data[0] != fill || m.data[size - 1] != fill)
			fail("pingping: process %s: message %ld is not filled with %d", p->name, k, fill);
		free(m.data);
		p->received++;
	}
	counter_post(p->done);
	return NULL;
}

static void *pinger(void *arg)
{
	struct party *p = arg;
	wait_for_go(p);
	for (long k = 1; k <= p->cfg->reps; k++) {
		mailbox_send(p->peer, (struct msg){.k = k});
		recv_checked_k(p, k, "pingpong");
		p->received++;
	}
	counter_post(p->done);
	mailbox_send(p->peer, (struct msg){.k = MSG_STOP});
	return NULL;
}

static void *ponger(void *arg)
{
	struct party *p = arg;
	counter_post(p->ready);
	if (p->drop_one)
		mailbox_recv(&p->inbox);
	for (;;) {
		struct msg m = mailbox_recv(&p->inbox);
		if (m.k == MSG_STOP)
			break;
		if (m.k != p->received + 1)
			fail("pingpong: ponger expected ping %ld, got %ld", p->received + 1, m.k);
		p->received++;
		mailbox_send(p->peer, m);
	}
	return NULL;
}

/* Starts two threads, releases them with a go message each (only a, when
 * b needs none), and times until both posted done (pingping) or a did
 * (pingpong). */
static void run_two(struct party *a, struct party *b, void *(*fa)(void *), void *(*fb)(void *),
		    int dones, struct result *r)
{
	struct counter ready, done;
	counter_init(&ready);
	counter_init(&done);
	mailbox_init(&a->inbox);
	mailbox_init(&b->inbox);
	counter_init(&a->start);
	counter_init(&b->start);
	a->peer = &b->inbox;
	b->peer = &a->inbox;
	a->ready = b->ready = &ready;
	a->done = b->done = &done;
	pthread_t ta, tb;
	start_thread(&ta, fa, a, 0);
	start_thread(&tb, fb, b, 1);
	for (long n = 0; n < 2; n += counter_take(&ready))
		;

	int64_t t0 = now_ns();
	counter_post(&a->start);
	if (dones == 2)
		counter_post(&b->start);
	for (long n = 0; n < dones; n += counter_take(&done))
		;
	r->elapsed_ns = now_ns() - t0;

	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	r->ops = a->cfg->reps;
	r->received = a->received + b->received;
	r->expected = 2 * a->cfg->reps;
}

void bench_pingping(const struct config *cfg, struct result *r)
{
	struct party a = {.name = "A", .cfg = cfg}, b = {.name = "B", .cfg = cfg, .drop_one = cfg->drop_one};
	run_two(&a, &b, exchanger, exchanger, 2, r);
}

void bench_pingpong(const struct config *cfg, struct result *r)
{
	struct party p = {.name = "pinger", .cfg = cfg}, q = {.name = "ponger", .cfg = cfg, .drop_one = cfg->drop_one};
	run_two(&p, &q, pinger, ponger, 1, r);
}
