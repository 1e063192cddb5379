/*
 * The route table of SPEC §2, §8 and §9 in Ktor's routing DSL, and the order of SPEC §3:
 * routing answers 404 for an unknown path, each route's fallback 405 for
 * another method, [userName] 400 for a bad {user}, and only then does a
 * handler read its body (413, then 400 for bad JSON).
 */
package concur.http

import io.ktor.http.HttpMethod
import io.ktor.http.HttpStatusCode
import io.ktor.server.application.Application
import io.ktor.server.application.ApplicationCall
import io.ktor.server.request.path
import io.ktor.server.response.respond
import io.ktor.server.response.respondText
import io.ktor.server.routing.Route
import io.ktor.server.routing.RoutingContext
import io.ktor.server.routing.RoutingHandler
import io.ktor.server.routing.method
import io.ktor.server.routing.route
import io.ktor.server.routing.routing

/** SPEC §3.4, checked on the raw path: `%41` and `a/b` are not names. */
private val USER_NAME = Regex("[A-Za-z0-9_.-]{1,64}")

fun Application.routes(hello: Hello, passwords: Passwords, users: Users, db: DbRoutes, faults: Boolean) = routing {
    endpoint(HttpMethod.Get, "/") { hello.root(call) }
    endpoint(HttpMethod.Get, "/json") { hello.json(call) }
    endpoint(HttpMethod.Get, "/page") { hello.page(call) }
    endpoint(HttpMethod.Get, "/longPoll") { hello.longPoll(call) }

    // SPEC §8.
    endpoint(HttpMethod.Get, "/db") { db.db(call) }
    endpoint(HttpMethod.Get, "/queries") { db.queries(call) }
    endpoint(HttpMethod.Get, "/updates") { db.updates(call) }
    endpoint(HttpMethod.Get, "/fortunes") { db.fortunes(call) }
    endpoint(HttpMethod.Get, "/slowdb") { db.slowdb(call) }

    // SPEC §9, only with CONCUR_FAULTS=1; otherwise unknown paths (404).
    if (faults) {
        endpoint(HttpMethod.Get, "/fault/panic") { panic() }
        endpoint(HttpMethod.Get, "/fault/spin") { spin(call) }
    }

    userEndpoint(HttpMethod.Post, "/password/set/") { user ->
        passwords.set(user, call.receivePassword())
        call.respondText("OK")
    }
    userEndpoint(HttpMethod.Post, "/password/verify/") { user ->
        when (passwords.verify(user, call.receivePassword())) {
            true -> call.respondText("OK")
            false -> throw HttpError(HttpStatusCode.Forbidden, "wrong password for '$user'")
            null -> throw HttpError(HttpStatusCode.NotFound, "no password set for '$user'")
        }
    }
    userEndpoint(HttpMethod.Post, "/user/set/") { user ->
        users.set(user, call.receiveUserInfo())
        call.respondText("OK")
    }
    userEndpoint(HttpMethod.Get, "/user/get/") { user ->
        call.respond(users.get(user) ?: throw HttpError(HttpStatusCode.NotFound, "no user info for '$user'"))
    }
}

/** [path] answers [verb] with [handler] and any other method with 405. */
private fun Route.endpoint(verb: HttpMethod, path: String, handler: RoutingHandler) {
    route(path) {
        method(verb) { handle(handler) }
        handle { throw methodNotAllowed(call, verb) }
    }
}

/** A route whose {user} is the rest of the path after [prefix]. */
private fun Route.userEndpoint(
    verb: HttpMethod,
    prefix: String,
    handler: suspend RoutingContext.(user: String) -> Unit,
) {
    route("$prefix{user...}") {
        method(verb) { handle { handler(call.userName(prefix)) } }
        handle {
            call.rawUser(prefix)
            throw methodNotAllowed(call, verb)
        }
    }
}

/** The {user} after [prefix], checked (SPEC §3.4). */
private fun ApplicationCall.userName(prefix: String): String {
    val user = rawUser(prefix)
    if (!USER_NAME.matches(user)) {
        throw HttpError(HttpStatusCode.BadRequest, "invalid user name: must match [A-Za-z0-9_.-]{1,64}")
    }
    return user
}

/**
 * The undecoded rest of the path after [prefix]. Ktor's `{user...}` also
 * matches the bare prefix without its slash (`/user/get`), which SPEC §3.2
 * makes a 404.
 */
private fun ApplicationCall.rawUser(prefix: String): String {
    val path = request.path()
    if (!path.startsWith(prefix)) throw HttpError(HttpStatusCode.NotFound, "no route for $path")
    return path.substring(prefix.length)
}
