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
        "CONCUR_PAGE_DELAY_EVERY" -> "3", "CONCUR_PAGE_DELAY_MS" -> "600", "CONCUR_LONGPOLL_MS" -> "2000")
    )
    assertEquals(s.cores, 2)
    assertEquals(s.bcryptCost, 20)
    assertEquals(s.pageFile.toString, "/tmp/p.html")
    assertEquals((s.pageDelayEvery, s.pageDelay, s.longPoll), (3, 600.millis, 2.seconds))
  }

  test("a missing PORT and bad values are refused, naming the variable") {
    assert(intercept[SettingsError](Settings.fromEnv(Map.empty)).getMessage.contains("PORT must be set"))
    val cost = intercept[SettingsError](Settings.fromEnv(Map("PORT" -> "1", "CONCUR_BCRYPT_COST" -> "3")))
    assertEquals(cost.getMessage, "CONCUR_BCRYPT_COST must be an integer from 4 to 31, got '3'")
    intercept[SettingsError](Settings.fromEnv(Map("PORT" -> "1", "CONCUR_CORES" -> "two")))
  }

  test("concur.cores sizes the bcrypt dispatcher; Pekko's dispatchers keep their shipped sizes") {
    val config = Server.config(3)
    assertEquals(config.getInt("concur.bcrypt-dispatcher.thread-pool-executor.fixed-pool-size"), 3)
    assertEquals(config.getInt("pekko.actor.default-dispatcher.fork-join-executor.parallelism-min"), 8)
    assertEquals(config.getInt("pekko.actor.default-dispatcher.fork-join-executor.parallelism-max"), 64)
    assertEquals(config.getInt("pekko.http.server.backlog"), 4096)
    assertEquals(config.getBytes("pekko.http.server.parsing.max-content-length").longValue, 1L << 20)
  }

  test("no connection limit below 65,536 (Pekko's default max-connections of 1024 kept long-poll clients waiting)") {
    assertEquals(Server.config(2).getInt("pekko.http.server.max-connections"), 65536)
  }
}
