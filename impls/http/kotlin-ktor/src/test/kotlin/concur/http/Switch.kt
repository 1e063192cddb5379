/*
 * A TCP forwarder between the server under test and PostgreSQL that a test
 * can switch off (every forwarded connection cut, new ones closed at once)
 * and on again: the database going away and coming back, as SPEC §8.4 puts
 * it, without stopping the shared test database.
 */
package concur.http

import java.io.Closeable
import java.io.IOException
import java.net.ServerSocket
import java.net.Socket
import java.util.concurrent.ConcurrentHashMap

class Switch(private val host: String, private val port: Int) : Closeable {
    private val listener = ServerSocket(0)
    private val open = ConcurrentHashMap.newKeySet<Socket>()

    @Volatile
    var on = true
        set(value) {
            field = value
            if (!value) open.forEach(Socket::close)
        }

    val localPort: Int get() = listener.localPort

    init {
        Thread.ofVirtual().start {
            while (!listener.isClosed) {
                val client = try { listener.accept() } catch (e: IOException) { break }
                if (on) forward(client) else client.close()
            }
        }
    }

    private fun forward(client: Socket) {
        val upstream = try { Socket(host, port) } catch (e: IOException) { client.close(); return }
        open += client
        open += upstream
        for ((from, to) in listOf(client to upstream, upstream to client)) {
            Thread.ofVirtual().start {
                try { from.getInputStream().transferTo(to.getOutputStream()) } catch (e: IOException) { }
                from.close()
                to.close()
                open -= from
            }
        }
    }

    override fun close() {
        listener.close()
        on = false
    }
}
