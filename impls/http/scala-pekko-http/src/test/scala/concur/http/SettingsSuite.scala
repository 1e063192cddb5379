package concur.http

import scala.concurrent.duration._

class SettingsSuite extends munit.FunSuite {
  test("defaults of SPEC §1 when only PORT is set") {
    val s = Settings.fromEnv(Map("PORT" -> "8080"))
    assertEquals(s, Settings(port = 8080))
    assertEquals((s.cores, s.bcryptCost, s.pageDelayEvery, s.pageDelay, s.longPoll), (1, 10, 10, 2.seconds, 5.seconds))
    assert(s.pageFile.endsWith("spec/static/hello.html"), s.pageFile)
  }

  test("every variable is read") {
    val s = Settings.fromEnv(
      Map("PORT" -> "1", "CONCUR_CORES" -> "2", "CONCUR_BCRYPT_COST" -> "20", "CONCUR_PAGE_FILE" -> "/tmp/p.html",
        "CONCUR_PAGE_DELAY_EVERY" -> "3", "CONCUR_PAGE_DELAY_MS" -> "600", "CONCUR_LONGPOLL_MS" -> "2000",
        "CONCUR_FAULTS" -> "1")
    )
    assertEquals(s.cores, 2)
    assertEquals(s.bcryptCost, 20)
    assertEquals(s.pageFile.toString, "/tmp/p.html")
    assertEquals((s.pageDelayEvery, s.pageDelay, s.longPoll), (3, 600.millis, 2.seconds))
    assert(s.faults)
    assert(!Settings.fromEnv(Map("PORT" -> "1", "CONCUR_FAULTS" -> "true")).faults)
  }

  test("a missing PORT and bad values are refused, naming the variable") {
    assert(intercept[SettingsError](Settings.fromEnv(Map.empty)).getMessage.contains("PORT must be set"))
    val cost = intercept[SettingsError](Settings.fromEnv(Map("PORT" -> "1", "CONCUR_BCRYPT_COST" -> "3")))
    assertEquals(cost.getMessage, "CONCUR_BCRYPT_COST must be an integer from 4 to 31, got '3'")
    intercept[SettingsError](Settings.fromEnv(Map("PORT" -> "1", "CONCUR_CORES" -> "two")))
  }

  test("concur.cores sizes the bcrypt dispatcher, concur.db-pool the database one; Pekko's dispatchers keep their shipped sizes") {
    val config = Server.config(3, 5)
    assertEquals(config.getInt("concur.bcrypt-dispatcher.thread-pool-executor.fixed-pool-size"), 3)
    assertEquals(config.getInt("concur.db-dispatcher.thread-pool-executor.fixed-pool-size"), 5)
    assertEquals(config.getInt("pekko.actor.default-dispatcher.fork-join-executor.parallelism-min"), 8)
    assertEquals(config.getInt("pekko.actor.default-dispatcher.fork-join-executor.parallelism-max"), 64)
    assertEquals(config.getInt("pekko.http.server.backlog"), 4096)
    assertEquals(config.getBytes("pekko.http.server.parsing.max-content-length").longValue, 1L << 20)
  }

  test("no connection limit below 65,536 (Pekko's default max-connections of 1024 kept long-poll clients waiting)") {
    assertEquals(Server.config(2, 16).getInt("pekko.http.server.max-connections"), 65536)
  }

  test("the database variables of SPEC §8.2, and their defaults") {
    assertEquals(Settings.fromEnv(Map("PORT" -> "1")).db, DbSettings(None, 16, 20.millis))
    val s = Settings.fromEnv(
      Map("PORT" -> "1", "CONCUR_DB_URL" -> "postgres://concur:p%40ss@127.0.0.1:5433/concur", "CONCUR_DB_POOL" -> "6",
        "CONCUR_DB_SLOW_MS" -> "50")
    )
    assertEquals(s.db, DbSettings(Some("postgres://concur:p%40ss@127.0.0.1:5433/concur"), 6, 50.millis))
    assertEquals(Database.jdbc(s.db.url.get), Database.Jdbc("jdbc:postgresql://127.0.0.1:5433/concur", "concur", "p@ss"))
    assertEquals(Settings.fromEnv(Map("PORT" -> "1", "CONCUR_DB_URL" -> "")).db.url, None)
  }

  test("a malformed CONCUR_DB_URL or CONCUR_DB_POOL is refused at start, without echoing the password") {
    for (url <- Seq("mysql://a:secret@h/db", "postgres://h/db", "postgres://a:secret@h/", "postgres://a:secret@h/db?sslmode=x")) {
      val e = intercept[SettingsError](Settings.fromEnv(Map("PORT" -> "1", "CONCUR_DB_URL" -> url)))
      assert(e.getMessage.startsWith("CONCUR_DB_URL must be postgres://"), e.getMessage)
      assert(!e.getMessage.contains("secret"), e.getMessage)
    }
    val pool = intercept[SettingsError](Settings.fromEnv(Map("PORT" -> "1", "CONCUR_DB_POOL" -> "0")))
    assertEquals(pool.getMessage, "CONCUR_DB_POOL must be an integer from 1 to 10000, got '0'")
  }
}
