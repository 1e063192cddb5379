#include "mailbox.h"

/* One condition variable serves both sides: a mailbox has a single owner
 * receiving and, in every benchmark, a single sender, so at most one thread
 * waits on it at a time. */

void mailbox_init(struct mailbox *m)
{
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->changed, NULL);
	m->full = 0;
}

void mailbox_destroy(struct mailbox *m)
{
	pthread_cond_destroy(&m->changed);
	pthread_mutex_destroy(&m->mu);
}

void mailbox_send(struct mailbox *m, struct msg msg)
{
	pthread_mutex_lock(&m->mu);
	while (m->full)
		pthread_cond_wait(&m->changed, &m->mu);
	m->slot = msg;
	m->full = 1;
	pthread_cond_signal(&m->changed);
	pthread_mutex_unlock(&m->mu);
}

struct msg mailbox_recv(struct mailbox *m)
{
	pthread_mutex_lock(&m->mu);
	while (!m->full)
		pthread_cond_wait(&m->changed, &m->mu);
	struct msg msg = m->slot;
	m->full = 0;
	pthread_cond_signal(&m->changed);
	pthread_mutex_unlock(&m->mu);
	return msg;
}

/* supervised's children run with cancellation disabled, so that a
 * pthread_cancel never lands in stdio or while a lock is held; a wait is
 * the one place where it is acted on (pthread_cond_wait is a cancellation
 * point). A cancelled pthread_cond_wait re-acquires the mutex before the
 * thread's cleanup handlers run: the handler pushed here unlocks it, and
 * pthread_cleanup_pop(1) is the unlock of the normal way out. */
static void unlock_mutex(void *mu)
{
	pthread_mutex_unlock(mu);
}

static void wait_cancellable(struct mailbox *m)
{
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	pthread_cond_wait(&m->changed, &m->mu);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
}

void mailbox_send_cancellable(struct mailbox *m, struct msg msg)
{
	pthread_mutex_lock(&m->mu);
	pthread_cleanup_push(unlock_mutex, &m->mu);
	while (m->full)
		wait_cancellable(m);
	m->slot = msg;
	m->full = 1;
	pthread_cond_signal(&m->changed);
	pthread_cleanup_pop(1);
}

struct msg mailbox_recv_cancellable(struct mailbox *m)
{
	struct msg msg;
	pthread_mutex_lock(&m->mu);
	pthread_cleanup_push(unlock_mutex, &m->mu);
	while (!m->full)
		wait_cancellable(m);
	msg = m->slot;
	m->full = 0;
	pthread_cond_signal(&m->changed);
	pthread_cleanup_pop(1);
	return msg;
}

void counter_init(struct counter *c)
{
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->posted, NULL);
	c->count = 0;
}

void counter_post(struct counter *c)
{
	pthread_mutex_lock(&c->mu);
	c->count++;
	pthread_cond_signal(&c->posted);
	pthread_mutex_unlock(&c->mu);
}

long counter_take(struct counter *c)
{
	pthread_mutex_lock(&c->mu);
	while (c->count == 0)
		pthread_cond_wait(&c->posted, &c->mu);
	long n = c->count;
	c->count = 0;
	pthread_mutex_unlock(&c->mu);
	return n;
}
