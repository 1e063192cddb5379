/* The protocol rules of spec/MICRO.md that a run from outside cannot force:
 * pingping's start (§4.1) and the line of a pairs run with no round trip
 * (§4.5). The program's own files are included, so the test drives their
 * static functions; micro.c's main is renamed out of the way. Prints TAP
 * lines, then for tests/run.sh to parse the zero-round-trip line and the
 * line of a slow pairs run (6 messages in 9 s: a rate whose rounding
 * concur's recomputation of it, spec §7, would catch). */
#define main micro_main
#include "../micro.c"
#undef main
#include "../bench_latency.c"

#include <stdio.h>

static int failures;

static void check(int ok, const char *what)
{
	fprintf(stderr, "%s - %s\n", ok ? "ok" : "not ok", what);
	failures += !ok;
}

static int mailbox_full(struct mailbox *m)
{
	pthread_mutex_lock(&m->mu);
	int full = m->full;
	pthread_mutex_unlock(&m->mu);
	return full;
}

static long counted(struct counter *c)
{
	pthread_mutex_lock(&c->mu);
	long n = c->count;
	pthread_mutex_unlock(&c->mu);
	return n;
}

/* Regression for "B expected GO, got Parcel": each side starts on its own
 * go, and A's message 1 may reach B's mailbox before B's go. */
static void sides_start_on_their_own_go(void)
{
	struct config cfg = {.bench = PINGPING, .bench_name = "pingping", .size = 100, .reps = 50};
	struct party a = {.name = "A", .cfg = &cfg}, b = {.name = "B", .cfg = &cfg};
	struct counter ready, done;
	counter_init(&ready);
	counter_init(&done);
	mailbox_init(&a.inbox);
	mailbox_init(&b.inbox);
	counter_init(&a.start);
	counter_init(&b.start);
	a.peer = &b.inbox;
	b.peer = &a.inbox;
	a.ready = b.ready = &ready;
	a.done = b.done = &done;
	pthread_t ta, tb;
	start_thread(&ta, exchanger, &a, 0);
	start_thread(&tb, exchanger, &b, 1);
	for (long n = 0; n < 2; n += counter_take(&ready))
		;

	counter_post(&a.start);
	for (int ms = 0; ms < 5000 && !mailbox_full(&b.inbox); ms++)
		sleep_ns(1000000);
	check(mailbox_full(&b.inbox), "pingping: A sends its message 1 on its own go");
	sleep_ns(100000000);
	check(counted(&done) == 0, "pingping: nothing finishes while B waits for its go");
	check(mailbox_full(&b.inbox), "pingping: B takes no message before its own go");

	counter_post(&b.start);
	for (long n = 0; n < 2; n += counter_take(&done))
		;
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	check(a.received == 50 && b.received == 50, "pingping: both sides receive all 50 messages");
}

int main(void)
{
	pthread_attr_init(&micro_thread_attr);
	sides_start_on_their_own_go();
	if (failures)
		return 1;
	/* The line of a pairs run in which no pair completed a round trip. */
	struct config cfg = {.bench = PAIRS, .bench_name = "pairs", .pairs = 2, .seconds = 0.001};
	struct result r = {.elapsed_ns = 1500000, .ns_per_op = -1};
	report(&cfg, 1, &r);
	struct result slow = {.ops = 3, .elapsed_ns = 9000000000, .ns_per_op = -1, .received = 6, .expected = 6,
	                      .round_trips = 3, .min_pair_round_trips = 1};
	report(&cfg, 1, &slow);
	return 0;
}
