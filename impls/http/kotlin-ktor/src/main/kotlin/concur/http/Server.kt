/*
 * The engine: Ktor's Netty engine on 127.0.0.1:$PORT, its event-loop groups
 * sized from CONCUR_CORES, and the listen backlog of SPEC §1.
 */
package concur.http

import io.ktor.server.engine.EmbeddedServer
import io.ktor.server.engine.connector
import io.ktor.server.engine.embeddedServer
import io.ktor.server.netty.Netty
import io.ktor.server.netty.NettyApplicationEngine
import io.netty.channel.ChannelOption

/** SPEC §1: at least 4096 (the kernel still caps it at net.core.somaxconn). */
const val LISTEN_BACKLOG = 4096

fun server(config: Config): EmbeddedServer<NettyApplicationEngine, NettyApplicationEngine.Configuration> =
    embeddedServer(Netty, configure = { tune(config) }) { concur(config) }

private fun NettyApplicationEngine.Configuration.tune(config: Config) {
    connector {
        host = "127.0.0.1"
        port = config.port
    }
    // One listening socket is served by one event loop, so more accept threads would idle.
    connectionGroupSize = 1
    // One event loop per core reads, writes and (in Ktor 3.4.3, for HTTP/1.1)
    // runs the calls' coroutines of the connections it owns. The call group is
    // what later Ktor versions and HTTP/2 run calls on; 3.4.3 leaves it unused.
    workerGroupSize = config.cores
    callGroupSize = config.cores
    configureBootstrap = { option(ChannelOption.SO_BACKLOG, LISTEN_BACKLOG) }
    channelPipelineConfig = {
        addBefore("http1", "unknown-version", UnknownVersion)
        addBefore("http1", "origin-form", OriginForm)
        addBefore("http1", "broken-body", BrokenBody)
    }
    // Ktor's shutdown hook calls stop(): 0.2 s of quiet for calls in flight, 1 s in all.
    shutdownGracePeriod = 200
    shutdownTimeout = 1000
}
