/*
 * SPEC §4 and RFC 9110 §6.2: a request in an HTTP major version the server
 * does not implement gets an HTTP/1.1 answer, never one in that version.
 * Netty's decoder keeps any `HTTP/x.y` it parses (netty/netty#14186) and
 * Ktor's Netty engine (3.4.3) answers in the request's version, so
 * `GET / HTTP/9.9` was answered `HTTP/9.9 200 OK`. This Netty handler, placed
 * between the HTTP codec and Ktor's handler, answers such a request
 * 505 HTTP Version Not Supported in HTTP/1.1 and closes the connection.
 */
package concur.http

import io.netty.buffer.Unpooled
import io.netty.channel.ChannelFutureListener
import io.netty.channel.ChannelHandler
import io.netty.channel.ChannelHandlerContext
import io.netty.channel.ChannelInboundHandlerAdapter
import io.netty.handler.codec.DateFormatter
import io.netty.handler.codec.http.DefaultFullHttpResponse
import io.netty.handler.codec.http.HttpContent
import io.netty.handler.codec.http.HttpHeaderNames
import io.netty.handler.codec.http.HttpHeaderValues
import io.netty.handler.codec.http.HttpRequest
import io.netty.handler.codec.http.HttpResponseStatus
import io.netty.handler.codec.http.HttpVersion
import io.netty.util.AttributeKey
import io.netty.util.ReferenceCountUtil
import java.util.Date

private val Refused: AttributeKey<Boolean> = AttributeKey.valueOf("concur.unknownVersion")

@ChannelHandler.Sharable
object UnknownVersion : ChannelInboundHandlerAdapter() {
    override fun channelRead(ctx: ChannelHandlerContext, msg: Any) {
        val refused = ctx.channel().attr(Refused)
        when {
            msg is HttpRequest && msg.protocolVersion().majorVersion() != 1 -> {
                refused.set(true)
                ReferenceCountUtil.release(msg)
                ctx.writeAndFlush(answer()).addListener(ChannelFutureListener.CLOSE)
            }
            // The refused request's body, and anything pipelined after it: the connection is closing.
            refused.get() == true && (msg is HttpContent || msg is HttpRequest) -> ReferenceCountUtil.release(msg)
            else -> ctx.fireChannelRead(msg)
        }
    }

    private fun answer(): DefaultFullHttpResponse {
        val body = "HTTP version not supported: this server speaks HTTP/1.x\n".toByteArray()
        return DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, Unpooled.wrappedBuffer(body)).apply {
            headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8")
                .set(HttpHeaderNames.CONTENT_LENGTH, body.size)
                .set(HttpHeaderNames.DATE, DateFormatter.format(Date()))
                .set(HttpHeaderNames.SERVER, "Ktor")
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
        }
    }
}
