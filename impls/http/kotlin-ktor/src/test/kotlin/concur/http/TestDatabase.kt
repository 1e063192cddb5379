/*
 * The PostgreSQL of the database tests, seeded as SPEC §8.1 says: the one
 * CONCUR_DB_URL names (`concur test` gives it), else one that `concur db`
 * starts now and that ends with this JVM. `setpriv --pdeathsig` sends
 * `concur db` SIGINT when the thread that started it ends (surefire's main
 * thread, which lives as long as the JVM), so no database outlives the
 * tests, even after a kill -9. Where PostgreSQL is not installed at all the
 * tests that need it are skipped, saying so; anything else that keeps the
 * database from starting fails them.
 */
package concur.http

import org.junit.jupiter.api.Assumptions
import java.io.File
import java.io.FileDescriptor
import java.io.FileOutputStream
import java.io.PrintStream
import java.nio.file.Files
import java.nio.file.Path
import java.sql.Connection
import java.sql.DriverManager
import java.util.concurrent.TimeUnit

object TestDatabase {
    private var concurDb: Process? = null
    private var told = false

    private val started: Result<String> by lazy {
        System.getenv("CONCUR_DB_URL")?.ifBlank { null }?.let { return@lazy Result.success(it) }
        absence()?.let { return@lazy Result.failure(Absent(it)) }
        Result.success(start())
    }

    private class Absent(reason: String) : Exception(reason)

    /** CONCUR_DB_URL of the test database; skips the calling test where PostgreSQL is not installed. */
    val url: String
        get() {
            started.exceptionOrNull()?.let { absent ->
                if (!told) {
                    told = true
                    // The JVM's own stderr: surefire files System.err away (redirectTestOutputToFile), even with -q.
                    PrintStream(FileOutputStream(FileDescriptor.err), true).println("kotlin-ktor: database tests skipped: ${absent.message}")
                }
                Assumptions.abort<Unit>(absent.message)
            }
            return started.getOrThrow()
        }

    /**
     * Why PostgreSQL cannot be started here, or null: `concur db` looks for
     * Debian's `/usr/lib/postgresql/<major>/bin`, then PATH.
     */
    private fun absence(): String? {
        val debian = File("/usr/lib/postgresql").listFiles().orEmpty().map { it.resolve("bin") }
        val onPath = System.getenv("PATH").orEmpty().split(File.pathSeparator).map(::File)
        val found = (debian + onPath).any { it.resolve("postgres").isFile && it.resolve("initdb").isFile }
        return if (found) null else "PostgreSQL is not installed (apt-get install postgresql-15, or scripts/setup.sh) and CONCUR_DB_URL is not set"
    }

    private fun start(): String {
        val built = Path.of("../../../target/release/concur").toAbsolutePath().normalize()
        val concur = if (Files.isExecutable(built)) built.toString() else "concur"
        val process = ProcessBuilder("setpriv", "--pdeathsig", "SIGINT", concur, "db")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start()
        concurDb = process
        // SIGINT is how `concur db` is told to stop its database and clean up.
        Runtime.getRuntime().addShutdownHook(Thread(::stop))
        val line = process.inputStream.bufferedReader().readLine()
        check(line != null && line.startsWith("CONCUR_DB_URL=")) {
            "$concur db printed '$line' instead of CONCUR_DB_URL=…: cargo build --release, or export the CONCUR_DB_URL of a running `concur db`"
        }
        return line.removePrefix("CONCUR_DB_URL=").trim()
    }

    private fun stop() {
        val process = concurDb ?: return
        try {
            ProcessBuilder("kill", "-INT", process.pid().toString()).start().waitFor()
            process.waitFor(20, TimeUnit.SECONDS)
        } catch (e: Exception) {
            process.destroyForcibly()
        }
    }

    /** A connection of the test's own, to read what the server wrote. */
    fun connect(): Connection {
        val jdbc = Jdbc.parse(url)
        return DriverManager.getConnection(jdbc.url, jdbc.user, jdbc.password)
    }

    /** The stored number of row [id]. */
    fun stored(id: Int): Int = connect().use { c ->
        c.prepareStatement("SELECT randomnumber FROM world WHERE id = ?").use { s ->
            s.setInt(1, id)
            s.executeQuery().use { rs ->
                check(rs.next()) { "world has no row $id" }
                rs.getInt(1)
            }
        }
    }
}
