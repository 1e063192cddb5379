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
