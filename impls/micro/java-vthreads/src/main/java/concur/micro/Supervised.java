package concur.micro;

import static concur.micro.Main.fail;

import concur.micro.Msg.Done;
import concur.micro.Msg.Ping;
import concur.micro.Msg.Pong;
import concur.micro.Msg.Restarted;
import concur.micro.Msg.Signal;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.StructuredTaskScope;
import java.util.concurrent.StructuredTaskScope.FailedException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * supervised (spec/MICRO.md §4.7): the pairs of §4.5, each pair run as one
 * {@link StructuredTaskScope} by a supervising virtual thread, while main
 * interrupts processes at a set rate. StructuredTaskScope is a preview API in
 * JDK 25 (JEP 505): the build and the start command pass --enable-preview.
 */
final class Supervised {
    private Supervised() {}

    static final int A = 0, B = 1;

    /** Each pair's four counters in {@link Tree#counters}, at 4 × pair + these. */
    static final int PINGS_SENT = 0, PINGS_RECEIVED = 1, PONGS_SENT = 2, PONGS_RECEIVED = 3;

    /** A counted kill: its number, the role it ended, and the killer's clock just before it. */
    record Kill(int index, int role, long at) {}

    /**
     * One life of a pair: two fresh mailboxes, the two processes once they run,
     * and the one kill that ends it. A new generation is a new object, so no
     * message of the old pair can reach the new one.
     */
    static final class Generation {
        final int pair;
        final int number;
        /** The kill that ended the previous generation; null for the first. */
        final Kill replacing;
        final Mailbox<Msg> toA = new Mailbox<>();
        final Mailbox<Msg> toB = new Mailbox<>();
        private final AtomicReferenceArray<Thread> processes = new AtomicReferenceArray<>(2);
        private final AtomicReference<Kill> kill = new AtomicReference<>();

        Generation(int pair, int number, Kill replacing) {
            this.pair = pair;
            this.number = number;
            this.replacing = replacing;
        }

        /** The process holding {@code role}, or null before it has run. */
        Thread process(int role) {
            return processes.get(role);
        }
    }

    /** The supervision tree: P supervisors, each pair's current generation and its counters, main's mailbox. */
    static final class Tree {
        final int pairs;
        final Mailbox<Msg> main = new Mailbox<>();
        /** Written only by each pair's processes, so they outlive every generation (§4.7). */
        final AtomicLongArray counters;
        /** Polled by every A once per round trip, whatever its generation: the stop of pairs (§4.5). */
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReferenceArray<Generation> current;
        final Thread[] supervisors;
        private final boolean dropOne;

        Tree(int pairs, boolean dropOne) {
            this.pairs = pairs;
            this.dropOne = dropOne;
            counters = new AtomicLongArray(4 * pairs);
            current = new AtomicReferenceArray<>(pairs);
            supervisors = new Thread[pairs];
        }

        void start() {
            for (int i = 0; i < pairs; i++) {
                int pair = i;
                supervisors[i] = Thread.ofVirtual().name("supervisor " + i).start(() -> supervise(pair));
            }
        }

        long counter(int pair, int which) {
            return counters.get(4 * pair + which);
        }

