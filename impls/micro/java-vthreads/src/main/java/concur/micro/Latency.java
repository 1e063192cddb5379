package concur.micro;

import static concur.micro.Main.fail;

import concur.micro.Msg.Done;
import concur.micro.Msg.Parcel;
import concur.micro.Msg.Ping;
import concur.micro.Msg.Pong;
import concur.micro.Msg.Signal;
import java.util.Arrays;
import java.util.Map;

/** pingping and pingpong (spec/MICRO.md §4.1, §4.2): two virtual threads, each owning its mailbox. */
final class Latency {
    private Latency() {}

    static Result pingping(Config cfg) {
        var main = new Mailbox<Msg>();
        var toA = new Mailbox<Msg>();
        var toB = new Mailbox<Msg>();
        // Each side's GO comes alone on a start queue of its own (§4.1): in
        // the parcel mailbox it could arrive after the other side's first
        // parcel, which is sent as soon as that side has its own GO.
        var startA = new Mailbox<Msg>();
        var startB = new Mailbox<Msg>();
        var a = Thread.ofVirtual().name("A").start(() -> exchange("A", cfg, startA, toA, toB, main, false));
        var b = Thread.ofVirtual().name("B").start(() -> exchange("B", cfg, startB, toB, toA, main, cfg.dropOne()));
        Processes.awaitReady(main, 2);

        long t0 = System.nanoTime();
        startA.send(Signal.GO);
        startB.send(Signal.GO);
        long received = Processes.awaitDone(main).count() + Processes.awaitDone(main).count();
        long elapsed = System.nanoTime() - t0;

        Processes.join(a, b);
        var params = Map.<String, Object>of("size", cfg.size(), "reps", cfg.reps());
        return new Result(cfg, params, cfg.reps(), elapsed, received, 2L * cfg.reps());
    }

    /** One side of pingping: from its own GO on, send message k, then receive the other's message k. */
    static void exchange(String name, Config cfg, Mailbox<Msg> start, Mailbox<Msg> in,
                         Mailbox<Msg> out, Mailbox<Msg> main, boolean dropOne) {
        main.send(Signal.READY);
        Processes.expect(start, Signal.GO, "pingping: process " + name);
        if (dropOne) {
            in.receive();
        }
        int size = cfg.size();
        long received = 0;
        for (int k = 1; k <= cfg.reps(); k++) {
            out.send(new Parcel(k, payload(size, k)));
            check(name, in.receive(), k, size);
            received++;
        }
        main.send(new Done(-1, received));
    }

    /** A fresh payload, every byte k mod 251 (the JVM zeroes it first; no API avoids that). */
    private static byte[] payload(int size, int k) {
        var data = new byte[size];
        Arrays.fill(data, (byte) (k % 251));
        return data;
    }

    private static void check(String name, Msg message, int k, int size) {
        byte fill = (byte) (k % 251);
        if (!(message instanceof Parcel(int got, byte[] data))) {
            fail("pingping: process " + name + " expected message " + k + ", got " + message);
        } else if (got != k) {
            fail("pingping: process " + name + " expected message " + k + ", got " + got);
        } else if (data.length != size) {
            fail("pingping: process " + name + ": message " + k + " has " + data.length + " bytes, expected " + size);
        } else if (data[0] != fill || data[size - 1] != fill) {
            fail("pingping: process " + name + ": message " + k + " is not filled with " + fill);
        }
    }

    static Result pingpong(Config cfg) {
        var main = new Mailbox<Msg>();
        var toPinger = new Mailbox<Msg>();
        var toPonger = new Mailbox<Msg>();
        var pinger = Thread.ofVirtual().name("pinger").start(() -> ping(cfg.reps(), toPinger, toPonger, main));
        var ponger = Thread.ofVirtual().name("ponger").start(() ->
                main.send(new Done(-1, pong("pingpong: ponger", toPonger, toPinger, main, cfg.dropOne()))));
        Processes.awaitReady(main, 2);

        long t0 = System.nanoTime();
        toPinger.send(Signal.GO);
        long pongs = Processes.awaitDone(main).count();
        long elapsed = System.nanoTime() - t0;

        toPonger.send(Signal.STOP);
        long pings = Processes.awaitDone(main).count();
        Processes.join(pinger, ponger);
        var params = Map.<String, Object>of("reps", cfg.reps());
        return new Result(cfg, params, cfg.reps(), elapsed, pongs + pings, 2L * cfg.reps());
    }

    private static void ping(int reps, Mailbox<Msg> in, Mailbox<Msg> ponger, Mailbox<Msg> main) {
        main.send(Signal.READY);
        Processes.expect(in, Signal.GO, "pinger");
        long received = 0;
        for (int k = 1; k <= reps; k++) {
            ponger.send(new Ping(k));
            if (!(in.receive() instanceof Pong(long got)) || got != k) {
                fail("pingpong: pinger expected pong " + k + ", got another message");
            }
            received++;
        }
        main.send(new Done(-1, received));
    }

    /** Answers pings until STOP and returns their count; pairs' B processes do the same. */
    static long pong(String name, Mailbox<Msg> in, Mailbox<Msg> pinger, Mailbox<Msg> main, boolean dropOne) {
        main.send(Signal.READY);
        if (dropOne) {
            in.receive();
        }
        long received = 0;
        while (true) {
            switch (in.receive()) {
                case Ping(long k) -> {
                    if (k != ++received) {
                        fail(name + " expected ping " + received + ", got " + k);
                    }
                    pinger.send(new Pong(k));
                }
                case Signal.STOP -> {
                    return received;
                }
                case Msg other -> fail(name + " expected a ping, got " + other);
            }
        }
    }
}
