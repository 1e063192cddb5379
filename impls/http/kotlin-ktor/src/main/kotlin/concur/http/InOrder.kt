/*
 * SPEC §4 (RFC 9112 §9.3.2): requests pipelined on one connection are
 * answered in order, each seeing the effects of the ones before it. Ktor's
 * Netty engine keeps the answers in order, but starts every pipelined call as
 * soon as Netty has parsed it (up to `runningLimit`, 32, per connection; 1
 * does not help, as Netty still decodes every request in a segment). So
 * `POST /password/set/u` and `POST /password/verify/u` sent together could
 * verify before the set's hash is stored. This plugin runs the calls of one
 * connection one after the other, under a Mutex kept on the Netty channel.
 * Netty starts the calls of one channel in arrival order on that channel's
 * event loop, and kotlinx's Mutex is fair, so the lock is taken in that order.
 * It also keeps the call's Netty channel in the call's attributes, where
 * route handlers (which see a RoutingCall, not the engine's) can find it.
 */
package concur.http

import io.ktor.server.application.ApplicationCallPipeline
import io.ktor.server.application.call
import io.ktor.server.application.createApplicationPlugin
import io.ktor.server.netty.NettyApplicationCall
import io.netty.channel.Channel
import io.netty.util.AttributeKey
import kotlinx.coroutines.sync.Mutex
import kotlinx.coroutines.sync.withLock

private val ConnectionLock: AttributeKey<Mutex> = AttributeKey.valueOf("concur.connectionLock")

/** The Netty channel (the connection) of a call. */
val NettyChannel = io.ktor.util.AttributeKey<Channel>("NettyChannel")

val CallsInOrder = createApplicationPlugin("CallsInOrder") {
    application.intercept(ApplicationCallPipeline.Setup) {
        val channel = (call as? NettyApplicationCall)?.context?.channel() ?: return@intercept
        call.attributes.put(NettyChannel, channel)
        val lock = channel.attr(ConnectionLock).run { get() ?: setIfAbsent(Mutex()) ?: get() }
        lock.withLock { proceed() }
    }
}
