package concur.http

import scala.concurrent.duration._

/** SPEC §9 on a server started with CONCUR_FAULTS=1. */
class FaultsSuite extends ServerSuite {
  override def settings: Settings = super.settings.copy(faults = true)

  test("/fault/spin answers OK after ms, and a bad ms is clamped, not an error") {
    for (target <- Seq("/fault/spin?ms=x", "/fault/spin?ms=-5", "/fault/spin?ms=", "/fault/spin")) assertOk(call("GET", target), target)
    val started = System.nanoTime
    assertOk(call("GET", "/fault/spin?ms=100"))
    assert((System.nanoTime - started).nanos >= 100.millis)
  }

  test("/fault/panic is Pekko's default 500, and the server serves on") {
    assertEquals(call("GET", "/fault/panic").status, 500)
    assertEquals(call("GET", "/fault/panic/x").status, 404)
    assertEquals(call("GET", "/").text, "Hello, World!")
  }
}