        /**
         * The supervisor of one pair: both processes forked into one scope,
         * whose default joiner cancels the scope when either fails, which
         * interrupts the other; join returns when both have ended. A killed
         * pair is started again in a new scope, two new processes; a pair
         * that saw the stop with no kill pending ends for good, and the
         * supervisor tells main. No restart limit: the loop is hand-written
         * (a scope has no restart of its own), and the watchdog bounds the run.
         */
        private void supervise(int pair) {
            Kill replacing = null;
            for (int number = 0; ; number++) {
                var gen = new Generation(pair, number, replacing);
                current.set(pair, gen);
                long roundTrips = -1;
                try (var scope = StructuredTaskScope.<Long>open()) {
                    var a = scope.fork(() -> initiate(gen));
                    var b = scope.fork(() -> answer(gen));
                    scope.join();
                    roundTrips = a.get();
                    if (roundTrips != b.get()) {
                        fail("supervised: pair " + pair + " A made " + roundTrips + " round trips but its B received "
                                + b.get() + " pings");
                    }
                } catch (FailedException e) {
                    if (!(e.getCause() instanceof InterruptedException) || gen.kill.get() == null) {
                        fail("supervised: pair " + pair + " failed without a kill: " + e.getCause());
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException("a supervisor was interrupted", e);
                }
                // A kill that came as A saw the stop still gets its replacement.
                replacing = gen.kill.get();
                if (replacing == null) {
                    main.send(new Done(pair, roundTrips));
                    return;
                }
            }
        }

        /**
         * Interrupts the process holding {@code role} in {@code pair}: its
         * blocking take throws, uncaught, and the scope ends the pair. Skipped
         * (false) while the pair is being restarted: either process not yet
         * running, or this generation already killed.
         */
        boolean kill(int pair, int role, int index) {
            Generation gen = current.get(pair);
            Thread victim = gen.process(role);
            if (victim == null || gen.process(1 - role) == null) {
                return false;
            }
            long at = System.nanoTime();
            if (!gen.kill.compareAndSet(null, new Kill(index, role, at))) {
                return false;
            }
            victim.interrupt();
            return true;
        }

        /**
         * A process's first clock read; a replacement reports its restart
         * latency to main, and whether the stop was already set then (a late
         * restart, §4.7).
         */
        private void started(Generation gen, int role) {
            long now = System.nanoTime();
            Kill kill = gen.replacing;
            if (kill != null && kill.role() == role) {
                main.send(new Restarted(kill.index(), now - kill.at(), stop.get()));
            }
            gen.processes.set(role, Thread.currentThread());
        }

        /** A: ping(1), ping(2), … and a look at the flag once per round trip. Returns its round trips. */
        private long initiate(Generation gen) throws InterruptedException {
            started(gen, A);
            if (gen.number == 0) {
                // The first generation starts on main's GO; a restarted A at once.
                main.send(Signal.READY);
                if (gen.toA.take() != Signal.GO) {
                    fail("supervised: pair " + gen.pair + " A expected GO");
                }
            }
            int slot = 4 * gen.pair;
            long k = 0;
            while (!stop.get()) {
                k++;
                counters.incrementAndGet(slot + PINGS_SENT);
                gen.toB.send(new Ping(k));
                if (!(gen.toA.take() instanceof Pong(long got)) || got != k) {
                    fail("supervised: pair " + gen.pair + " A expected pong " + k + ", got another message");
                }
                counters.incrementAndGet(slot + PONGS_RECEIVED);
            }
            gen.toB.send(Signal.STOP);
            return k;
        }

        /** B: checks each ping's number from 1 in every generation and answers it. Returns its pings. */
        private long answer(Generation gen) throws InterruptedException {
            started(gen, B);
            if (gen.number == 0) {
                main.send(Signal.READY);
                if (dropOne && gen.pair == 0) {
                    gen.toB.take();
                }
            }
            int slot = 4 * gen.pair;
            long pings = 0;
            while (true) {
                switch (gen.toB.take()) {
                    case Ping(long k) -> {
                        if (k != ++pings) {
                            fail("supervised: pair " + gen.pair + " B expected ping " + pings + ", got " + k);
                        }
                        counters.incrementAndGet(slot + PINGS_RECEIVED);
                        counters.incrementAndGet(slot + PONGS_SENT);
                        gen.toA.send(new Pong(k));
                    }
                    case Signal.STOP -> {
                        return pings;
                    }
                    case Msg other -> fail("supervised: pair " + gen.pair + " B expected a ping, got " + other);
                }
            }
        }
    }

