/* supervised (spec/MICRO.md §4.7): the pairs of §4.5 under supervision
 * while main kills threads at a set rate.
 *
 * C has no supervision library, so the supervision is hand-written: one
 * supervising thread per pair. Each child runs under a cleanup handler
 * (pthread_cleanup_push) that tells the supervisor it ended, however it
 * ended; the supervisor then cancels the partner, joins both, gives the
 * pair fresh mailboxes and creates both threads again. The kill is
 * pthread_cancel, deferred: acted on at the child's next pthread_cond_wait,
 * the only place where a child enables cancellation (mailbox.c). */
#include "mailbox.h"
#include "micro.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

enum role { A, B };

/* What every pair shares with main. */
struct tree {
	atomic_bool stop;              /* polled by every A once per round trip, all generations */
	struct counter ready, done;    /* the first generation's 2P readies; one stop per pair */
	struct counter replaced;       /* one post per kill, by the thread that replaces the killed one */
	int64_t *restart_ns;           /* per kill: t_kill to its replacement's first clock read */
	atomic_long late;              /* replacements whose first clock read came after the stop */
	long max_kills;
	int drop_one;
};

struct spair;

/* One role of one generation: rewritten by the supervisor for each
 * generation, once the previous one is joined. */
struct child {
	struct spair *pair;
	enum role role;
	bool first;      /* generation 0: posts ready; its A waits for go */
	long replaces;   /* the kill whose replacement this thread is, or -1 */
	int64_t t_kill;
	bool stopped;    /* ended by the stop, not by a cancel */
	pid_t tid;       /* the kernel's id: the tests' proof that a restart made new threads */
};

struct spair {
	long index;
	struct tree *tree;
	/* Written only by the pair's own threads, read by main after t1: they
	 * outlive every generation. */
	atomic_long pings_sent, pings_received, pongs_sent, pongs_received;

	/* The current generation: threads and fresh mailboxes. */
	pthread_t threads[2];
	struct mailbox a_inbox, b_inbox;
	struct child children[2];
	pthread_t supervisor;

	/* Between the children, the supervisor and the killer. */
	pthread_mutex_t mu;
	pthread_cond_t ended_cv;
	int ended;       /* bit per role of the current generation that ended */
	bool stopped;    /* one of them ended by the stop */
	bool running;    /* both created, none killed: a kill may aim here */
	bool killed;     /* a kill landed on the current generation: it is started
	                  * again even if it ended by the stop, so that every kill
	                  * has its replacement */
	long kills, restarts;
	long kill;       /* the last kill: its index, its role, its clock */
	enum role killed_role;
	int64_t t_kill;
};

/* The cleanup handler every child runs on its way out, by cancellation or
 * by the stop (pthread_cleanup_pop(1)). */
static void child_ended(void *arg)
{
	struct child *c = arg;
	struct spair *p = c->pair;
	pthread_mutex_lock(&p->mu);
	p->ended |= 1 << c->role;
	p->stopped |= c->stopped;
	p->running = false;
	pthread_cond_signal(&p->ended_cv);
	pthread_mutex_unlock(&p->mu);
}

