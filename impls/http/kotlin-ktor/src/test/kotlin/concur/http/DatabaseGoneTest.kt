package concur.http

import java.net.ServerSocket
import java.util.concurrent.Callable
import java.util.concurrent.Executors
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** SPEC §8.4 without PostgreSQL: no CONCUR_DB_URL, or a port where nothing listens. */
class DatabaseGoneTest {
    private fun closedPort() = ServerSocket(0).use { it.localPort }

    @Test
    fun `no database is a prompt 503 and the other routes serve`() {
        for (url in listOf(null, "postgres://u:p@127.0.0.1:${closedPort()}/db")) {
            OwnServer(TestServer.config.copy(db = DbSettings(url, 2, SLOW))).use { down ->
                for (path in DB_ROUTES) {
                    val started = System.nanoTime()
                    val r = down.get(path)
                    val ms = (System.nanoTime() - started) / 1_000_000
                    assertGone(r, "$url $path")
                    assertTrue(ms < 5_000, "$path took $ms ms to say the database is gone")
                }
                assertEquals("Hello, World!", down.get("/").text)
            }
        }
    }

    /**
     * The calls beyond the pool wait on the database dispatcher, and each
     * used to get its own 2 s connection timeout in turn: of twelve calls on
     * a pool of 2, the last waited six turns, past this client's 10 s.
     */
    @Test
    fun `calls queued behind an unreachable database are each 503 within 5 s`() {
        OwnServer(TestServer.config.copy(db = DbSettings("postgres://u:p@127.0.0.1:${closedPort()}/db", 2, SLOW))).use { down ->
            val clients = Executors.newVirtualThreadPerTaskExecutor()
            try {
                val answers = (1..12).map {
                    clients.submit(Callable {
                        val started = System.nanoTime()
                        down.get("/db") to (System.nanoTime() - started) / 1_000_000
                    })
                }
                assertEquals("Hello, World!", down.get("/").text)
                for ((r, ms) in answers.map { it.get() }) {
                    assertGone(r, "GET /db")
                    assertTrue(ms < 5_000, "a queued GET /db took $ms ms to say the database is gone")
                }
            } finally {
                clients.shutdown()
            }
        }
    }

    @Test
    fun `the database url becomes a jdbc url and a login`() {
        assertEquals(Jdbc("jdbc:postgresql://127.0.0.1:5433/concur", "concur", "p@ss"), Jdbc.parse("postgres://concur:p%40ss@127.0.0.1:5433/concur"))
        for (bad in listOf("mysql://a:b@h/db", "postgres://h/db", "postgres://a:b@h:1/", "postgres://a:b@h:1/db?sslmode=off")) {
            val e = runCatching { Jdbc.parse(bad) }.exceptionOrNull()
            assertTrue(e is ConfigError && e.message!!.startsWith("CONCUR_DB_URL must be") && "a:b" !in e.message!!, "$bad: $e")
        }
    }
}
