package concur.micro

import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import java.util.concurrent.atomic.AtomicBoolean

/** pairs (spec/MICRO.md §4.5): P pairs of coroutines bouncing a number for D seconds. */

suspend fun pairs(cfg: Config): Result = coroutineScope {
    val p = cfg.pairs
    // A flag polled once per round trip. Job.cancel() is Kotlin's usual
    // cancellation, but it is prompt: it throws at the next suspension, in the
    // middle of a round trip, and the pong in flight would be lost (README).
    val stop = AtomicBoolean()
    val main = mailbox()
    val starts = List(p) { pair ->
        val toA = mailbox()
        val toB = mailbox()
        launch { initiate(pair, toA, toB, stop, main) }
        launch { main.send(Msg.Echoed(pair, pong("pairs: pair $pair", toB, toA, main, cfg.dropOne && pair == 0))) }
        toA
    }
    main.awaitReady(2 * p)

    val t0 = System.nanoTime()
    for (toA in starts) toA.send(Msg.Go)
    delay((cfg.seconds * 1000).toLong())
    stop.set(true)
    val roundTrips = LongArray(p)
    val pings = LongArray(p)
    repeat(2 * p) {
        when (val message = main.receive()) {
            is Msg.Done -> roundTrips[message.pair] = message.count
            is Msg.Echoed -> pings[message.pair] = message.pings
            else -> fail("pairs: main expected a done message, got $message")
        }
    }
    val elapsed = System.nanoTime() - t0
    pairsResult(cfg, elapsed, roundTrips, pings)
}

/** A_i: ping, check the pong, and look at the flag once per round trip. */
private suspend fun initiate(pair: Int, inbox: Mailbox, toB: Mailbox, stop: AtomicBoolean, main: Mailbox) {
    main.send(Msg.Ready)
    inbox.expect(Msg.Go, "pairs: pair $pair A")
    var k = 0L
    while (!stop.get()) {
        k++
        toB.send(Msg.Ping(k))
        val got = inbox.receive()
        if (got !is Msg.Pong || got.k != k) fail("pairs: pair $pair expected pong $k, got $got")
    }
    toB.send(Msg.Stop)
    main.send(Msg.Done(pair, k))
}

internal fun pairsResult(cfg: Config, elapsed: Long, roundTrips: LongArray, pings: LongArray): Result {
    for (i in roundTrips.indices) {
        if (roundTrips[i] != pings[i]) fail("pairs: pair $i made ${roundTrips[i]} round trips but its B received ${pings[i]} pings")
    }
    val total = roundTrips.sum()
    return Result(cfg, mapOf("pairs" to cfg.pairs, "seconds" to cfg.seconds), total, elapsed, total + pings.sum(), 2 * total)
        .with("round_trips", total)
        .with("messages", 2 * total)
        .with("messages_per_s", 2 * total / (elapsed / 1e9))
        .with("min_pair_round_trips", roundTrips.min())
}
