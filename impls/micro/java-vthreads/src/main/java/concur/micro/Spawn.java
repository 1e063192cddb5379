package concur.micro;

import static concur.micro.Main.fail;

import concur.micro.Msg.Signal;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;

/**
 * spawn, maxprocs and idle (spec/MICRO.md §4.3, §4.4, §4.6): many virtual
 * threads alive at once, each costing its Thread object, its continuation's
 * stack chunk on the heap and, for spawn, its mailbox.
 */
final class Spawn {
    private Spawn() {}

    static Result spawn(Config cfg) {
        int n = cfg.procs();
        var main = new Mailbox<Msg>();
        @SuppressWarnings("unchecked")
        Mailbox<Msg>[] mailboxes = new Mailbox[n];
        var threads = new Thread[n];
        var builder = Thread.ofVirtual();

        long t0 = System.nanoTime();
        int created = 0;
        try {
            for (; created < n; created++) {
                var mailbox = new Mailbox<Msg>();
                mailboxes[created] = mailbox;
                threads[created] = builder.start(() -> dormant(mailbox, main));
            }
        } catch (OutOfMemoryError e) {
            mailboxes = null;
            fail(cfg.bench() + ": could not create process " + (created + 1) + " of " + n + ": " + e);
        }
        if (cfg.dropOne()) {
            main.receive();
        }
        long received = 0;
        for (int i = 0; i < n; i++) {
            Processes.expect(main, Signal.ACK, "main");
            received++;
        }
        long elapsed = System.nanoTime() - t0;

        for (var mailbox : mailboxes) {
            mailbox.send(Signal.STOP);
        }
        for (int i = 0; i < n; i++) {
            Processes.expect(main, Signal.STOPPED, "main");
            received++;
        }
        Processes.join(threads);
        return new Result(cfg, Map.of("procs", n), n, elapsed, received, 2L * n)
                .with("procs", n)
                .with("ns_per_proc", (double) elapsed / n);
    }

    /** Acknowledges that it runs, then blocks until its stop message. */
    private static void dormant(Mailbox<Msg> mailbox, Mailbox<Msg> main) {
        main.send(Signal.ACK);
        Processes.expect(mailbox, Signal.STOP, "a dormant process");
        main.send(Signal.STOPPED);
    }

    static Result idle(Config cfg) {
        int n = cfg.procs();
        long sleepNs = cfg.sleepMs() * 1_000_000L;
        // Thread.join carries no value, so the completion notice is a counter.
        var notices = new LongAdder();

        long t0 = System.nanoTime();
        // close() at the end of the block joins every task: JEP 444's own idiom.
        try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < n; i++) {
                boolean noticeLost = cfg.dropOne() && i == 0;
                executor.execute(() -> {
                    sleep(cfg.sleepMs());
                    if (!noticeLost) {
                        notices.increment();
                    }
                });
            }
        }
        long elapsed = System.nanoTime() - t0;

        if (elapsed < sleepNs) {
            fail("idle: all tasks ended after " + elapsed + " ns, before their sleep of " + sleepNs + " ns");
        }
        var params = Map.<String, Object>of("procs", n, "sleep_ms", cfg.sleepMs());
        var result = new Result(cfg, params, n, elapsed, notices.sum(), n)
                .with("tasks", n)
                .with("sleep_ns", sleepNs);
        result.nsPerOp = (double) (elapsed - sleepNs) / n;
        return result;
    }

    /** Thread.sleep on a virtual thread parks it on a timer and frees its carrier. */
    private static void sleep(int ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new IllegalStateException("an idle task was interrupted", e);
        }
    }
}
