package concur.http

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.milliseconds

class ConfigTest {
    @Test
    fun `defaults of SPEC section 1`() {
        val config = Config.fromEnv(mapOf("PORT" to "8080")::get)
        assertEquals(Config(port = 8080), config)
        assertEquals(10, config.bcryptCost)
        assertEquals(5000.milliseconds, config.longPoll)
    }

    @Test
    fun `every variable is read`() {
        val env = mapOf(
            "PORT" to "1", "CONCUR_CORES" to "3", "CONCUR_BCRYPT_COST" to "20", "CONCUR_PAGE_FILE" to "/p",
            "CONCUR_PAGE_DELAY_EVERY" to "4", "CONCUR_PAGE_DELAY_MS" to "5", "CONCUR_LONGPOLL_MS" to "6",
            "CONCUR_DB_URL" to "postgres://u:p@h:1/d", "CONCUR_DB_POOL" to "7", "CONCUR_DB_SLOW_MS" to "8",
            "CONCUR_FAULTS" to "1",
        )
        val db = DbSettings("postgres://u:p@h:1/d", 7, 8.milliseconds)
        assertEquals(Config(1, 3, 20, "/p", 4, 5.milliseconds, 6.milliseconds, db, faults = true), Config.fromEnv(env::get))
    }

    @Test
    fun `a bad value names its variable`() {
        val e = assertFailsWith<ConfigError> { Config.fromEnv(mapOf("PORT" to "1", "CONCUR_BCRYPT_COST" to "3")::get) }
        assertTrue(e.message!!.startsWith("CONCUR_BCRYPT_COST must be an integer from 4 to 31"), e.message)
        assertFailsWith<ConfigError> { Config.fromEnv(mapOf<String, String>()::get) }
        val pool = assertFailsWith<ConfigError> { Config.fromEnv(mapOf("PORT" to "1", "CONCUR_DB_POOL" to "0")::get) }
        assertTrue(pool.message!!.startsWith("CONCUR_DB_POOL must be an integer from 1"), pool.message)
        val url = assertFailsWith<ConfigError> { Config.fromEnv(mapOf("PORT" to "1", "CONCUR_DB_URL" to "mysql://a:b@h/d")::get) }
        assertTrue(url.message!!.startsWith("CONCUR_DB_URL must be"), url.message)
    }

    @Test
    fun `without CONCUR_DB_URL the database routes have no database`() {
        assertEquals(DbSettings(null, 16, 20.milliseconds), Config.fromEnv(mapOf("PORT" to "1", "CONCUR_DB_URL" to "")::get).db)
    }
}