static void count(atomic_long *counter)
{
	atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

/* A flag polled once per round trip, as in pairs; a new A starts again
 * from ping(1). */
static void initiator(struct child *c)
{
	struct spair *p = c->pair;
	if (c->first) {
		counter_post(&p->tree->ready);
		mailbox_recv_cancellable(&p->a_inbox); /* go */
	}
	for (long k = 1; !atomic_load_explicit(&p->tree->stop, memory_order_acquire); k++) {
		count(&p->pings_sent);
		mailbox_send_cancellable(&p->b_inbox, (struct msg){.k = k});
		long got = mailbox_recv_cancellable(&p->a_inbox).k;
		if (got != k)
			fail("supervised: pair %ld expected pong %ld, got %ld", p->index, k, got);
		count(&p->pongs_received);
	}
	mailbox_send_cancellable(&p->b_inbox, (struct msg){.k = MSG_STOP});
	/* The pair has stopped, unless a kill landed on this generation before
	 * the stop (a cancel not yet acted on): then its supervisor starts the
	 * replacement, whose A sees the stop at once and tells main instead.
	 * No kill comes after the stop, which this A has seen (acquire). */
	pthread_mutex_lock(&p->mu);
	bool last = !p->killed;
	pthread_mutex_unlock(&p->mu);
	if (last)
		counter_post(&p->tree->done);
}

static void echoer(struct child *c)
{
	struct spair *p = c->pair;
	if (c->first) {
		counter_post(&p->tree->ready);
		if (p->tree->drop_one && p->index == 0)
			mailbox_recv_cancellable(&p->b_inbox);
	}
	for (long k = 1;; k++) {
		struct msg m = mailbox_recv_cancellable(&p->b_inbox);
		if (m.k == MSG_STOP)
			break;
		if (m.k != k)
			fail("supervised: pair %ld expected ping %ld, got %ld", p->index, k, m.k);
		count(&p->pings_received);
		count(&p->pongs_sent);
		mailbox_send_cancellable(&p->a_inbox, m);
	}
}

/* Cancellation stays disabled outside the mailbox waits, so a kill never
 * lands in the middle of a counter, a lock or fail()'s stdio. */
static void *child_main(void *arg)
{
	struct child *c = arg;
	struct spair *p = c->pair;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	/* The stop first, then the clock: a replacement that sees the stop
	 * first ran after it. It then ends at once: an A finds the stop before
	 * its first ping, a B ends on its A's stop. */
	bool late = atomic_load_explicit(&p->tree->stop, memory_order_acquire);
	int64_t started = now_ns();
	if (c->replaces >= 0) {
		p->tree->restart_ns[c->replaces] = started - c->t_kill;
		if (late)
			atomic_fetch_add(&p->tree->late, 1);
		counter_post(&p->tree->replaced);
	}
	pthread_mutex_lock(&p->mu);
	c->tid = gettid();
	pthread_mutex_unlock(&p->mu);

	pthread_cleanup_push(child_ended, c);
	if (c->role == A)
		initiator(c);
	else
		echoer(c);
	c->stopped = true;
	pthread_cleanup_pop(1);
	return NULL;
}

/* Both threads of a generation, on fresh mailboxes: the old ones were
 * destroyed after both old threads were joined, so nothing of the old pair
 * can reach the new one. */
static void start_generation(struct spair *p, long generation)
{
	mailbox_init(&p->a_inbox);
	mailbox_init(&p->b_inbox);
	pthread_mutex_lock(&p->mu);
	p->ended = 0;
	p->stopped = false;
	p->killed = false;
	p->restarts = generation;
	for (enum role role = A; role <= B; role++)
		p->children[role] = (struct child){
			.pair = p, .role = role, .first = generation == 0,
			.replaces = generation > 0 && role == p->killed_role ? p->kill : -1,
			.t_kill = p->t_kill};
	pthread_mutex_unlock(&p->mu);
	start_thread(&p->threads[A], child_main, &p->children[A], 2 * p->index);
	start_thread(&p->threads[B], child_main, &p->children[B], 2 * p->index + 1);
	pthread_mutex_lock(&p->mu);
	p->running = !p->ended;
	pthread_mutex_unlock(&p->mu);
}

/* The pair as the unit of supervision (one_for_all): when one child ends,
 * cancel the other, join both, start both again; no restart limit. Ends
 * when a child ended by the stop (its partner ends by the stop too) and no
 * kill landed on the generation: a kill whose cancel was not yet acted on
 * when its thread saw the stop still gets its replacement, which sees the
 * stop and ends at once. */
static void *supervisor(void *arg)
{
	struct spair *p = arg;
	for (long generation = 0;; generation++) {
		start_generation(p, generation);
		pthread_mutex_lock(&p->mu);
		while (!p->ended)
			pthread_cond_wait(&p->ended_cv, &p->mu);
		enum role partner = p->ended & (1 << A) ? B : A;
		bool stopped = p->stopped;
		bool killed = p->killed; /* final: no kill once a child has ended */
		pthread_mutex_unlock(&p->mu);
		if (!stopped)
			pthread_cancel(p->threads[partner]);
		pthread_join(p->threads[A], NULL);
		pthread_join(p->threads[B], NULL);
		mailbox_destroy(&p->a_inbox);
		mailbox_destroy(&p->b_inbox);
		if (stopped && !killed)
			return NULL;
	}
}

/* The killer's one act: cancel the thread that holds `role` in pair p now,
 * unless the pair is being restarted (then the kill is skipped and not
 * counted). t_kill is read just before the cancel. Returns 1 if it killed.
 * Called with the pair's mutex held. */
static int kill_locked(struct spair *p, enum role role, long kill)
{
	if (!p->running)
		return 0;
	p->running = false;
	p->killed = true;
	p->kill = kill;
	p->killed_role = role;
	p->kills++;
	p->t_kill = now_ns();
	pthread_cancel(p->threads[role]);
	return 1;
}

static int kill_one(struct spair *p, enum role role, long kill)
{
	pthread_mutex_lock(&p->mu);
	int killed = kill_locked(p, role, kill);
	pthread_mutex_unlock(&p->mu);
	return killed;
}

static void tree_init(struct tree *t, long max_kills, int drop_one)
{
	*t = (struct tree){.max_kills = max_kills, .drop_one = drop_one};
	atomic_init(&t->stop, false);
	atomic_init(&t->late, 0);
	counter_init(&t->ready);
	counter_init(&t->done);
	counter_init(&t->replaced);
	t->restart_ns = calloc((size_t)max_kills + 1, sizeof *t->restart_ns);
	if (!t->restart_ns)
		fail("supervised: out of memory for %ld kills", max_kills);
}

/* Starts every pair's supervisor and waits until the first generation's
 * 2P threads are ready. */
static struct spair *tree_start(struct tree *t, long n)
{
	struct spair *pairs = calloc((size_t)n, sizeof *pairs);
	if (!pairs)
		fail("supervised: out of memory");
	for (long i = 0; i < n; i++) {
		struct spair *p = &pairs[i];
		p->index = i;
		p->tree = t;
		pthread_mutex_init(&p->mu, NULL);
		pthread_cond_init(&p->ended_cv, NULL);
		start_thread(&p->supervisor, supervisor, p, 2 * n + i);
	}
	for (long got = 0; got < 2 * n; got += counter_take(&t->ready))
		;
	return pairs;
}

/* splitmix64, seeded with a constant: the same kills in every run. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
	return z ^ (z >> 31);
}

static long uniform(uint64_t *state, long n)
{
	return (long)((double)(next_random(state) >> 11) * 0x1.0p-53 * (double)n);
}

static int compare_ns(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* Nearest rank: the smallest value with at least pct% of them at or below it. */
static int64_t percentile(const int64_t *sorted, long n, long pct)
{
	if (n == 0)
		return 0;
	long rank = (pct * n + 99) / 100;
	return sorted[rank < 1 ? 0 : rank - 1];
}

void bench_supervised(const struct config *cfg, struct result *r)
{
	long n = cfg->pairs;
	double per_s = cfg->kill_rate / 100 * 2 * n; /* kills due per second */
	long max_kills = per_s > 0 ? (long)(cfg->seconds * per_s) + 1 : 0;
	struct tree t;
	tree_init(&t, max_kills, cfg->drop_one);
	struct spair *pairs = tree_start(&t, n);

	int64_t t0 = now_ns();
	int64_t end = t0 + (int64_t)(cfg->seconds * 1e9);
	for (long i = 0; i < n; i++)
		mailbox_send(&pairs[i].a_inbox, (struct msg){.k = MSG_GO});
	/* Main is the killer: kill j is due at t0 + j / per_s, before t0 + D. */
	uint64_t seed = 2018;
	long kills = 0;
	for (long j = 1; per_s > 0; j++) {
		int64_t due = t0 + (int64_t)((double)j / per_s * 1e9);
		if (due >= end || kills >= max_kills)
			break;
		int64_t now = now_ns();
		if (due > now)
			sleep_ns(due - now);
		struct spair *p = &pairs[uniform(&seed, n)];
		enum role role = (enum role)uniform(&seed, 2);
		kills += kill_one(p, role, kills);
	}
	int64_t now = now_ns();
	if (end > now)
		sleep_ns(end - now);
	/* The killer has stopped (main is the killer); stop every pair, then
	 * t1 once every pair has stopped and every kill's replacement has run.
	 * Stopping first: a replacement may be waiting behind the busy pairs. */
	atomic_store(&t.stop, true);
	for (long got = 0; got < n; got += counter_take(&t.done))
		;
	for (long got = 0; got < kills; got += counter_take(&t.replaced))
		;
	r->elapsed_ns = now_ns() - t0;

	for (long i = 0; i < n; i++)
		pthread_join(pairs[i].supervisor, NULL);
	for (long i = 0; i < n; i++) {
		struct spair *p = &pairs[i];
		long sent = p->pings_sent + p->pongs_sent;
		long received = p->pings_received + p->pongs_received;
		/* One message in flight per pair, and a kill ends its pair. */
		if (received > sent || sent - received > p->kills)
			fail("supervised: pair %ld sent %ld messages and received %ld in %ld kills",
			     i, sent, received, p->kills);
		r->round_trips += p->pongs_received;
		r->received += received;
		r->expected += sent;
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->ended_cv);
	}
	r->lost = r->expected - r->received;
	r->kills = kills;
	r->late_restarts = atomic_load(&t.late);
	if (r->lost > kills)
		fail("supervised: lost %ld messages in %ld kills", r->lost, kills);
	qsort(t.restart_ns, (size_t)kills, sizeof *t.restart_ns, compare_ns);
	r->restart_p50_ns = percentile(t.restart_ns, kills, 50);
	r->restart_p99_ns = percentile(t.restart_ns, kills, 99);
	r->ops = r->round_trips;
	free(pairs);
	free(t.restart_ns);
}
