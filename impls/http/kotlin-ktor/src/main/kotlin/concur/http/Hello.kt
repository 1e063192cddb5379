/*
 * The routes that need no store (SPEC §2): the two hello-worlds, the page
 * read from disk with a delay on every Nth request, and the long poll. Every
 * wait is `delay`, which suspends the call's coroutine and frees its Netty
 * event loop for other connections until a timer resumes it.
 */
package concur.http

import io.ktor.http.ContentType
import io.ktor.http.withCharset
import io.ktor.server.application.ApplicationCall
import io.ktor.server.http.content.LocalPathContent
import io.ktor.server.response.respond
import io.ktor.server.response.respondText
import kotlinx.coroutines.delay
import kotlinx.serialization.Serializable
import java.nio.file.Path
import java.util.concurrent.atomic.AtomicLong

/** The body of /json, serialized by ContentNegotiation on every request. */
@Serializable
data class Message(val message: String)

class Hello(private val config: Config) {
    private val page = Path.of(config.pageFile)
    private val html = ContentType.Text.Html.withCharset(Charsets.UTF_8)

    /** /page requests of this process, counted from 1. */
    private val pageRequests = AtomicLong()

    suspend fun root(call: ApplicationCall) = call.respondText("Hello, World!")

    suspend fun json(call: ApplicationCall) = call.respond(Message("Hello, World!"))

    suspend fun page(call: ApplicationCall) {
        if (pageRequests.incrementAndGet() % config.pageDelayEvery == 0L) delay(config.pageDelay)
        // LocalPathContent opens and streams the file on Dispatchers.IO for every request.
        call.respond(LocalPathContent(page, html))
    }

    suspend fun longPoll(call: ApplicationCall) {
        delay(config.longPoll)
        call.respondText("OK")
    }
}
