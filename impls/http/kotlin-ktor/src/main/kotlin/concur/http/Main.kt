/*
 * The pipeline: read the environment, start the Netty engine, serve until
 * SIGTERM (Ktor's shutdown hook stops the engine, then the JVM exits).
 */
package concur.http

import kotlin.system.exitProcess

fun main() {
    val config = try {
        Config.fromEnv(System::getenv)
    } catch (e: ConfigError) {
        System.err.println("kotlin-ktor: ${e.message}")
        exitProcess(2)
    }
    server(config).start(wait = true)
}
