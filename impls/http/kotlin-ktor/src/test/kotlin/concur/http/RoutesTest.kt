package concur.http

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.doubleOrNull
import java.nio.file.Files
import java.util.concurrent.Callable
import java.util.concurrent.Executors
import kotlin.test.Test
import kotlin.test.assertContentEquals
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** SPEC §2: every route, against the real server. */
class RoutesTest {
    private val server = TestServer

    @Test
    fun `hello world as text and as JSON`() {
        val root = server.call("GET", "/")
        assertEquals(200, root.status)
        assertEquals("Hello, World!", root.text)
        assertTrue(root.header("content-type")!!.startsWith("text/plain"))
        val json = server.call("GET", "/json?x=1")
        assertEquals(200, json.status)
        assertEquals("""{"message":"Hello, World!"}""", json.text)
        assertTrue(json.header("content-type")!!.startsWith("application/json"))
    }

    @Test
    fun `page is the file, and every Nth waits without blocking others`() {
        val file = Files.readAllBytes(Path(server.config.pageFile))
        val pool = Executors.newFixedThreadPool(8)
        try {
            // With PAGE_DELAY_EVERY=3, six requests in flight hold exactly two delayed ones.
            val started = System.nanoTime()
            val pages = (1..6).map { pool.submit(Callable { server.call("GET", "/page") to System.nanoTime() }) }
            Thread.sleep(100)
            val root = server.call("GET", "/")
            val rootMs = (System.nanoTime() - started) / 1_000_000
            val done = pages.map { it.get() }
            done.forEach { (r, _) ->
                assertEquals(200, r.status)
                assertEquals("text/html; charset=utf-8", r.header("content-type")!!.lowercase())
                assertContentEquals(file, r.body)
            }
            val slow = done.count { (_, at) -> (at - started) / 1_000_000 >= 550 }
            assertEquals(2, slow, "delayed /page answers")
            assertEquals(200, root.status)
            assertTrue(rootMs < 550, "GET / waited ${rootMs} ms behind the delayed pages")
        } finally {
            pool.shutdown()
        }
    }

    @Test
    fun `password set, verify, wrong, unknown, replace`() {
        val pw = { p: String -> """{"password":"$p"}""".toByteArray() }
        assertEquals(200, server.call("POST", "/password/set/rt_alice", pw("s3cret")).status)
        assertEquals("OK", server.call("POST", "/password/verify/rt_alice", pw("s3cret")).text)
        assertEquals(403, server.call("POST", "/password/verify/rt_alice", pw("nope")).status)
        assertEquals(404, server.call("POST", "/password/verify/rt_nobody", pw("s3cret")).status)
        assertEquals(200, server.call("POST", "/password/set/rt_alice", pw("new")).status)
        assertEquals(403, server.call("POST", "/password/verify/rt_alice", pw("s3cret")).status)
        assertEquals(200, server.call("POST", "/password/verify/rt_alice", pw("new")).status)
    }

    @Test
    fun `user info comes back as the same JSON value, serialized anew`() {
        val value = """{"name":"Zoë","n":[1,2.5,-3e2,9007199254740991],"nested":{"t":true,"f":null},"s":"\u0041\n"}"""
        assertEquals(200, server.call("POST", "/user/set/rt.bob", value.toByteArray()).status)
        val got = server.call("GET", "/user/get/rt.bob")
        assertEquals(200, got.status)
        assertTrue(got.header("content-type")!!.startsWith("application/json"))
        assertSameJson(Json.parseToJsonElement(value), Json.parseToJsonElement(got.text))
        assertEquals(200, server.call("POST", "/user/set/rt.bob", """{"v":2}""".toByteArray()).status)
        assertEquals("""{"v":2}""", server.call("GET", "/user/get/rt.bob").text)
        assertEquals(404, server.call("GET", "/user/get/rt_nobody").status)
    }

    @Test
    fun `200 long polls wait together on timers`() {
        val pool = Executors.newFixedThreadPool(200)
        try {
            val started = System.nanoTime()
            val polls = (1..200).map { pool.submit(Callable { server.call("GET", "/longPoll") }) }
            polls.forEach { assertEquals("OK", it.get().text) }
            val ms = (System.nanoTime() - started) / 1_000_000
            assertTrue(ms >= 400, "answered after $ms ms, before the wait")
            assertTrue(ms < 400 + 3000, "200 long polls of 400 ms took $ms ms")
        } finally {
            pool.shutdown()
        }
    }

    @Test
    fun `fault routes exist only with CONCUR_FAULTS=1, and a bad ms is clamped`() {
        for (path in listOf("/fault/panic", "/fault/spin?ms=1")) assertEquals(404, server.call("GET", path).status, path)
        OwnServer(server.config.copy(faults = true)).use { faulty ->
            for (path in listOf("/fault/spin?ms=x", "/fault/spin?ms=-5", "/fault/spin")) assertEquals("OK", faulty.get(path).text, path)
            val started = System.nanoTime()
            assertEquals("OK", faulty.get("/fault/spin?ms=100").text)
            assertTrue((System.nanoTime() - started) / 1_000_000 >= 100, "the spin answered early")
            assertEquals(500, faulty.get("/fault/panic").status)
            assertEquals(404, faulty.get("/fault/panic/x").status)
            assertEquals("Hello, World!", faulty.get("/").text)
        }
    }

    private fun Path(s: String) = java.nio.file.Path.of(s)

    /** I-JSON equality (SPEC §2): members in any order, numbers by value (`-3e2` is `-300.0`). */
    private fun assertSameJson(want: JsonElement, got: JsonElement) {
        when (want) {
            is JsonObject -> {
                assertEquals(want.keys, (got as JsonObject).keys)
                want.forEach { (k, v) -> assertSameJson(v, got.getValue(k)) }
            }
            is JsonArray -> {
                assertEquals(want.size, (got as JsonArray).size)
                want.zip(got).forEach { (w, g) -> assertSameJson(w, g) }
            }
            is JsonPrimitive -> when (val number = want.doubleOrNull) {
                null -> assertEquals(want, got)
                else -> assertEquals(number, (got as JsonPrimitive).doubleOrNull, "$want vs $got")
            }
        }
    }
}
