package concur.http

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.TestInstance
import java.util.concurrent.Callable
import java.util.concurrent.Executors
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds

val SLOW = 100.milliseconds

/** Each database route once. */
val DB_ROUTES = listOf("/db", "/queries?queries=2", "/updates", "/fortunes", "/slowdb")

/** The rows of a 200 `application/json` answer, each checked to be exactly `{"id","randomNumber"}` in range. */
fun rows(r: Response): List<World> {
    assertEquals(200, r.status, r.text)
    assertEquals("application/json", r.header("content-type")?.substringBefore(';'))
    val json = Json.parseToJsonElement(r.text)
    return (json as? JsonArray ?: listOf(json)).map { row ->
        row as JsonObject
        assertEquals(setOf("id", "randomNumber"), row.keys, r.text)
        val world = World(row.getValue("id").jsonPrimitive.int, row.getValue("randomNumber").jsonPrimitive.int)
        assertTrue(world.id in 1..WORLD_ROWS && world.randomNumber in 1..WORLD_ROWS, r.text)
        world
    }
}

/** SPEC §8.4's answer while the database cannot be reached: 503, one line of text/plain with the reason. */
fun assertGone(r: Response, what: String) {
    assertEquals(503, r.status, "$what: ${r.text}")
    assertTrue(r.header("content-type")!!.startsWith("text/plain"), "$what: ${r.header("content-type")}")
    assertTrue(r.text.startsWith("database unavailable: ") && '\n' !in r.text, "$what: ${r.text}")
}