    static Result supervised(Config cfg) {
        int p = cfg.pairs();
        var tree = new Tree(p, cfg.dropOne());
        tree.start();
        Processes.awaitReady(tree.main, 2 * p);

        long t0 = System.nanoTime();
        for (int i = 0; i < p; i++) {
            tree.current.get(i).toA.send(Signal.GO);
        }
        int kills = killer(cfg, tree, t0);
        // §4.7's order: the killer has stopped; stop every pair, then wait for
        // the replacements. A new virtual thread waits in the scheduler's
        // submission queue, which busy carriers do not look at until the pairs
        // stop (README), so a replacement may first run only after the stop:
        // its latency ends there, its A sees the stop and the pair ends.
        tree.stop.set(true);
        long[] restarts = new long[kills];
        int lateRestarts = 0;
        // t1: every kill's replacement has run and every pair has ended.
        for (int i = 0; i < kills + p; i++) {
            switch (tree.main.receive()) {
                case Restarted(int kill, long ns, boolean late) -> {
                    restarts[kill] = ns;
                    lateRestarts += late ? 1 : 0;
                }
                case Done pairEnded -> { }
                case Msg other -> fail("supervised: main expected a restart or a done message, got " + other);
            }
        }
        long elapsed = System.nanoTime() - t0;

        Processes.join(tree.supervisors);
        return result(cfg, elapsed, tree, kills, restarts, lateRestarts);
    }

    /**
     * Main is the killer: kill j is due at t0 + j / (K/100 × 2P) s while that
     * is before t0 + D, aimed at a random pair and role. Returns the kills
     * counted, at t0 + D.
     */
    private static int killer(Config cfg, Tree tree, long t0) {
        long end = t0 + (long) (cfg.seconds() * 1e9);
        double perSecond = cfg.killRate() / 100 * 2 * cfg.pairs();
        var random = new SplittableRandom(42);
        int kills = 0;
        for (long j = 1; perSecond > 0; j++) {
            long due = t0 + (long) (j * 1e9 / perSecond);
            if (due >= end) {
                break;
            }
            sleepUntil(due);
            int pair = random.nextInt(cfg.pairs());
            int role = random.nextInt(2);
            if (tree.kill(pair, role, kills)) {
                kills++;
            }
        }
        sleepUntil(end);
        return kills;
    }

    static Result result(Config cfg, long elapsed, Tree tree, int kills, long[] restarts, int lateRestarts) {
        long pingsSent = 0, pingsReceived = 0, pongsSent = 0, pongsReceived = 0;
        long slowest = Long.MAX_VALUE;
        for (int i = 0; i < tree.pairs; i++) {
            pingsSent += tree.counter(i, PINGS_SENT);
            pingsReceived += tree.counter(i, PINGS_RECEIVED);
            pongsSent += tree.counter(i, PONGS_SENT);
            pongsReceived += tree.counter(i, PONGS_RECEIVED);
            slowest = Math.min(slowest, tree.counter(i, PONGS_RECEIVED));
        }
        long messages = pingsReceived + pongsReceived;
        long sent = pingsSent + pongsSent;
        long lost = sent - messages;
        // A pair holds at most one message in flight, and a kill ends one pair.
        if (lost < 0 || lost > kills) {
            fail("supervised: " + lost + " messages lost with " + kills + " kills (expected 0 to " + kills + ")");
        }
        if (lateRestarts < 0 || lateRestarts > kills) {
            fail("supervised: " + lateRestarts + " late restarts with " + kills + " kills");
        }
        Arrays.sort(restarts);
        var params = Map.<String, Object>of("pairs", cfg.pairs(), "seconds", cfg.seconds(), "kill_rate", cfg.killRate());
        var result = new Result(cfg, params, pongsReceived, elapsed, messages, sent)
                .with("round_trips", pongsReceived)
                .with("messages", messages)
                .with("messages_per_s", messages / (elapsed / 1e9))
                .with("kills", kills)
                .with("lost", lost)
                .with("restart_p50_ns", nearestRank(restarts, 50))
                .with("restart_p99_ns", nearestRank(restarts, 99))
                .with("late_restarts", lateRestarts)
                .with("x_min_pair_round_trips", slowest);
        result.lost = lost;
        return result;
    }

    /** The percentile of sorted values by nearest rank; 0 when there are none. */
    static long nearestRank(long[] sorted, int percent) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }

    private static void sleepUntil(long deadline) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return;
        }
        try {
            Thread.sleep(Duration.ofNanos(left));
        } catch (InterruptedException e) {
            throw new IllegalStateException("main was interrupted", e);
        }
    }
}
