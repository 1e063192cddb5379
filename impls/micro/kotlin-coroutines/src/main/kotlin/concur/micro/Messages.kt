package concur.micro

import kotlinx.coroutines.channels.Channel

/**
 * Every message a coroutine or main receives. One sealed type per program
 * makes each receive a `when`, as an actor's would be; every send allocates
 * its message object, like any JVM message.
 */
sealed interface Msg {
    /** Payload-free control messages of spec/MICRO.md §4. */
    data object Ready : Msg
    data object Go : Msg
    data object Ack : Msg
    data object Stop : Msg
    data object Stopped : Msg

    /** One pingping message: its number and a fresh payload, shared by reference. */
    class Parcel(val k: Int, val data: ByteArray) : Msg

    data class Ping(val k: Long) : Msg
    data class Pong(val k: Long) : Msg

    /** A coroutine's final count, sent to main; [pair] is -1 outside pairs. */
    data class Done(val pair: Int, val count: Long) : Msg

    /** The final count of pairs' B, whose A sends a [Done]. */
    data class Echoed(val pair: Int, val pings: Long) : Msg

    /** From a killed process's replacement to main: t_kill to its first clock read, [late] if after the stop (supervised). */
    data class Restarted(val latencyNs: Long, val late: Boolean) : Msg
}

typealias Mailbox = Channel<Msg>

/**
 * A coroutine's mailbox: an unlimited channel, one per receiving coroutine.
 * Unlimited, because a send must never wait for the receiver (pingping's two
 * coroutines both send before they receive; main collects a million acks),
 * as with an actor's mailbox; a rendezvous channel would deadlock pingping.
 */
fun mailbox(): Mailbox = Channel(Channel.UNLIMITED)

/** Receives one message and fails unless it is [expected]. */
suspend fun Mailbox.expect(expected: Msg, who: String) {
    val got = receive()
    if (got != expected) fail("$who expected $expected, got $got")
}

suspend fun Mailbox.awaitReady(processes: Int) = repeat(processes) { expect(Msg.Ready, "main") }

suspend fun Mailbox.awaitDone(): Msg.Done =
    receive() as? Msg.Done ?: fail("main expected a done message, got another message")