/** SPEC §8: the database routes against a real PostgreSQL ([TestDatabase]). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatabaseTest {
    private val clients = Executors.newVirtualThreadPerTaskExecutor()
    private var started: OwnServer? = null

    /** Started by the first test; each test without PostgreSQL is skipped here (TestDatabase.url). */
    private val server: OwnServer
        get() = started ?: OwnServer(TestServer.config.copy(db = DbSettings(TestDatabase.url, 4, SLOW))).also { started = it }

    @AfterAll
    fun stop() {
        started?.close()
        clients.shutdown()
    }

    @Test
    fun `db answers one row as stored`() {
        val r = server.get("/db")
        assertTrue(r.text.startsWith("{"), r.text)
        val row = rows(r).single()
        assertEquals(TestDatabase.stored(row.id), row.randomNumber)
    }

    @Test
    fun `queries clamps N and reads the stored rows`() {
        val want = mapOf(
            "" to 1, "?queries=" to 1, "?queries=foo" to 1, "?queries=0" to 1, "?queries=-3" to 1, "?queries=1" to 1,
            "?queries=20" to 20, "?queries=500" to 500, "?queries=501" to 500, "?queries=99999999999" to 1,
        )
        for ((query, n) in want) {
            val r = server.get("/queries$query")
            assertTrue(r.text.startsWith("["), r.text)
            assertEquals(n, rows(r).size, "/queries$query")
        }
        for (row in rows(server.get("/queries?queries=3"))) assertEquals(TestDatabase.stored(row.id), row.randomNumber, "row ${row.id}")
    }

    @Test
    fun `updates write the numbers they return`() {
        val rows = rows(server.get("/updates?queries=20"))
        assertEquals(20, rows.size)
        for (row in rows) {
            val now = TestDatabase.stored(row.id)
            // A row drawn twice keeps one of its two new numbers.
            assertTrue(rows.any { it.id == row.id && it.randomNumber == now }, "row ${row.id} holds $now")
        }
    }

    @Test
    fun `concurrent updates of shared rows do not deadlock`() {
        val server = server // started (or skipped) on the test's thread, not the clients'
        val answers = (1..8).map { clients.submit(Callable { server.get("/updates?queries=500") }) }
        for (answer in answers) assertEquals(500, rows(answer.get()).size)
    }

    @Test
    fun `fortunes is the escaped sorted page`() {
        repeat(2) {
            val r = server.get("/fortunes")
            assertEquals(200, r.status, r.text)
            assertEquals("text/html; charset=utf-8", r.header("content-type")?.lowercase())
            assertEquals(FORTUNES, r.text.replace(Regex(">\\s+<"), "><").trim())
        }
    }

    @Test
    fun `slowdb waits in the query`() {
        val started = System.nanoTime()
        val row = rows(server.get("/slowdb")).single()
        val ms = (System.nanoTime() - started) / 1_000_000
        assertTrue(ms >= SLOW.inWholeMilliseconds, "GET /slowdb took $ms ms, want at least CONCUR_DB_SLOW_MS=$SLOW")
        assertEquals(TestDatabase.stored(row.id), row.randomNumber)
    }

    /** Pool of 2, eight 100 ms queries at once: two at a time, the others suspended until a connection is free, none failing; `/` meanwhile unhindered. */
    @Test
    fun `requests wait for a pooled connection while the event loops serve`() {
        OwnServer(TestServer.config.copy(db = DbSettings(TestDatabase.url, 2, SLOW))).use { small ->
            rows(small.get("/db")) // the pool has opened a connection
            val started = System.nanoTime()
            val answers = (1..8).map { clients.submit(Callable { small.get("/slowdb") to System.nanoTime() }) }
            Thread.sleep(50)
            assertEquals("Hello, World!", small.get("/").text)
            val rootDone = System.nanoTime()
            for ((r, _) in answers.map { it.get() }) assertEquals(1, rows(r).size)
            val lastDone = answers.maxOf { it.get().second }
            val ms = (lastDone - started) / 1_000_000
            assertTrue(ms >= 4 * SLOW.inWholeMilliseconds, "8 slow queries on 2 connections took $ms ms, want at least 4 × $SLOW")
            assertTrue(rootDone < lastDone, "GET / was answered only after the queued database calls")
        }
    }

    @Test
    fun `a database that goes away is 503 within 5 s and is served again when back, without a restart`() {
        val jdbc = java.net.URI(TestDatabase.url)
        Switch(jdbc.host, jdbc.port).use { switch ->
            val url = "postgres://${jdbc.rawUserInfo}@127.0.0.1:${switch.localPort}${jdbc.rawPath}"
            OwnServer(TestServer.config.copy(db = DbSettings(url, 2, SLOW))).use { flaky ->
                rows(flaky.get("/db"))
                switch.on = false
                for (path in DB_ROUTES) {
                    val started = System.nanoTime()
                    val r = flaky.get(path)
                    val ms = (System.nanoTime() - started) / 1_000_000
                    assertGone(r, "$path with the database gone")
                    assertTrue(ms < 5_000, "$path took $ms ms to say the database is gone")
                }
                assertEquals("Hello, World!", flaky.get("/").text)
                switch.on = true
                val deadline = System.nanoTime() + 10_000_000_000
                for (path in DB_ROUTES) {
                    while (flaky.get(path).status != 200) {
                        assertTrue(System.nanoTime() < deadline, "$path still not served 10 s after the database came back")
                        Thread.sleep(100)
                    }
                }
            }
        }
    }

    @Test
    fun `database routes refuse other methods and longer paths`() {
        for (path in listOf("/db", "/queries", "/updates", "/fortunes", "/slowdb")) {
            val r = call(server.port, "POST", path)
            assertEquals(405, r.status, path)
            assertEquals("GET, HEAD", r.header("allow"))
        }
        for (path in listOf("/db/1", "/queries/20", "/fortunes/x", "/slowdb/")) assertEquals(404, server.get(path).status, path)
    }
}

/** SPEC §8.3's page, without the whitespace between tags; kotlinx.html leaves `'` as it is, as SPEC §8.3 allows. */
const val FORTUNES = "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>" +
    "<tr><th>id</th><th>message</th></tr>" +
    "<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>" +
    "<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>" +
    "<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>" +
    "<tr><td>2</td><td>A computer scientist is someone who fixes things that aren't broken.</td></tr>" +
    "<tr><td>8</td><td>A list is only as strong as its weakest link. — Donald Knuth</td></tr>" +
    "<tr><td>0</td><td>Additional fortune added at request time.</td></tr>" +
    "<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>" +
    "<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>" +
    "<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>" +
    "<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen</td></tr>" +
    "<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>" +
    "<tr><td>1</td><td>fortune: No such file or directory</td></tr>" +
    "<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>" +
    "</table></body></html>"
