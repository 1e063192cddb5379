package concur.micro;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import concur.micro.Msg.Done;
import concur.micro.Msg.Restarted;
import concur.micro.Msg.Signal;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The protocol rules of spec/MICRO.md that a run from outside cannot force:
 * §4.1's start, §4.5's empty run, §4.7's restart of a whole pair.
 */
class ProtocolTest {

    /**
     * Regression for "B expected GO, got Parcel": each side of pingping gets
     * its own GO, and A's message 1 may reach B before B's GO does.
     */
    @Test
    void pingpingSidesStartOnTheirOwnGoEvenAfterThePeersFirstParcel() throws Exception {
        var cfg = new Config("pingping", 100, 50, 1, 1, 1, 0, 0, 1, 10, false);
        var main = new Mailbox<Msg>();
        var toA = new Mailbox<Msg>();
        var toB = new Mailbox<Msg>();
        var startA = new Mailbox<Msg>();
        var startB = new Mailbox<Msg>();
        var a = Thread.ofVirtual().start(() -> Latency.exchange("A", cfg, startA, toA, toB, main, false));
        var b = Thread.ofVirtual().start(() -> Latency.exchange("B", cfg, startB, toB, toA, main, false));
        assertEquals(Signal.READY, main.take());
        assertEquals(Signal.READY, main.take());

        startA.send(Signal.GO);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (toB.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(1, toB.size(), "A sends its message 1 on its own GO");
        assertNull(main.poll(100, MILLISECONDS), "nothing may finish while B waits for its GO");
        assertEquals(1, toB.size(), "B took a message before its own GO");

        startB.send(Signal.GO);
        assertEquals(50, assertInstanceOf(Done.class, main.take()).count());
        assertEquals(50, assertInstanceOf(Done.class, main.take()).count());
        Processes.join(a, b);
    }

    @Test
    void pairsWithNoRoundTripPrintZerosAndNoError() throws Exception {
        var cfg = new Config("pairs", 1, 1, 1, 2, 0.001, 0, 0, 1, 10, false);
        var line = new ObjectMapper().readTree(Pairs.result(cfg, 1_500_000, new long[2], new long[2]).toJson());
        assertEquals(0, line.get("ops").asLong());
        assertEquals(0, line.get("round_trips").asLong());
        assertEquals(0, line.get("messages").asLong());
        assertEquals(0, line.get("min_pair_round_trips").asLong());
        assertTrue(line.get("ns_per_op").isNumber() && line.get("ns_per_op").asDouble() == 0, line.toString());
        assertEquals(0, line.get("messages_per_s").asDouble());
        assertEquals(line.get("checks").get("expected"), line.get("checks").get("received"));
        assertEquals(1_500_000, line.get("elapsed_ns").asLong());
    }

    /**
     * §4.7: one process of a pair killed by hand ends the pair; its supervisor
     * starts both again, new threads with new mailboxes, and the new pair
     * exchanges from ping(1) (the new B checks that its first ping is 1).
     */
    @Test
    void aPairKilledByHandIsRestartedAsAWholePair() throws Exception {
        var tree = new Supervised.Tree(1, false);
        tree.start();
        assertEquals(Signal.READY, tree.main.take());
        assertEquals(Signal.READY, tree.main.take());
        var first = tree.current.get(0);
        first.toA.send(Signal.GO);
        awaitTrue(() -> tree.counter(0, Supervised.PONGS_RECEIVED) >= 10, "the first pair exchanges");
        Thread oldA = first.process(Supervised.A);
        Thread oldB = first.process(Supervised.B);

        assertTrue(tree.kill(0, Supervised.B, 0));
        var restarted = assertInstanceOf(Restarted.class, tree.main.poll(5, SECONDS));
        assertEquals(0, restarted.kill());
        assertTrue(restarted.ns() > 0);
        assertFalse(restarted.afterStop());
        oldA.join(5000);
        oldB.join(5000);
        assertFalse(oldA.isAlive(), "the partner of the killed process was ended too");
        assertFalse(oldB.isAlive());

        var second = tree.current.get(0);
        assertNotSame(first, second);
        assertNotSame(first.toA, second.toA, "fresh mailboxes");
        assertNotSame(first.toB, second.toB);
        awaitTrue(() -> second.process(Supervised.A) != null && second.process(Supervised.B) != null, "both run");
        assertNotSame(oldA, second.process(Supervised.A), "a new A");
        assertNotSame(oldB, second.process(Supervised.B), "a new B");
        long before = tree.counter(0, Supervised.PONGS_RECEIVED);
        awaitTrue(() -> tree.counter(0, Supervised.PONGS_RECEIVED) >= before + 10, "the new pair exchanges");

        tree.stop.set(true);
        var done = assertInstanceOf(Done.class, tree.main.poll(5, SECONDS));
        assertTrue(done.count() < tree.counter(0, Supervised.PONGS_RECEIVED), "the new A counted from ping(1)");
        Processes.join(tree.supervisors);
        long sent = tree.counter(0, Supervised.PINGS_SENT) + tree.counter(0, Supervised.PONGS_SENT);
        long received = tree.counter(0, Supervised.PINGS_RECEIVED) + tree.counter(0, Supervised.PONGS_RECEIVED);
        assertTrue(sent - received <= 1, "one kill loses at most one message: " + (sent - received));
        assertNull(tree.main.poll(), "no further restart after the stop");
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(1);
        }
    }
}
