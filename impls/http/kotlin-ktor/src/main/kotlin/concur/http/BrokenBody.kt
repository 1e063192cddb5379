/*
 * SPEC §3.1: bad chunk framing is a 400. Netty's decoder reports it by ending
 * the body with an empty LastHttpContent whose decoderResult is a failure,
 * and Ktor's RequestBodyHandler (3.4.3) does not look at that result: the
 * handler would just see a shorter body, and a prefix that happens to be JSON
 * would be stored. This Netty handler remembers the failure on the channel, so
 * [framingError] lets the body reader refuse it, and closes the connection
 * once the answer is written, since Netty's decoder discards every later byte.
 */
package concur.http

import io.ktor.server.application.ApplicationCall
import io.netty.channel.ChannelDuplexHandler
import io.netty.channel.ChannelFutureListener
import io.netty.channel.ChannelHandler
import io.netty.channel.ChannelHandlerContext
import io.netty.channel.ChannelPromise
import io.netty.handler.codec.http.HttpContent
import io.netty.handler.codec.http.HttpRequest
import io.netty.handler.codec.http.LastHttpContent
import io.netty.util.AttributeKey

private val FramingError: AttributeKey<Throwable> = AttributeKey.valueOf("concur.framingError")

@ChannelHandler.Sharable
object BrokenBody : ChannelDuplexHandler() {
    override fun channelRead(ctx: ChannelHandlerContext, msg: Any) {
        if (msg is HttpContent && msg !is HttpRequest && msg.decoderResult().isFailure) {
            ctx.channel().attr(FramingError).set(msg.decoderResult().cause())
        }
        ctx.fireChannelRead(msg)
    }

    override fun write(ctx: ChannelHandlerContext, msg: Any, promise: ChannelPromise) {
        if (msg is LastHttpContent && ctx.channel().attr(FramingError).get() != null) {
            ctx.write(msg, promise.unvoid()).addListener(ChannelFutureListener.CLOSE)
        } else {
            ctx.write(msg, promise)
        }
    }
}

/** The decoder's complaint about this connection's request body, if it had one. */
fun ApplicationCall.framingError(): Throwable? = attributes.getOrNull(NettyChannel)?.attr(FramingError)?.get()
