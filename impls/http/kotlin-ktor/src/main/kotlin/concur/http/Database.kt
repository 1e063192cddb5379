/*
 * The PostgreSQL of SPEC §8: HikariCP over the PostgreSQL JDBC driver,
 * holding at most CONCUR_DB_POOL connections, and the dispatcher the
 * blocking JDBC calls run on, as Ktor's database guides and TechEmpower's
 * Ktor entry run them: a view of Dispatchers.IO with one thread per pooled
 * connection. A call's coroutine suspends in that dispatcher's queue until a
 * thread (and so a connection) is free, and the Netty event loops never block.
 * The pool opens its connections in the background, so the server starts
 * with the database down; [withConnection] turns any failure into the 503 of
 * SPEC §8.4.
 */
package concur.http

import com.zaxxer.hikari.HikariConfig
import com.zaxxer.hikari.HikariDataSource
import io.ktor.http.HttpStatusCode
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import java.io.Closeable
import java.net.URI
import java.net.URISyntaxException
import java.net.URLDecoder
import java.sql.Connection
import java.sql.SQLException
import java.sql.SQLTransientConnectionException
import kotlin.time.Duration.Companion.seconds

/**
 * How long one `getConnection` waits (HikariCP's `connectionTimeout`, 30 s
 * by default). A busy pool and a database that refuses every connection look
 * alike to HikariCP: both time out. SPEC §8.4 wants the second answered 503
 * within 5 s, so one wait is 2 s, and [Database.connection] waits again
 * unless the pool's last attempt to connect failed.
 */
val CONNECTION_TIMEOUT = 2.seconds

/**
 * pgjdbc's `loginTimeout`, in seconds. HikariCP otherwise sets the JVM-wide
 * `DriverManager` login timeout from `connectionTimeout` (2 s here), and a
 * SCRAM login in a cold JVM at load takes seconds (java-jetty's README): a
 * login cut off by it would read as a database gone.
 */
const val LOGIN_TIMEOUT_SECONDS = "10"

class Database(private val settings: DbSettings) : Closeable {
    /**
     * JDBC blocks its thread for the whole wait on the database. With one
     * thread per connection no thread blocks for a connection while another
     * holds it: the calls beyond the pool wait as suspended coroutines.
     */
    private val dispatcher = Dispatchers.IO.limitedParallelism(settings.pool, "db")

    private val pool: HikariDataSource? = settings.url?.let { HikariDataSource(hikari(Jdbc.parse(it), settings.pool)) }

    /** The last time the pool could not connect, and why; null once a connection is had again. */
    @Volatile
    private var refused: Refusal? = null

    private class Refusal(val failure: SQLException, val atNanos: Long)

    /** Runs [block] on a pooled connection on the database dispatcher; any SQLException is the 503 of SPEC §8.4. */
    suspend fun <T> withConnection(block: (Connection) -> T): T = withContext(dispatcher) {
        try {
            connection().use(block)
        } catch (e: SQLException) {
            throw unavailable(e)
        }
    }

    /**
     * A connection from the pool, waiting as long as it takes while the
     * database can be reached (connections busy, or being opened). HikariCP's
     * timeout carries the failure of its last attempt to connect as its
     * cause, and clears it when a connection opens: a timeout with a cause
     * means the database is unreachable now.
     *
     * The calls queued on the dispatcher take their turns one pool-full after
     * another, and 2 s each would add up past SPEC §8.4's 5 s; so for 2 s
     * after such a timeout the next calls answer with it at once, and the
     * first after that asks the pool again.
     */
    private fun connection(): Connection {
        val pool = pool ?: throw SQLException("CONCUR_DB_URL is not set")
        while (true) {
            refused?.let { if (System.nanoTime() - it.atNanos < CONNECTION_TIMEOUT.inWholeNanoseconds) throw it.failure }
            try {
                return pool.connection.also { refused = null }
            } catch (timedOut: SQLTransientConnectionException) {
                if (timedOut.cause != null) {
                    refused = Refusal(timedOut, System.nanoTime())
                    throw timedOut
                }
            }
        }
    }

    override fun close() {
        pool?.close()
    }
}

private fun hikari(jdbc: Jdbc, size: Int) = HikariConfig().apply {
    poolName = "concur-db"
    jdbcUrl = jdbc.url
    username = jdbc.user
    password = jdbc.password
    // minimumIdle unset: a fixed-size pool, as HikariCP's documentation recommends.
    maximumPoolSize = size
    connectionTimeout = CONNECTION_TIMEOUT.inWholeMilliseconds
    addDataSourceProperty("loginTimeout", LOGIN_TIMEOUT_SECONDS)
    // Start at once, database or not: the pool fills in the background (SPEC §8.2).
    initializationFailTimeout = -1
}

/** The 503 of SPEC §8.4: the failure and its causes, on one line. */
private fun unavailable(failure: SQLException): HttpError {
    val reason = StringBuilder("database unavailable")
    generateSequence<Throwable>(failure) { it.cause }.mapNotNull { it.message }.forEach { message ->
        if (message !in reason) reason.append(": ").append(message)
    }
    return HttpError(HttpStatusCode.ServiceUnavailable, reason.lines().joinToString(" ") { it.trim() })
}

/** CONCUR_DB_URL in the JDBC driver's terms: pgjdbc takes no user or password in the URL. */
data class Jdbc(val url: String, val user: String, val password: String) {
    override fun toString() = "Jdbc(url=$url, user=$user)"

    companion object {
        fun parse(url: String): Jdbc {
            try {
                val uri = URI(url)
                val login = uri.rawUserInfo?.split(":", limit = 2).orEmpty()
                if (uri.scheme !in setOf("postgres", "postgresql") || uri.host == null || login.size != 2 ||
                    uri.rawPath.length < 2 || uri.rawQuery != null
                ) {
                    throw URISyntaxException(url, "not of that form")
                }
                val port = if (uri.port < 0) 5432 else uri.port
                return Jdbc("jdbc:postgresql://${uri.host}:$port${uri.rawPath}", decode(login[0]), decode(login[1]))
            } catch (e: URISyntaxException) {
                // The URL is not echoed: it holds a password.
                throw ConfigError("CONCUR_DB_URL must be postgres://USER:PASSWORD@HOST:PORT/DATABASE with no query parameters (${e.reason})")
            }
        }

        private fun decode(part: String) = URLDecoder.decode(part.replace("+", "%2B"), Charsets.UTF_8)
    }
}
