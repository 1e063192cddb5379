package concur.micro;

import java.util.concurrent.LinkedTransferQueue;

/**
 * A process's mailbox: an unbounded {@link LinkedTransferQueue}, one per
 * receiving process.
 *
 * <p>Unbounded, because a send must never wait for the receiver: pingping's
 * two processes both send before they receive, and main collects a million
 * acks. A {@code SynchronousQueue} is a rendezvous, not a mailbox: pingping
 * would deadlock on it. Among the unbounded blocking queues of
 * java.util.concurrent, LinkedTransferQueue is lock-free: an empty mailbox is
 * one small object, and a receiver parks by itself (unmounting its virtual
 * thread) instead of through a lock and a condition. LinkedBlockingQueue, the
 * other candidate, carries two locks and two conditions per mailbox and was
 * both larger and slower here (README). Subclassing rather than wrapping costs
 * no extra object per process.
 */
final class Mailbox<T> extends LinkedTransferQueue<T> {

    void send(T message) {
        add(message);
    }

    /**
     * Waits for the next message. Only supervised interrupts processes, and its
     * processes call {@code take()} itself, whose InterruptedException kills
     * them; anywhere else an interrupt is a bug.
     */
    T receive() {
        try {
            return take();
        } catch (InterruptedException e) {
            throw new IllegalStateException("a process was interrupted", e);
        }
    }
}
