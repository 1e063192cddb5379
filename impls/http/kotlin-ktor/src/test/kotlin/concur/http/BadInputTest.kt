package concur.http

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/** SPEC §3: each kind of bad input, its status, and a one-line text/plain reason. */
class BadInputTest {
    private val server = TestServer

    private fun assertError(status: Int, r: Response, what: String) {
        assertEquals(status, r.status, "$what: $r")
        assertTrue(r.header("content-type")!!.startsWith("text/plain"), "$what: ${r.header("content-type")}")
        assertTrue(r.text.isNotEmpty() && '\n' !in r.text, "$what: body '${r.text}'")
    }

    @Test
    fun `unknown paths are 404, bare prefixes too`() {
        for (path in listOf("/nope", "/JSON", "/json/extra", "/user/get", "/password/set", "/user/delete/x")) {
            assertError(404, server.call("GET", path), "GET $path")
        }
        assertError(404, server.call("POST", "/user/get", "{}".toByteArray()), "POST /user/get")
    }

    @Test
    fun `another method is 405 with Allow, before the user name is checked`() {
        val post = server.call("POST", "/json", "{}".toByteArray())
        assertError(405, post, "POST /json")
        assertEquals("GET, HEAD", post.header("allow"))
        val get = server.call("GET", "/password/set/%41")
        assertError(405, get, "GET /password/set/%41")
        assertEquals("POST", get.header("allow"))
        assertError(405, server.call("DELETE", "/user/get/bob"), "DELETE /user/get/bob")
    }

    @Test
    fun `bad user names are 400 on every route, checked on the raw path`() {
        for (name in listOf("", "a/b", "%41", "a%20b", "%C3%BC", "a:b", "a+b", "x".repeat(65))) {
            assertError(400, server.call("GET", "/user/get/$name"), "GET /user/get/$name")
            assertError(400, server.call("POST", "/user/set/$name", "{}".toByteArray()), "user/set $name")
            assertError(400, server.call("POST", "/password/set/$name", """{"password":"x"}""".toByteArray()), "password/set $name")
        }
        assertEquals(404, server.call("GET", "/user/get/" + "x".repeat(64)).status)
    }

    @Test
    fun `bodies over 1 MiB are 413 from Content-Length or while chunked, and 1 MiB is fine`() {
        assertEquals(200, server.call("POST", "/user/set/bi_exact", objectOf(MAX_BODY.toInt())).status)
        assertEquals(MAX_BODY.toInt(), server.call("GET", "/user/get/bi_exact").body.size)
        server.connect().use { conn ->
            // Only the head: the answer must come from Content-Length alone.
            conn.send("POST /user/set/bi_big HTTP/1.1\r\nHost: x\r\nContent-Length: ${MAX_BODY + 1}\r\n\r\n".toByteArray())
            assertError(413, conn.read(), "Content-Length 1 MiB + 1")
        }
        server.connect().use { conn ->
            conn.send("POST /user/set/bi_big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".toByteArray())
            val piece = ByteArray(64 * 1024) { 'a'.code.toByte() }
            repeat(17) { conn.send("10000\r\n".toByteArray() + piece + "\r\n".toByteArray()) }
            assertError(413, conn.read(), "chunked body over 1 MiB")
        }
        assertEquals(404, server.call("GET", "/user/get/bi_big").status)
    }

    @Test
    fun `bodies that are not JSON, not UTF-8 or not the right shape are 400`() {
        for (body in listOf("not json", "{\"password\":", "{'password':'x'}", "{\"password\":\"x\"} trailing", "")) {
            for (route in listOf("password/set", "password/verify", "user/set")) {
                assertError(400, server.call("POST", "/$route/bj_u", body.toByteArray()), "$route with '$body'")
            }
        }
        for (body in listOf("[1]", "\"s\"", "42", "null")) {
            assertError(400, server.call("POST", "/user/set/bj_u", body.toByteArray()), "user/set with $body")
        }
        val notUtf8 = listOf(
            byteArrayOf(0xff.toByte()), byteArrayOf('a'.code.toByte(), 0xc3.toByte()),
            byteArrayOf(0xc0.toByte(), 0x80.toByte()), byteArrayOf(0xed.toByte(), 0xa0.toByte(), 0x80.toByte()),
        )
        for (bad in notUtf8) {
            val body = "{\"name\":\"".toByteArray() + bad + "\"}".toByteArray()
            assertError(400, server.call("POST", "/user/set/bj_u", body), "user/set with ${bad.toList()}")
            val pw = "{\"password\":\"".toByteArray() + bad + "\"}".toByteArray()
            assertError(400, server.call("POST", "/password/set/bj_u", pw), "password/set with ${bad.toList()}")
        }
        assertEquals(404, server.call("GET", "/user/get/bj_u").status)
    }

    @Test
    fun `passwords must be strings of at most 72 bytes without NUL`() {
        val tooLong = "é".repeat(36) + "x"
        for (body in listOf("{}", """{"password":5}""", """{"password":null}""", """["password"]""",
                            """{"password":"nul\u0000byte"}""", """{"password":"$tooLong"}""")) {
            assertError(400, server.call("POST", "/password/set/bp_u", body.toByteArray()), "password/set with $body")
            assertError(400, server.call("POST", "/password/verify/bp_u", body.toByteArray()), "password/verify with $body")
        }
        val max = """{"password":"${"é".repeat(36)}"}""".toByteArray()
        assertEquals(200, server.call("POST", "/password/set/bp_u", max).status)
        assertEquals(200, server.call("POST", "/password/verify/bp_u", max).status)
    }

    @Test
    fun `malformed requests are 400 and the server keeps serving`() {
        val cases = listOf(
            "GARBAGE\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
            "POST /user/set/mr_u HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
        )
        for (bytes in cases) {
            server.connect().use { conn ->
                conn.send(bytes.toByteArray())
                assertEquals(400, conn.read().status, bytes)
            }
            assertEquals(200, server.call("GET", "/").status)
        }
        assertFalse(server.call("GET", "/user/get/mr_u").status == 200)
    }

    @Test
    fun `a chunked body cut by bad framing is refused, not stored as its valid prefix`() {
        server.connect().use { conn ->
            conn.send("POST /user/set/cut_u HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{\"a\":1}\r\nZZ\r\n0\r\n\r\n".toByteArray())
            assertError(400, conn.read(), "a chunked body with a bad second chunk size")
            assertTrue(conn.closedByServer())
        }
        assertEquals(404, server.call("GET", "/user/get/cut_u").status)
    }

    /** A JSON object of exactly [len] bytes. */
    private fun objectOf(len: Int) = ("{\"pad\":\"" + "a".repeat(len - 10) + "\"}").toByteArray()
}
