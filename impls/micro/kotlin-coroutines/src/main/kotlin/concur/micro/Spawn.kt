package concur.micro

import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch

/**
 * spawn, maxprocs and idle (spec/MICRO.md §4.3, §4.4, §4.6): many coroutines
 * alive at once, each costing its Job, its suspended state machine and, for
 * spawn, its channel.
 */

suspend fun spawn(cfg: Config): Result {
    val n = cfg.procs
    val main = mailbox()
    val mailboxes = arrayOfNulls<Mailbox>(n)
    var elapsed = 0L
    var received = 0L
    // The scope's end joins every coroutine it launched: structured concurrency.
    coroutineScope {
        val t0 = System.nanoTime()
        var created = 0
        try {
            while (created < n) {
                val mailbox = mailbox()
                mailboxes[created++] = mailbox
                launch { dormant(mailbox, main) }
            }
        } catch (e: OutOfMemoryError) {
            fail("${cfg.bench}: could not create process $created of $n: $e")
        }
        if (cfg.dropOne) main.receive()
        repeat(n) {
            main.expect(Msg.Ack, "main")
            received++
        }
        elapsed = System.nanoTime() - t0

        for (mailbox in mailboxes) mailbox!!.send(Msg.Stop)
        repeat(n) {
            main.expect(Msg.Stopped, "main")
            received++
        }
    }
    return Result(cfg, mapOf("procs" to n), n.toLong(), elapsed, received, 2L * n)
        .with("procs", n)
        .with("ns_per_proc", elapsed.toDouble() / n)
}

/** Acknowledges that it runs, then suspends until its stop message. */
private suspend fun dormant(mailbox: Mailbox, main: Mailbox) {
    main.send(Msg.Ack)
    mailbox.expect(Msg.Stop, "a dormant process")
    main.send(Msg.Stopped)
}

suspend fun idle(cfg: Config): Result {
    val n = cfg.procs
    val sleepNs = cfg.sleepMs * 1_000_000L
    // Job.join carries no value, so each task's completion notice is a message to main.
    val main = mailbox()
    var received = 0L
    val t0 = System.nanoTime()
    coroutineScope {
        repeat(n) {
            launch {
                delay(cfg.sleepMs.toLong())
                main.send(Msg.Done(-1, 1))
            }
        }
        if (cfg.dropOne) main.receive()
        repeat(n) {
            main.awaitDone()
            received++
        }
    }
    val elapsed = System.nanoTime() - t0

    if (elapsed < sleepNs) fail("idle: all tasks ended after $elapsed ns, before their sleep of $sleepNs ns")
    return Result(cfg, mapOf("procs" to n, "sleep_ms" to cfg.sleepMs), n.toLong(), elapsed, received, n.toLong())
        .with("tasks", n)
        .with("sleep_ns", sleepNs)
        .apply { nsPerOp = (elapsed - sleepNs).toDouble() / n }
}
