package concur.micro;

import static concur.micro.Main.fail;

import concur.micro.Msg.Done;
import concur.micro.Msg.Echoed;
import concur.micro.Msg.Ping;
import concur.micro.Msg.Pong;
import concur.micro.Msg.Signal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/** pairs (spec/MICRO.md §4.5): P pairs of virtual threads bouncing a number for D seconds. */
final class Pairs {
    private Pairs() {}

    static Result pairs(Config cfg) {
        int p = cfg.pairs();
        // Polled once per round trip: the JVM's plain cancellation, a flag
        // (Thread.interrupt would wake a thread mid round trip).
        var stop = new AtomicBoolean();
        var main = new Mailbox<Msg>();
        var starts = new ArrayList<Mailbox<Msg>>(p);
        var threads = new ArrayList<Thread>(2 * p);
        for (int i = 0; i < p; i++) {
            int pair = i;
            var toA = new Mailbox<Msg>();
            var toB = new Mailbox<Msg>();
            starts.add(toA);
            threads.add(Thread.ofVirtual().start(() -> initiate(pair, toA, toB, stop, main)));
            boolean dropOne = cfg.dropOne() && pair == 0;
            threads.add(Thread.ofVirtual().start(() ->
                    main.send(new Echoed(pair, Latency.pong("pairs: pair " + pair, toB, toA, main, dropOne)))));
        }
        Processes.awaitReady(main, 2 * p);

        long t0 = System.nanoTime();
        for (var toA : starts) {
            toA.send(Signal.GO);
        }
        sleep(Duration.ofNanos((long) (cfg.seconds() * 1e9)));
        stop.set(true);
        long[] roundTrips = new long[p];
        long[] pings = new long[p];
        for (int i = 0; i < 2 * p; i++) {
            switch (main.receive()) {
                case Done(int pair, long n) -> roundTrips[pair] = n;
                case Echoed(int pair, long n) -> pings[pair] = n;
                case Msg other -> fail("pairs: main expected a done message, got " + other);
            }
        }
        long elapsed = System.nanoTime() - t0;

        Processes.join(threads.toArray(Thread[]::new));
        return result(cfg, elapsed, roundTrips, pings);
    }

    /** A_i: ping, check the pong, and look at the flag once per round trip. */
    private static void initiate(int pair, Mailbox<Msg> in, Mailbox<Msg> toB, AtomicBoolean stop, Mailbox<Msg> main) {
        main.send(Signal.READY);
        Processes.expect(in, Signal.GO, "pairs: pair " + pair + " A");
        long k = 0;
        while (!stop.get()) {
            k++;
            toB.send(new Ping(k));
            if (!(in.receive() instanceof Pong(long got)) || got != k) {
                fail("pairs: pair " + pair + " expected pong " + k + ", got another message");
            }
        }
        toB.send(Signal.STOP);
        main.send(new Done(pair, k));
    }

    static Result result(Config cfg, long elapsed, long[] roundTrips, long[] pings) {
        long total = 0;
        long received = 0;
        long slowest = Long.MAX_VALUE;
        for (int i = 0; i < roundTrips.length; i++) {
            if (roundTrips[i] != pings[i]) {
                fail("pairs: pair " + i + " made " + roundTrips[i] + " round trips but its B received " + pings[i] + " pings");
            }
            total += roundTrips[i];
            received += roundTrips[i] + pings[i];
            slowest = Math.min(slowest, roundTrips[i]);
        }
        var params = Map.<String, Object>of("pairs", cfg.pairs(), "seconds", cfg.seconds());
        return new Result(cfg, params, total, elapsed, received, 2 * total)
                .with("round_trips", total)
                .with("messages", 2 * total)
                .with("messages_per_s", 2 * total / (elapsed / 1e9))
                .with("min_pair_round_trips", slowest);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            throw new IllegalStateException("main was interrupted", e);
        }
    }
}
