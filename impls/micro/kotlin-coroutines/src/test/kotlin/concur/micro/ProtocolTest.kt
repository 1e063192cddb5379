package concur.micro

import com.fasterxml.jackson.databind.ObjectMapper
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotSame
import kotlin.test.assertNull
import kotlin.test.assertSame
import kotlin.test.assertTrue

/**
 * The protocol rules of spec/MICRO.md that a run from outside cannot force:
 * §4.1's start, §4.5's empty run, §4.7's restart of a whole pair.
 */
class ProtocolTest {

    /**
     * Regression for "B expected GO, got Parcel": each side of pingping gets
     * its own Go, and A's message 1 may reach B before B's Go does.
     */
    @OptIn(ExperimentalCoroutinesApi::class)
    @Test
    fun pingpingSidesStartOnTheirOwnGoEvenAfterThePeersFirstParcel() {
        runBlocking(Dispatchers.Default) {
            withTimeout(10_000) {
                val cfg = Config("pingping", size = 100, reps = 50, cores = 1)
                val main = mailbox()
                val toA = mailbox()
                val toB = mailbox()
                val startA = mailbox()
                val startB = mailbox()
                launch { exchange("A", cfg, startA, toA, toB, main, dropOne = false) }
                launch { exchange("B", cfg, startB, toB, toA, main, dropOne = false) }
                main.awaitReady(2)

                startA.send(Msg.Go)
                while (toB.isEmpty) delay(1)
                assertNull(withTimeoutOrNull(100) { main.receive() }, "nothing may finish while B waits for its Go")
                assertFalse(toB.isEmpty, "B took a message before its own Go")

                startB.send(Msg.Go)
                assertEquals(50, main.awaitDone().count)
                assertEquals(50, main.awaitDone().count)
            }
        }
    }

    @Test
    fun pairsWithNoRoundTripPrintZerosAndNoError() {
        val cfg = Config("pairs", pairs = 2, seconds = 0.001, cores = 1)
        val line = ObjectMapper().readTree(pairsResult(cfg, 1_500_000, LongArray(2), LongArray(2)).toJson())
        for (field in listOf("ops", "round_trips", "messages", "min_pair_round_trips")) {
            assertEquals(0, line[field].asLong(), field)
        }
        assertEquals(0.0, line["ns_per_op"].asDouble())
        assertEquals(0.0, line["messages_per_s"].asDouble())
        assertEquals(line["checks"]["expected"], line["checks"]["received"])
        assertEquals(1_500_000, line["elapsed_ns"].asLong())
    }

    /**
     * §4.7: one role killed by hand ends its partner too, and the supervisor
     * starts both again as new processes, the new A from ping(1); a stopped
     * pair is not restarted. One thread, so nothing runs between two lines
     * without a suspension.
     */
    @Test
    fun aPairKilledByHandRestartsAsAWholePair() {
        runBlocking(processDispatcher(1)) {
            withTimeout(10_000) {
                val main = mailbox()
                val tree = Tree(1, main, dropOne = false)
                val firstA = mailbox()
                val supervisor = launch { tree.supervise(0, firstA) }
                main.awaitReady(2)
                val oldA = tree.holder(0)!!
                val oldB = tree.holder(1)!!
                firstA.send(Msg.Go)
                while (tree.counters[PONGS_RECEIVED] < 100) delay(1)

                assertTrue(tree.kill(1), "B runs, so the killer kills it")
                assertNull(tree.holder(1), "the killed role has no process until its replacement runs")
                assertFalse(tree.kill(1), "a kill aimed at a role being restarted is skipped")
                val restarted = main.receive()
                assertTrue(restarted is Msg.Restarted && restarted.latencyNs > 0 && !restarted.late, "$restarted")
                oldA.join()
                oldB.join()
                assertTrue(oldA.isCancelled, "B's end ended its partner A")
                assertTrue(oldB.isCancelled)
                val newA = tree.holder(0)!!
                val newB = tree.holder(1)!!
                assertNotSame(oldA, newA, "A is a new process")
                assertNotSame(oldB, newB, "B is a new process")
                assertTrue(newA.isActive && newB.isActive)

                // The new B checks every ping's number from 1 (a wrong one ends the program): the new A started from ping(1).
                val before = tree.counters[PONGS_RECEIVED]
                while (tree.counters[PONGS_RECEIVED] < before + 100) delay(1)
                tree.stop.set(true)
                supervisor.join()
                assertSame(newA, tree.holder(0), "a stopped pair is not started again")
                assertTrue(newA.isCompleted && !newA.isCancelled, "the new A stopped on the flag")
                val total = tree.counters[PONGS_RECEIVED]
                val lost = tree.counters[PINGS_SENT] + tree.counters[PONGS_SENT] - tree.counters[PINGS_RECEIVED] - total
                assertTrue(lost in 0..1, "lost $lost with one kill")
            }
        }
    }

    /**
     * §4.7's end: a replacement that first runs after the stop is reported
     * late and ends at once, and its supervisor does not start it again.
     */
    @Test
    fun aReplacementThatRunsAfterTheStopIsLateAndEndsAtOnce() {
        runBlocking(processDispatcher(1)) {
            withTimeout(10_000) {
                val main = mailbox()
                val tree = Tree(1, main, dropOne = false)
                val firstA = mailbox()
                val supervisor = launch { tree.supervise(0, firstA) }
                main.awaitReady(2)
                firstA.send(Msg.Go)
                while (tree.counters[PONGS_RECEIVED] < 10) delay(1)
                // Kill and stop with no suspension between: on one thread the replacement cannot run before the stop.
                assertTrue(tree.kill(0))
                tree.stop.set(true)
                supervisor.join()
                val restarted = main.receive()
                assertTrue(restarted is Msg.Restarted && restarted.late, "$restarted")
                assertTrue(main.isEmpty, "one report for one kill")
                val newA = tree.holder(0)!!
                assertTrue(newA.isCompleted && !newA.isCancelled, "the late A ended on the flag, not by a kill")
            }
        }
    }

    @Test
    fun restartLatencyPercentilesAreNearestRank() {
        val values = (1L..200L).toList()
        assertEquals(100, nearestRank(values, 50))
        assertEquals(198, nearestRank(values, 99))
        assertEquals(7, nearestRank(listOf(7L), 99))
        assertEquals(0, nearestRank(emptyList(), 50))
    }
}
