package concur.jetty;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * spec/POLICIES.md §2: at most {@code CONCUR_CORES} bcrypt hashes in
 * progress at once. A hash is pure CPU; more of them at once than cores only
 * time-slice the same cores and lengthen every hash. The others wait here in
 * arrival order (a fair {@link Semaphore}): a pool thread or a virtual thread
 * parks, and a virtual thread's carrier is free meanwhile. Both Jetty entries
 * share this one mechanism, since {@link Service} is shared.
 */
final class HashSlots {

    private final Semaphore slots;
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();

    HashSlots(int cores) {
        slots = new Semaphore(cores, true);
    }

    /** Runs {@code hash} once a slot is free. */
    <T> T run(Supplier<T> hash) {
        slots.acquireUninterruptibly();
        try {
            peak.accumulateAndGet(running.incrementAndGet(), Math::max);
            return hash.get();
        } finally {
            running.decrementAndGet();
            slots.release();
        }
    }

    /** The most hashes that were in progress at once so far (for the tests). */
    int peak() {
        return peak.get();
    }
}
