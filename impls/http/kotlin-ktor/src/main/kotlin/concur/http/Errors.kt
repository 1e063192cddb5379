/*
 * Errors as SPEC §3 wants them: a status and a one-line text/plain reason.
 * Handlers throw [HttpError]; StatusPages turns it, Ktor's own exceptions and
 * the empty 404/405 of routing into text, so no error leaves without a body.
 */
package concur.http

import io.ktor.http.HttpHeaders
import io.ktor.http.HttpMethod
import io.ktor.http.HttpStatusCode
import io.ktor.server.application.ApplicationCall
import io.ktor.server.application.log
import io.ktor.server.plugins.BadRequestException
import io.ktor.server.plugins.statuspages.StatusPagesConfig
import io.ktor.server.request.httpMethod
import io.ktor.server.request.path
import io.ktor.server.response.header
import io.ktor.server.response.respondText
import kotlin.coroutines.cancellation.CancellationException

class HttpError(
    val status: HttpStatusCode,
    reason: String,
    /** The methods of the route, for the Allow header of a 405. */
    val allow: HttpMethod? = null,
) : Exception(reason)

fun StatusPagesConfig.plainTextErrors() {
    exception<HttpError> { call, e ->
        e.allow?.let { call.response.header(HttpHeaders.Allow, allowed(it)) }
        call.respondError(e.status, e.message!!)
    }
    exception<BadRequestException> { call, e -> call.respondError(HttpStatusCode.BadRequest, e.message ?: "bad request") }
    exception<Throwable> { call, e ->
        if (e is CancellationException) throw e // the client went away; nothing to answer
        call.application.log.error("${call.request.httpMethod.value} ${call.request.path()} failed", e)
        call.respondError(HttpStatusCode.InternalServerError, "internal error: ${e::class.simpleName}")
    }
    // Routing's own answers, which Ktor sends with an empty body.
    status(HttpStatusCode.NotFound) { call, status -> call.respondError(status, "no route for ${call.request.path()}") }
    status(HttpStatusCode.MethodNotAllowed) { call, status ->
        call.respondError(status, "method ${call.request.httpMethod.value} not allowed on ${call.request.path()}")
    }
}

fun methodNotAllowed(call: ApplicationCall, route: HttpMethod) = HttpError(
    HttpStatusCode.MethodNotAllowed,
    "method ${call.request.httpMethod.value} not allowed on ${call.request.path()}: use ${route.value}",
    allow = route,
)

/** AutoHeadResponse answers HEAD wherever GET is served. */
private fun allowed(method: HttpMethod) = if (method == HttpMethod.Get) "GET, HEAD" else method.value

private suspend fun ApplicationCall.respondError(status: HttpStatusCode, reason: String) =
    respondText(reason.lineSequence().first(), status = status)
