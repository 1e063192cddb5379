/* Mailboxes for OS threads: what BEAM processes and Go channels provide,
 * built from a pthread mutex and condition variables (the paper's explicit
 * concurrency model).
 *
 * A mailbox holds one message, like a Go channel of capacity 1: a sender
 * waits while it is full. One slot is enough for every benchmark (at most
 * one message waits per direction; spec §4.1) and keeps a dormant thread's
 * mailbox small. A counter is main's mailbox for messages that carry
 * nothing (ready, ack, done): posting never blocks, whatever the number of
 * threads. */
#ifndef MAILBOX_H
#define MAILBOX_H

#include <pthread.h>
#include <stddef.h>

struct msg {
	long k;              /* sequence number, or a control code below */
	size_t len;          /* payload bytes (pingping) */
	unsigned char *data; /* malloc'd payload, owned by the receiver */
};

enum { MSG_GO = -1, MSG_STOP = -2 };

struct mailbox {
	pthread_mutex_t mu;
	pthread_cond_t changed; /* filled or emptied; one waiter per side */
	int full;
	struct msg slot;
};

struct counter {
	pthread_mutex_t mu;
	pthread_cond_t posted;
	long count;
};

void mailbox_init(struct mailbox *m);
void mailbox_destroy(struct mailbox *m);
void mailbox_send(struct mailbox *m, struct msg msg);
struct msg mailbox_recv(struct mailbox *m);
/* The same for a thread that runs with cancellation disabled and may be
 * ended by pthread_cancel (supervised): cancellation is enabled only while
 * it waits, and a cancelled wait leaves the mutex unlocked. */
void mailbox_send_cancellable(struct mailbox *m, struct msg msg);
struct msg mailbox_recv_cancellable(struct mailbox *m);

void counter_init(struct counter *c);
void counter_post(struct counter *c);
/* Waits until at least one message was posted, takes them all, returns how many. */
long counter_take(struct counter *c);

#endif
