/* The protocol rules of spec/MICRO.md that a run from outside cannot force:
 * pingping's start (§4.1), the line of a pairs run with no round trip
 * (§4.5), supervised's restart of a whole pair after a kill by hand and a
 * replacement that first runs after the stop (§4.7). The program's own
 * files are included, so the test drives their static functions; micro.c's
 * main is renamed out of the way. Prints TAP lines, then for tests/run.sh
 * to parse the zero-round-trip line and the line of a slow pairs run
 * (6 messages in 9 s: a rate whose rounding concur's recomputation of it,
 * spec §7, would catch). */
#define main micro_main
#include "../micro.c"
#undef main
#include "../bench_latency.c"
#include "../bench_supervised.c"

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

static long round_trips_of(struct spair *p)
{
	return atomic_load(&p->pongs_received);
}

static void wait_for_round_trips(struct spair *p, long n)
{
	for (int ms = 0; ms < 5000 && round_trips_of(p) < n; ms++)
		sleep_ns(1000000);
}

/* The kernel ids of the pair's current threads, and its generation. */
static long generation_of(struct spair *p, pid_t tids[2])
{
	pthread_mutex_lock(&p->mu);
	tids[A] = p->children[A].tid;
	tids[B] = p->children[B].tid;
	long generation = p->restarts;
	pthread_mutex_unlock(&p->mu);
	return generation;
}

/* One pair, killed by hand in one role and then the other: each kill
 * restarts the whole pair as two new threads (new kernel ids), the
 * replacement's latency is recorded, the new pair exchanges again from
 * ping(1) (the echoer checks it), and a kill aimed at a pair being
 * restarted is skipped. */
static void a_kill_restarts_the_whole_pair(void)
{
	struct tree t;
	tree_init(&t, 2, 0);
	struct spair *p = tree_start(&t, 1);
	mailbox_send(&p->a_inbox, (struct msg){.k = MSG_GO});
	wait_for_round_trips(p, 100);
	for (long kill = 0; kill < 2; kill++) {
		enum role role = kill == 0 ? B : A;
		const char *name = role == A ? "A" : "B";
		char what[200];
		pid_t before[2], after[2];
		long generation = generation_of(p, before);
		/* Both kills under the pair's mutex, which the restart needs: the
		 * second finds the pair still being restarted, however the
		 * threads are scheduled (unlocked, a restart could complete in
		 * between on a busy machine and the second kill land). */
		pthread_mutex_lock(&p->mu);
		int killed = kill_locked(p, role, kill);
		int skipped = !kill_locked(p, role == A ? B : A, 2);
		pthread_mutex_unlock(&p->mu);
		check(killed, "supervised: a running pair's thread is cancelled");
		check(skipped, "supervised: a kill aimed at a pair being restarted is skipped");
		counter_take(&t.replaced);
		long at_restart = round_trips_of(p);
		wait_for_round_trips(p, at_restart + 100);
		snprintf(what, sizeof what, "supervised: after %s is killed the new pair exchanges again (%ld round trips before, %ld after)",
			 name, at_restart, round_trips_of(p));
		check(round_trips_of(p) >= at_restart + 100, what);
		long now = generation_of(p, after);
		snprintf(what, sizeof what, "supervised: killing %s restarts both: generation %ld -> %ld, A tid %d -> %d, B tid %d -> %d",
			 name, generation, now, before[A], after[A], before[B], after[B]);
		check(now == generation + 1 && after[A] != before[A] && after[B] != before[B], what);
		check(t.restart_ns[kill] > 0, "supervised: the replacement's restart latency is recorded");
	}
	atomic_store(&t.stop, true);
	counter_take(&t.done);
	pthread_join(p->supervisor, NULL);
	long sent = p->pings_sent + p->pongs_sent, received = p->pings_received + p->pongs_received;
	char what[200];
	snprintf(what, sizeof what, "supervised: 2 kills lose at most 2 messages (sent %ld, received %ld)", sent, received);
	check(received <= sent && sent - received <= 2, what);
	check(p->kills == 2, "supervised: the pair counts its 2 kills");
	free(p);
	free(t.restart_ns);
}

/* §4.7's end: the stop comes while a killed pair waits for its
 * replacement. Forced here by killing B and setting the stop while holding
 * the pair's mutex, which the killed thread's way out (and so the whole
 * restart) needs: the replacement can only first run after the stop. It
 * still runs and records its latency, counts as late, and ends at once;
 * the old A, which may see the stop before the kill's cancel lands, does
 * not report the pair stopped, the new A does, once; the supervisor does
 * not start the pair again after that. */
static void a_replacement_after_the_stop_is_late(void)
{
	struct tree t;
	tree_init(&t, 1, 0);
	struct spair *p = tree_start(&t, 1);
	mailbox_send(&p->a_inbox, (struct msg){.k = MSG_GO});
	wait_for_round_trips(p, 100);
	pthread_mutex_lock(&p->mu);
	int killed = kill_locked(p, B, 0);
	atomic_store(&t.stop, true);
	pthread_mutex_unlock(&p->mu);
	check(killed == 1, "supervised: B is cancelled just before the stop");
	counter_take(&t.replaced);
	pthread_join(p->supervisor, NULL);
	char what[200];
	snprintf(what, sizeof what, "supervised: the replacement that first ran after the stop is late (late_restarts %ld)",
		 atomic_load(&t.late));
	check(atomic_load(&t.late) == 1, what);
	check(t.restart_ns[0] > 0, "supervised: the late replacement's restart latency is recorded");
	snprintf(what, sizeof what, "supervised: the pair reports its stop once (%ld) and is started once after the kill (generation %ld)",
		 counted(&t.done), p->restarts);
	check(counted(&t.done) == 1 && p->restarts == 1, what);
	long sent = p->pings_sent + p->pongs_sent, received = p->pings_received + p->pongs_received;
	snprintf(what, sizeof what, "supervised: 1 kill then the stop lose at most 1 message (sent %ld, received %ld)", sent, received);
	check(received <= sent && sent - received <= 1, what);
	free(p);
	free(t.restart_ns);
}

int main(void)
{
	pthread_attr_init(&micro_thread_attr);
	sides_start_on_their_own_go();
	a_kill_restarts_the_whole_pair();
	a_replacement_after_the_stop_is_late();
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
