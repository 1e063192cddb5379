/*
 * The server under test, started once per test JVM on a port the OS picks,
 * with bcrypt cost 4 and short waits, and a raw-socket HTTP/1.1 client, so
 * pipelining, chunked bodies and broken framing go through the real engine.
 */
package concur.http

import kotlinx.coroutines.runBlocking
import java.io.BufferedInputStream
import java.io.ByteArrayOutputStream
import java.io.Closeable
import java.net.Socket
import java.nio.file.Path
import kotlin.time.Duration.Companion.milliseconds

val SPEC_DIR: Path = Path.of(System.getProperty("concur.spec.dir") ?: "../../../spec")

object TestServer {
    val config = Config(
        port = 0,
        cores = 2,
        bcryptCost = 4,
        pageFile = SPEC_DIR.resolve("static/hello.html").toString(),
        pageDelayEvery = 3,
        pageDelay = 600.milliseconds,
        longPoll = 400.milliseconds,
    )

    val port: Int by lazy {
        val server = server(config).start(wait = false)
        runBlocking { server.engine.resolvedConnectors().first().port }
    }

    fun connect() = Conn(port)

    /** One request on a new connection. */
    fun call(method: String, path: String, body: ByteArray = ByteArray(0), headers: List<Pair<String, String>> = emptyList()) =
        call(port, method, path, body, headers)
}

/** A server of a test's own, with other settings than [TestServer]'s; closing it stops it. */
class OwnServer(config: Config) : Closeable {
    private val server = server(config).start(wait = false)
    val port = runBlocking { server.engine.resolvedConnectors().first().port }

    fun get(path: String) = call(port, "GET", path)

    override fun close() = server.stop(100, 1000)
}

/** One request to the server on [port], on a new connection. */
fun call(port: Int, method: String, path: String, body: ByteArray = ByteArray(0), headers: List<Pair<String, String>> = emptyList()) =
    Conn(port).use { it.send(request(method, path, body, headers)); it.read(head = method == "HEAD") }

fun request(method: String, path: String, body: ByteArray = ByteArray(0), headers: List<Pair<String, String>> = emptyList()): ByteArray {
    val head = StringBuilder("$method $path HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    headers.forEach { (name, value) -> head.append("$name: $value\r\n") }
    if (body.isNotEmpty() || method == "POST") head.append("Content-Length: ${body.size}\r\n")
    head.append("\r\n")
    return head.toString().toByteArray() + body
}

class Response(val status: Int, val headers: Map<String, String>, val body: ByteArray) {
    val text get() = body.toString(Charsets.UTF_8)
    fun header(name: String) = headers[name.lowercase()]
    override fun toString() = "$status ${text.take(80)}"
}

class Conn(port: Int) : Closeable {
    private val socket = Socket("127.0.0.1", port).apply { soTimeout = 10_000 }
    private val input = BufferedInputStream(socket.getInputStream())

    fun send(bytes: ByteArray) = socket.getOutputStream().run { write(bytes); flush() }

    /** Reads one response; [head] when it answers a HEAD (no body whatever the headers say). */
    fun read(head: Boolean = false): Response {
        val status = line().split(" ")[1].toInt()
        val headers = generateSequence { line().ifEmpty { null } }
            .associate { it.substringBefore(":").lowercase() to it.substringAfter(":").trim() }
        val body = when {
            head || status == 100 -> ByteArray(0)
            headers["transfer-encoding"]?.contains("chunked") == true -> chunked()
            headers["content-length"] != null -> input.readNBytes(headers.getValue("content-length").toInt())
            else -> input.readAllBytes()
        }
        return Response(status, headers, body)
    }

    /** Every byte until the server closes the connection (a socket timeout throws), as sent. */
    fun untilClosed(): String = input.readAllBytes().toString(Charsets.ISO_8859_1)

    /** True when the server closed the connection (EOF) within the socket timeout. */
    fun closedByServer(timeoutMs: Int = 2000): Boolean {
        socket.soTimeout = timeoutMs
        return try { input.read() == -1 } catch (e: java.net.SocketTimeoutException) { false } catch (e: java.io.IOException) { true }
    }

    private fun chunked(): ByteArray {
        val out = ByteArrayOutputStream()
        while (true) {
            val size = line().substringBefore(";").trim().toInt(16)
            if (size == 0) break
            out.write(input.readNBytes(size))
            line()
        }
        while (line().isNotEmpty()) Unit // trailers
        return out.toByteArray()
    }

    private fun line(): String {
        val out = ByteArrayOutputStream()
        while (true) {
            val b = input.read()
            check(b >= 0) { "connection closed mid-response" }
            if (b == '\n'.code) break
            out.write(b)
        }
        return out.toString(Charsets.ISO_8859_1).removeSuffix("\r")
    }

    override fun close() = socket.close()
}
