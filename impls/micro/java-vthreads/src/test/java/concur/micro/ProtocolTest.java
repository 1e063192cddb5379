package concur.micro;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import concur.micro.Msg.Done;
import concur.micro.Msg.Signal;
import org.junit.jupiter.api.Test;

/** The protocol rules of spec/MICRO.md that a run from outside cannot force: §4.1's start, §4.5's empty run. */
class ProtocolTest {

    /**
     * Regression for "B expected GO, got Parcel": each side of pingping gets
     * its own GO, and A's message 1 may reach B before B's GO does.
     */
    @Test
    void pingpingSidesStartOnTheirOwnGoEvenAfterThePeersFirstParcel() throws Exception {
        var cfg = new Config("pingping", 100, 50, 1, 1, 1, 0, 1, 10, false);
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
        var cfg = new Config("pairs", 1, 1, 1, 2, 0.001, 0, 1, 10, false);
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
}
