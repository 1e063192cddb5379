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
import kotlin.test.assertNull

/** The protocol rules of spec/MICRO.md that a run from outside cannot force: §4.1's start, §4.5's empty run. */
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
}
