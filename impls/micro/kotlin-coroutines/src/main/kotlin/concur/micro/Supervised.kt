package concur.micro

import kotlinx.coroutines.Job
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.job
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLongArray
import java.util.concurrent.atomic.AtomicReferenceArray
import kotlin.random.Random

/**
 * supervised (spec/MICRO.md §4.7): the pairs of §4.5, each pair supervised as
 * a unit by a coroutine that runs both of its processes in one
 * `coroutineScope` and starts them again when one is killed, while a killer
 * cancels processes at a set rate.
 */

suspend fun supervised(cfg: Config): Result {
    val p = cfg.pairs
    val main = mailbox()
    val tree = Tree(p, main, cfg.dropOne)
    var elapsed = 0L
    var kills = 0
    val latencies = ArrayList<Long>()
    var late = 0
    coroutineScope {
        // Main sends Go to each first A; a restarted A needs none.
        val firstInboxes = List(p) { mailbox() }
        val supervisors = List(p) { pair -> launch { tree.supervise(pair, firstInboxes[pair]) } }
        main.awaitReady(2 * p)

        val t0 = System.nanoTime()
        for (toA in firstInboxes) toA.send(Msg.Go)
        val killer = async { killAtRate(tree, cfg, t0) }
        delay((cfg.seconds * 1000).toLong())
        kills = killer.await() // its schedule ends at t0 + D
        // The pairs stop before main waits for the replacements (§4.7): a
        // replacement that runs only after the stop is counted late.
        tree.stop.set(true)
        // A supervisor returns once its pair has stopped and owes no killed
        // process its replacement, so every pair has stopped and every kill's
        // replacement has run, its report already in main's mailbox.
        supervisors.joinAll()
        elapsed = System.nanoTime() - t0
        repeat(kills) {
            val message = main.receive()
            if (message !is Msg.Restarted) fail("supervised: main expected a restarted process, got $message")
            latencies += message.latencyNs
            if (message.late) late++
        }
    }
    return supervisedResult(cfg, elapsed, tree.counters, kills, latencies, late)
}

/**
 * The killer: kill j is due at t0 + j / (K/100 × 2P) s while that is before
 * t0 + D; each picks a pair and a role uniformly. Returns the kills made.
 */
private suspend fun killAtRate(tree: Tree, cfg: Config, t0: Long): Int {
    val perSecond = cfg.killRate / 100 * 2 * cfg.pairs
    if (perSecond == 0.0) return 0
    val end = t0 + (cfg.seconds * 1e9).toLong()
    val random = Random(2018)
    var kills = 0
    var j = 1L
    while (true) {
        val due = t0 + (j++ * 1e9 / perSecond).toLong()
        if (due >= end) return kills
        val wait = due - System.nanoTime()
        if (wait > 0) delay((wait + 999_999) / 1_000_000) // delay counts whole ms; the schedule stays absolute
        if (tree.kill(random.nextInt(2 * cfg.pairs))) kills++
    }
}

/** A killed process's mark in its role's slot, left for its replacement: the killer's clock before the kill. */
private class Killed(val at: Long)

/**
 * The supervision tree: the pairs' slots that outlive their processes.
 * Roles are numbered 2i (A_i) and 2i + 1 (B_i).
 */
internal class Tree(pairs: Int, val main: Mailbox, private val dropOne: Boolean) {
    /** Shared by every generation, polled by A once per round trip. */
    val stop = AtomicBoolean()

    /** Per pair: pings sent, pings received, pongs sent, pongs received; written only by the pair's processes. */
    val counters = AtomicLongArray(4 * pairs)

    /** Per role: the Job of the process that holds it now, or the [Killed] mark its replacement takes. */
    private val roles = AtomicReferenceArray<Any>(2 * pairs)

    /** The process that holds [role] now, or null while its replacement has not yet run. */
    fun holder(role: Int): Job? = roles.get(role) as? Job

    /**
     * The supervisor of one pair: runs a generation and, when a kill ended it,
     * starts both processes again with fresh mailboxes. No restart limit:
     * it returns once its pair has stopped and no killed process of the pair
     * is still owed its replacement.
     */
    suspend fun supervise(pair: Int, firstInbox: Mailbox) {
        var inbox = firstInbox
        var first = true
        while (true) {
            generation(pair, inbox, first)
            if (roles.get(2 * pair) !is Killed && roles.get(2 * pair + 1) !is Killed) return
            inbox = mailbox()
            first = false
        }
    }

    /** A and B in one scope, each with a fresh mailbox, until a kill or the stop ends them. */
    private suspend fun generation(pair: Int, toA: Mailbox, first: Boolean) = coroutineScope {
        val toB = mailbox()
        val a = launch { initiate(pair, toA, toB, first) }
        val b = launch { answer(pair, toB, toA, first, dropOne && first && pair == 0) }
        // A failing child cancels its scope and so its partner, but a cancelled
        // one does not: its scope would wait for the partner for ever. So a
        // child that ends by a kill (or fails) ends the other. A stopped A ends
        // normally and its stop message ends B, which thus always gets to run.
        a.invokeOnCompletion { cause -> if (cause != null) b.cancel() }
        b.invokeOnCompletion { cause -> if (cause != null) a.cancel() }
    }

