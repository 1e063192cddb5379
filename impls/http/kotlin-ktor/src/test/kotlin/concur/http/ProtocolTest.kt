package concur.http

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

/** SPEC §4: framing, keep-alive, pipelining and the headers of every response. */
class ProtocolTest {
    private val server = TestServer

    @Test
    fun `many requests on one keep-alive connection, each with the four headers`() {
        server.connect().use { conn ->
            repeat(20) { i ->
                conn.send(request("POST", "/user/set/ka_u", """{"i":$i}""".toByteArray()))
                assertEquals(200, conn.read().status)
                conn.send(request("GET", "/user/get/ka_u"))
                val r = conn.read()
                assertEquals("""{"i":$i}""", r.text)
                for (h in listOf("content-length", "content-type", "date", "server")) assertNotNull(r.header(h), "$h on $r")
            }
            conn.send(request("GET", "/nope"))
            val error = conn.read()
            for (h in listOf("content-length", "content-type", "date", "server")) assertNotNull(error.header(h), "$h on $error")
            assertFalse(conn.closedByServer(300))
        }
    }

    @Test
    fun `pipelined requests see the effects of the ones before them`() {
        repeat(10) { i ->
            server.connect().use { conn ->
                val pw = """{"password":"p$i"}""".toByteArray()
                conn.send(
                    request("POST", "/password/set/pipe_$i", pw) + request("POST", "/password/verify/pipe_$i", pw) +
                        request("POST", "/user/set/pipe_$i", """{"i":$i}""".toByteArray()) + request("GET", "/user/get/pipe_$i") +
                        request("GET", "/nope"),
                )
                assertEquals(listOf(200, 200, 200, 200, 404), (1..4).map { conn.read().status } + conn.read().status)
            }
        }
        server.connect().use { conn ->
            conn.send(request("POST", "/user/set/pipe_v", """{"v":1}""".toByteArray()) + request("GET", "/user/get/pipe_v"))
            conn.read()
            assertEquals("""{"v":1}""", conn.read().text)
        }
    }

    @Test
    fun `a request in HTTP 9_9 is answered 505 in HTTP 1_1, not in HTTP 9_9`() {
        server.connect().use { conn ->
            conn.send("GET / HTTP/9.9\r\nHost: x\r\n\r\n".toByteArray())
            // It was "HTTP/9.9 200 OK": Ktor's Netty engine answers in the request's version.
            val answer = conn.untilClosed()
            assertEquals("HTTP/1.1 505 HTTP Version Not Supported", answer.substringBefore("\r\n"), answer)
        }
        assertEquals(200, server.call("GET", "/").status)
    }

    @Test
    fun `Connection close and HTTP 1_0 end the connection`() {
        server.connect().use { conn ->
            conn.send(request("GET", "/", headers = listOf("Connection" to "close")))
            assertEquals(200, conn.read().status)
            assertTrue(conn.closedByServer())
        }
        server.connect().use { conn ->
            conn.send("GET /json HTTP/1.0\r\n\r\n".toByteArray())
            val r = conn.read()
            assertEquals(200, r.status)
            assertEquals(null, r.header("transfer-encoding"))
            assertTrue(conn.closedByServer())
        }
    }

    @Test
    fun `chunked bodies, 100-continue, split requests, absolute form and HEAD`() {
        server.connect().use { conn ->
            conn.send("POST /user/set/pr_c HTTP/1.1\r\nHost: x\r\ntransfer-encoding: chunked\r\n\r\n4;ext=1\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n".toByteArray())
            assertEquals(200, conn.read().status)
        }
        assertEquals("""{"a":1}""", server.call("GET", "/user/get/pr_c").text)

        server.connect().use { conn ->
            conn.send("POST /user/set/pr_e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n".toByteArray())
            val first = conn.read()
            if (first.status == 100) {
                conn.send("""{"e":1}""".toByteArray())
                assertEquals(200, conn.read().status)
            } else {
                assertEquals(200, first.status)
            }
        }

        server.connect().use { conn ->
            request("POST", "/user/set/pr_s", """{"s":1}""".toByteArray()).forEach { conn.send(byteArrayOf(it)) }
            assertEquals(200, conn.read().status)
        }
        assertEquals("""{"s":1}""", server.call("GET", "/user/get/pr_s").text)

        assertEquals(200, server.call("GET", "http://127.0.0.1:${server.port}/json?q").status)

        server.connect().use { conn ->
            conn.send(request("HEAD", "/"))
            val head = conn.read(head = true)
            assertTrue(head.status == 200 || head.status == 405)
            conn.send(request("GET", "/"))
            assertEquals("Hello, World!", conn.read().text)
        }
    }
}
