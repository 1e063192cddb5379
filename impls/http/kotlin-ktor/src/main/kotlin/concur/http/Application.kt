/*
 * The Ktor application module: the plugins every response goes through, the
 * state the handlers share, and the routes.
 */
package concur.http

import io.ktor.serialization.kotlinx.json.json
import io.ktor.server.application.Application
import io.ktor.server.application.ApplicationStopped
import io.ktor.server.application.install
import io.ktor.server.plugins.autohead.AutoHeadResponse
import io.ktor.server.plugins.contentnegotiation.ContentNegotiation
import io.ktor.server.plugins.defaultheaders.DefaultHeaders
import io.ktor.server.plugins.statuspages.StatusPages
import kotlinx.coroutines.Dispatchers

fun Application.concur(config: Config) {
    install(CallsInOrder)
    install(DefaultHeaders) // Date, and Server: Ktor/<version>
    install(AutoHeadResponse)
    install(ContentNegotiation) { json() }
    install(StatusPages) { plainTextErrors() }

    // bcrypt is CPU work that would stall a Netty event loop: it runs on the
    // shared Default pool, at most one hash per core at a time.
    val bcrypt = Dispatchers.Default.limitedParallelism(config.cores, "bcrypt")
    val database = Database(config.db)
    monitor.subscribe(ApplicationStopped) { database.close() }
    routes(Hello(config), Passwords(config.bcryptCost, bcrypt), Users(), DbRoutes(database, config.db.slow), config.faults)
}