    /**
     * Kills the process that holds [role] now (`Job.cancel`: its next
     * suspension throws) and leaves the kill's time for its replacement;
     * false, skipped, when the role has no running process (its pair is being restarted).
     */
    fun kill(role: Int): Boolean {
        val victim = holder(role)
        if (victim == null || !victim.isActive) return false
        val tKill = System.nanoTime()
        if (!roles.compareAndSet(role, victim, Killed(tKill))) return false
        victim.cancel()
        return true
    }

    /**
     * A process's first clock read: it takes its role and, if it replaces a
     * killed process, reports the restart, late when the pairs were already
     * stopped (it then ends at once: A sees the flag before its first ping,
     * B gets A's stop).
     */
    private suspend fun started(role: Int) {
        val now = System.nanoTime()
        val previous = roles.getAndSet(role, currentCoroutineContext().job)
        // trySend never suspends, so not even a kill arriving now can lose the report.
        if (previous is Killed) main.trySend(Msg.Restarted(now - previous.at, late = stop.get()))
    }

    /** A_i: ping, check the pong, count both, and look at the flag once per round trip; at the stop, tell B. */
    private suspend fun initiate(pair: Int, inbox: Mailbox, toB: Mailbox, first: Boolean) {
        started(2 * pair)
        if (first) {
            main.send(Msg.Ready)
            inbox.expect(Msg.Go, "supervised: pair $pair A")
        }
        val slot = 4 * pair
        var k = 0L
        while (!stop.get()) {
            k++
            counters.incrementAndGet(slot + PINGS_SENT)
            toB.send(Msg.Ping(k))
            val got = inbox.receive()
            if (got !is Msg.Pong || got.k != k) fail("supervised: pair $pair expected pong $k, got $got")
            counters.incrementAndGet(slot + PONGS_RECEIVED)
        }
        toB.send(Msg.Stop)
    }

    /** B_i: check each ping, count it and the pong it answers with, until [Msg.Stop]. */
    private suspend fun answer(pair: Int, inbox: Mailbox, toA: Mailbox, first: Boolean, dropOne: Boolean) {
        started(2 * pair + 1)
        if (first) main.send(Msg.Ready)
        if (dropOne) inbox.receive()
        val slot = 4 * pair
        var expected = 0L
        while (true) {
            when (val message = inbox.receive()) {
                is Msg.Ping -> {
                    if (message.k != ++expected) fail("supervised: pair $pair B expected ping $expected, got ${message.k}")
                    counters.incrementAndGet(slot + PINGS_RECEIVED)
                    counters.incrementAndGet(slot + PONGS_SENT)
                    toA.send(Msg.Pong(message.k))
                }
                Msg.Stop -> return
                else -> fail("supervised: pair $pair B expected a ping, got $message")
            }
        }
    }
}

internal const val PINGS_SENT = 0
internal const val PINGS_RECEIVED = 1
internal const val PONGS_SENT = 2
internal const val PONGS_RECEIVED = 3

/** The line of §4.7 from the counters, read after t1 when no pair runs; fails when more was lost than killed. */
internal fun supervisedResult(
    cfg: Config, elapsed: Long, counters: AtomicLongArray, kills: Int, latencies: List<Long>, lateRestarts: Int,
): Result {
    var sent = 0L
    var received = 0L
    var roundTrips = 0L
    for (pair in 0 until cfg.pairs) {
        val slot = 4 * pair
        val pings = counters[slot + PINGS_RECEIVED]
        val pongs = counters[slot + PONGS_RECEIVED]
        if (pings > counters[slot + PINGS_SENT] || pongs > counters[slot + PONGS_SENT]) {
            fail("supervised: pair $pair received more than it sent: ${(0..3).map { counters[slot + it] }}")
        }
        sent += counters[slot + PINGS_SENT] + counters[slot + PONGS_SENT]
        received += pings + pongs
        roundTrips += pongs
    }
    val lost = sent - received
    if (lost > kills) fail("supervised: $lost messages lost with $kills kills (a kill loses at most one)")
    val sorted = latencies.sorted()
    return Result(
        cfg, mapOf("pairs" to cfg.pairs, "seconds" to cfg.seconds, "kill_rate" to cfg.killRate),
        roundTrips, elapsed, received, sent,
    )
        .with("round_trips", roundTrips)
        .with("messages", received)
        .with("messages_per_s", received / (elapsed / 1e9))
        .with("kills", kills)
        .with("lost", lost)
        .with("restart_p50_ns", nearestRank(sorted, 50))
        .with("restart_p99_ns", nearestRank(sorted, 99))
        .with("late_restarts", lateRestarts)
        .apply { this.lost = lost }
}

/** The [percent]th percentile by nearest rank: the value at rank ⌈percent/100 × n⌉; 0 for no value. */
internal fun nearestRank(sorted: List<Long>, percent: Int): Long =
    if (sorted.isEmpty()) 0 else sorted[(percent * sorted.size + 99) / 100 - 1]
