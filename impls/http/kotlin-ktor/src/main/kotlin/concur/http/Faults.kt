/*
 * The fault routes of SPEC §9, routed only with CONCUR_FAULTS=1: a handler
 * with a bug, and a handler that computes without ever suspending. Nothing
 * here catches or offloads: what StatusPages, the coroutine and the Netty
 * event loop do by default is what is measured.
 */
package concur.http

import io.ktor.server.application.ApplicationCall
import io.ktor.server.response.respondText

/** `/fault/panic`: an unchecked exception thrown in the handler, as a bug would. */
fun panic(): Nothing = error("fault: panic")

/**
 * `/fault/spin`: reads the clock until `ms` have passed, on the thread that
 * runs the call's coroutine (its Netty event loop), without a suspension
 * point in the loop, as a runaway regular expression would; then `OK`.
 */
suspend fun spin(call: ApplicationCall) {
    val end = System.nanoTime() + call.spinMillis() * 1_000_000L
    while (System.nanoTime() - end < 0) {
        // reading the clock is the work
    }
    call.respondText("OK")
}

/** SPEC §9's N, read as [queries] reads its own: missing, empty, not an integer or below 0 is 0; above 10000 is 10000. */
private fun ApplicationCall.spinMillis(): Int = request.queryParameters["ms"]?.toIntOrNull()?.coerceIn(0, 10_000) ?: 0
