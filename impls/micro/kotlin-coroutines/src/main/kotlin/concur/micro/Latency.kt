package concur.micro

import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.launch

/** pingping and pingpong (spec/MICRO.md §4.1, §4.2): two coroutines, each owning its channel. */

suspend fun pingping(cfg: Config): Result = coroutineScope {
    val main = mailbox()
    val toA = mailbox()
    val toB = mailbox()
    // Each side's Go comes alone on a start channel of its own (§4.1): in the
    // parcel channel it could arrive after the other side's first parcel,
    // which is sent as soon as that side has its own Go.
    val startA = mailbox()
    val startB = mailbox()
    launch { exchange("A", cfg, startA, toA, toB, main, dropOne = false) }
    launch { exchange("B", cfg, startB, toB, toA, main, cfg.dropOne) }
    main.awaitReady(2)

    val t0 = System.nanoTime()
    startA.send(Msg.Go)
    startB.send(Msg.Go)
    val received = main.awaitDone().count + main.awaitDone().count
    val elapsed = System.nanoTime() - t0

    Result(cfg, mapOf("size" to cfg.size, "reps" to cfg.reps), cfg.reps.toLong(), elapsed, received, 2L * cfg.reps)
}

/** One side of pingping: from its own [Msg.Go] on, send message k, then receive the other's message k. */
internal suspend fun exchange(
    name: String, cfg: Config, start: Mailbox, inbox: Mailbox, out: Mailbox, main: Mailbox, dropOne: Boolean,
) {
    main.send(Msg.Ready)
    start.expect(Msg.Go, "pingping: process $name")
    if (dropOne) inbox.receive()
    var received = 0L
    for (k in 1..cfg.reps) {
        out.send(Msg.Parcel(k, payload(cfg.size, k)))
        check(name, inbox.receive(), k, cfg.size)
        received++
    }
    main.send(Msg.Done(-1, received))
}

/** A fresh payload, every byte k mod 251 (the JVM zeroes it first; no API avoids that). */
private fun payload(size: Int, k: Int) = ByteArray(size).apply { fill((k % 251).toByte()) }

private fun check(name: String, message: Msg, k: Int, size: Int) {
    val fill = (k % 251).toByte()
    when {
        message !is Msg.Parcel -> fail("pingping: process $name expected message $k, got $message")
        message.k != k -> fail("pingping: process $name expected message $k, got ${message.k}")
        message.data.size != size -> fail("pingping: process $name: message $k has ${message.data.size} bytes, expected $size")
        message.data[0] != fill || message.data[size - 1] != fill ->
            fail("pingping: process $name: message $k is not filled with $fill")
    }
}

suspend fun pingpong(cfg: Config): Result = coroutineScope {
    val main = mailbox()
    val toPinger = mailbox()
    val toPonger = mailbox()
    launch { ping(cfg.reps, toPinger, toPonger, main) }
    launch { main.send(Msg.Done(-1, pong("pingpong: ponger", toPonger, toPinger, main, cfg.dropOne))) }
    main.awaitReady(2)

    val t0 = System.nanoTime()
    toPinger.send(Msg.Go)
    val pongs = main.awaitDone().count
    val elapsed = System.nanoTime() - t0

    toPonger.send(Msg.Stop)
    val pings = main.awaitDone().count
    Result(cfg, mapOf("reps" to cfg.reps), cfg.reps.toLong(), elapsed, pongs + pings, 2L * cfg.reps)
}

private suspend fun ping(reps: Int, inbox: Mailbox, ponger: Mailbox, main: Mailbox) {
    main.send(Msg.Ready)
    inbox.expect(Msg.Go, "pinger")
    for (k in 1L..reps) {
        ponger.send(Msg.Ping(k))
        val got = inbox.receive()
        if (got !is Msg.Pong || got.k != k) fail("pingpong: pinger expected pong $k, got $got")
    }
    main.send(Msg.Done(-1, reps.toLong()))
}

/** Answers pings until [Msg.Stop] and returns their count; pairs' B coroutines do the same. */
suspend fun pong(name: String, inbox: Mailbox, pinger: Mailbox, main: Mailbox, dropOne: Boolean): Long {
    main.send(Msg.Ready)
    if (dropOne) inbox.receive()
    var received = 0L
    while (true) {
        when (val message = inbox.receive()) {
            is Msg.Ping -> {
                if (message.k != ++received) fail("$name expected ping $received, got ${message.k}")
                pinger.send(Msg.Pong(message.k))
            }
            Msg.Stop -> return received
            else -> fail("$name expected a ping, got $message")
        }
    }
}
