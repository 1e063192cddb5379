package concur.http

import spray.json._

import scala.concurrent.duration._
import scala.concurrent.{Await, Future, blocking}
import scala.concurrent.ExecutionContext.Implicits.global

/** SPEC §2, route by route, against a real server. */
class RoutesSuite extends ServerSuite {

  test("GET / is Hello, World! with every header SPEC §4 asks for") {
    val r = call("GET", "/")
    assertEquals((r.status, r.mediaType, r.text), (200, "text/plain", "Hello, World!"))
    for (h <- Seq("content-length", "date", "server")) assert(r.header(h).isDefined, h)
    assert(r.header("server").get.startsWith("pekko-http/"))
  }

  test("without CONCUR_FAULTS=1 the fault routes of SPEC §9 are unknown paths") {
    for (target <- Seq("/fault/panic", "/fault/spin?ms=1")) assertError(call("GET", target), 404, target)
  }

  test("GET /json, and a query string is ignored") {
    for (target <- Seq("/json", "/json?x=1")) {
      val r = call("GET", target)
      assertEquals((r.status, r.mediaType), (200, "application/json"))
      assertEquals(JsonParser(r.text), JsObject("message" -> JsString("Hello, World!")))
    }
  }

  test("GET /page is the file, read anew each time; every 3rd one is delayed") {
    val times = (1 to 6).map { _ =>
      val started = System.nanoTime
      val r = call("GET", "/page")
      assertEquals(r.status, 200)
      assertEquals(r.header("content-type").map(_.toLowerCase.replace(" ", "")), Some("text/html;charset=utf-8"))
      assertEquals(r.text, "<!doctype html><p>h\u00e9llo</p>\n")
      (System.nanoTime - started).nanos
    }
    // The counter is per process and other tests of this suite do not call /page: requests 3 and 6 wait.
    assertEquals(times.map(_ >= 380.millis), Vector(false, false, true, false, false, true))
    java.nio.file.Files.writeString(page, "changed")
    assertEquals(call("GET", "/page").text, "changed")
  }

  test("GET /longPoll answers OK after the wait, and 100 of them wait together") {
    val started = System.nanoTime
    val replies = Await.result(Future.sequence((1 to 100).map(_ => Future(blocking(call("GET", "/longPoll"))))), 20.seconds)
    val took = (System.nanoTime - started).nanos
    replies.foreach(assertOk(_))
    assert(took >= 400.millis && took < 5.seconds, took)
  }

  test("password set, verify 200/403/404, replace") {
    assertOk(call("POST", "/password/set/alice", """{"password":"s3cret"}"""))
    assertOk(call("POST", "/password/verify/alice", """{"password":"s3cret"}"""))
    assertError(call("POST", "/password/verify/alice", """{"password":"wrong"}"""), 403)
    assertError(call("POST", "/password/verify/nobody", """{"password":"s3cret"}"""), 404)
    assertOk(call("POST", "/password/set/alice", """{"password":"new"}"""))
    assertError(call("POST", "/password/verify/alice", """{"password":"s3cret"}"""), 403)
    assertOk(call("POST", "/password/verify/alice", """{"password":"new"}"""))
  }

  test("user set then get returns the same value; replace; unknown is 404") {
    val value = """{"name":"Ada","age":36,"tags":["x","y"],"nested":{"ok":true,"none":null},"u":"h\u00e9llo \u2713","big":9007199254740991}"""
    assertOk(call("POST", "/user/set/A-z_0.9", value))
    val r = call("GET", "/user/get/A-z_0.9")
    assertEquals((r.status, r.mediaType), (200, "application/json"))
    assertEquals(JsonParser(r.text), JsonParser(value))
    assertOk(call("POST", "/user/set/A-z_0.9", """ { "v" : 2 } """))
    assertEquals(call("GET", "/user/get/A-z_0.9").text, """{"v":2}""")
    assertError(call("GET", "/user/get/unknown"), 404)
    val long = "U" * 64
    assertOk(call("POST", s"/user/set/$long", "{}"))
    assertEquals(call("GET", s"/user/get/$long").text, "{}")
  }

  test("concurrent writes to distinct users are all kept") {
    val users = (1 to 50).map(i => s"many_$i")
    Await.result(Future.sequence(users.map(u => Future(blocking(assertOk(call("POST", s"/user/set/$u", s"""{"u":"$u"}""")))))), 20.seconds)
    users.foreach(u => assertEquals(call("GET", s"/user/get/$u").text, s"""{"u":"$u"}"""))
  }
}
