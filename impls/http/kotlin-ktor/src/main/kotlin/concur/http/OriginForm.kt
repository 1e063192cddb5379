/*
 * RFC 9112 §3.2.2: a server MUST accept a request target in absolute form
 * (`GET http://host/json`). Ktor routes on the raw target, so this Netty
 * handler, placed between the HTTP codec and Ktor's handler, cuts such a
 * target down to its path and query before Ktor sees it.
 */
package concur.http

import io.netty.channel.ChannelHandler
import io.netty.channel.ChannelHandlerContext
import io.netty.channel.ChannelInboundHandlerAdapter
import io.netty.handler.codec.http.HttpRequest

@ChannelHandler.Sharable
object OriginForm : ChannelInboundHandlerAdapter() {
    override fun channelRead(ctx: ChannelHandlerContext, msg: Any) {
        if (msg is HttpRequest) {
            val target = msg.uri()
            if (!target.startsWith("/")) originForm(target)?.let(msg::setUri)
        }
        ctx.fireChannelRead(msg)
    }

    /** `http://host:port/a?b` → `/a?b`, undecoded; null when [target] is not in absolute form. */
    fun originForm(target: String): String? {
        val scheme = target.indexOf("://")
        if (scheme <= 0) return null
        val authorityEnd = target.indexOfAny(charArrayOf('/', '?'), scheme + 3)
        return when {
            authorityEnd < 0 -> "/"
            target[authorityEnd] == '?' -> "/" + target.substring(authorityEnd)
            else -> target.substring(authorityEnd)
        }
    }
}
