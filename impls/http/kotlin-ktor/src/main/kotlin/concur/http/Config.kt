/*
 * The server's settings (SPEC §1), read once from the environment. A bad
 * value stops the server before it listens, with a sentence naming the
 * variable, so a typo never runs a benchmark on a silently different workload.
 */
package concur.http

import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

/** spec/static/hello.html, seen from this folder, where the orchestrator starts the server. */
const val DEFAULT_PAGE_FILE = "../../../spec/static/hello.html"

data class Config(
    /** PORT; 0 lets the OS choose (the tests). */
    val port: Int,
    /** CONCUR_CORES: sizes Netty's event-loop groups and the bcrypt dispatcher. */
    val cores: Int = 1,
    /** CONCUR_BCRYPT_COST. */
    val bcryptCost: Int = 10,
    /** CONCUR_PAGE_FILE, read from disk on every /page request. */
    val pageFile: String = DEFAULT_PAGE_FILE,
    /** CONCUR_PAGE_DELAY_EVERY: every Nth /page request is delayed. */
    val pageDelayEvery: Long = 10,
    /** CONCUR_PAGE_DELAY_MS. */
    val pageDelay: Duration = 2000.milliseconds,
    /** CONCUR_LONGPOLL_MS. */
    val longPoll: Duration = 5000.milliseconds,
    /** CONCUR_DB_URL, CONCUR_DB_POOL and CONCUR_DB_SLOW_MS (SPEC §8.2). */
    val db: DbSettings = DbSettings(),
    /** CONCUR_FAULTS=1: the fault routes of SPEC §9 exist; any other value leaves them unknown paths. */
    val faults: Boolean = false,
) {
    companion object {
        /** Reads the settings through [getenv] (System.getenv in main, a map in tests). */
        fun fromEnv(getenv: (String) -> String?): Config {
            val port = getenv("PORT")
            if (port.isNullOrEmpty()) throw ConfigError("PORT is not set: give the TCP port to listen on (e.g. PORT=8080)")
            return Config(
                port = integer("PORT", port, 0, 65535),
                cores = integer(getenv, "CONCUR_CORES", 1, 1, 1024),
                bcryptCost = integer(getenv, "CONCUR_BCRYPT_COST", 10, 4, 31),
                pageFile = getenv("CONCUR_PAGE_FILE")?.ifEmpty { null } ?: DEFAULT_PAGE_FILE,
                pageDelayEvery = integer(getenv, "CONCUR_PAGE_DELAY_EVERY", 10, 1, Int.MAX_VALUE).toLong(),
                pageDelay = integer(getenv, "CONCUR_PAGE_DELAY_MS", 2000, 0, Int.MAX_VALUE).milliseconds,
                longPoll = integer(getenv, "CONCUR_LONGPOLL_MS", 5000, 0, Int.MAX_VALUE).milliseconds,
                db = DbSettings(
                    url = getenv("CONCUR_DB_URL")?.ifBlank { null }?.also(Jdbc::parse),
                    pool = integer(getenv, "CONCUR_DB_POOL", 16, 1, 10_000),
                    slow = integer(getenv, "CONCUR_DB_SLOW_MS", 20, 0, 3_600_000).milliseconds,
                ),
                faults = getenv("CONCUR_FAULTS") == "1",
            )
        }

        private fun integer(getenv: (String) -> String?, name: String, default: Int, min: Int, max: Int): Int {
            val raw = getenv(name)
            return if (raw.isNullOrEmpty()) default else integer(name, raw, min, max)
        }

        private fun integer(name: String, raw: String, min: Int, max: Int): Int =
            raw.trim().toIntOrNull()?.takeIf { it in min..max }
                ?: throw ConfigError("$name must be an integer from $min to $max, got '$raw'")
    }
}

/** The database of SPEC §8.2; no [url] means the database routes answer 503. */
data class DbSettings(
    /** CONCUR_DB_URL, `postgres://USER:PASSWORD@HOST:PORT/DATABASE`; null when unset. */
    val url: String? = null,
    /** CONCUR_DB_POOL: the most connections the server holds. */
    val pool: Int = 16,
    /** CONCUR_DB_SLOW_MS: how long the query of /slowdb sleeps in the database. */
    val slow: Duration = 20.milliseconds,
) {
    // The URL holds a password: keep it out of logs and test failures.
    override fun toString() = "DbSettings(url=${if (url == null) "unset" else "set"}, pool=$pool, slow=$slow)"
}

class ConfigError(message: String) : Exception(message)
