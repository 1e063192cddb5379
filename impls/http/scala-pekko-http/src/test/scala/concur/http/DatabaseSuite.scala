package concur.http

import spray.json._

import java.net.{ServerSocket, URI}
import scala.concurrent.ExecutionContext.Implicits.global
import scala.concurrent.duration._
import scala.concurrent.{Await, Future, blocking}

/** A server whose database routes reach `url` with a pool of `pool` and a /slowdb of `slow`. The tests that need
  * PostgreSQL call [[needsDatabase]], which skips them where it is not installed ([[TestDatabase.skipped]]).
  */
abstract class DatabaseServerSuite(url: => Option[String], pool: Int, val slow: FiniteDuration) extends ServerSuite {
  override def settings: Settings = super.settings.copy(db = DbSettings(url, pool, slow))

  def needsDatabase(): Unit = assume(TestDatabase.skipped.isEmpty, TestDatabase.skipped.getOrElse(""))

  /** The rows of a 200 `application/json` answer, each `{"id","randomNumber"}` in range. */
  def rows(r: Reply, clue: String = ""): Vector[(Int, Int)] = {
    assertEquals((r.status, r.mediaType), (200, "application/json"), s"$clue: ${r.text}")
    val json = JsonParser(r.text)
    val items = json match {
      case JsArray(items) => items
      case row            => Vector(row)
    }
    items.map {
      case JsObject(fields) if fields.keySet == Set("id", "randomNumber") =>
        (fields("id"), fields("randomNumber")) match {
          case (JsNumber(id), JsNumber(n)) if id >= 1 && id <= 10000 && n >= 1 && n <= 10000 => (id.toInt, n.toInt)
          case _                                                                            => fail(s"$clue: not a row in range: ${r.text}")
        }
      case other => fail(s"$clue: not a row {id, randomNumber}: $other")
    }
  }

  /** `n` requests to `target` at once, each on its own connection. */
  def together(n: Int, target: String): Vector[Reply] =
    Await.result(Future.sequence(Vector.fill(n)(Future(blocking(call("GET", target))))), 50.seconds)
}

object DatabaseServerSuite {
  def realDatabase: Option[String] = TestDatabase.url.toOption
}

/** SPEC §8.3 against a real PostgreSQL ([[TestDatabase]]). */
class DatabaseSuite extends DatabaseServerSuite(DatabaseServerSuite.realDatabase, 4, 100.millis) {

  test("GET /db is one row as the database holds it") {
    needsDatabase()
    val r = call("GET", "/db")
    assert(r.text.startsWith("{"), r.text)
    val (id, n) = rows(r).head
    assertEquals(TestDatabase.stored(id), n)
  }

  test("GET /queries clamps N and reads the stored rows") {
    needsDatabase()
    val want = Seq("" -> 1, "?queries=" -> 1, "?queries=foo" -> 1, "?queries=0" -> 1, "?queries=-3" -> 1,
      "?queries=1" -> 1, "?queries=20" -> 20, "?queries=500" -> 500, "?queries=501" -> 500, "?queries=99999999999" -> 1)
    for ((query, n) <- want) {
      val r = call("GET", s"/queries$query")
      assert(r.text.startsWith("["), s"$query: ${r.text}")
      assertEquals(rows(r, query).size, n, query)
    }
    for ((id, n) <- rows(call("GET", "/queries?queries=3"))) assertEquals(TestDatabase.stored(id), n, s"row $id")
  }

  test("GET /updates writes the numbers it returns") {
    needsDatabase()
    val answered = rows(call("GET", "/updates?queries=20"))
    assertEquals(answered.size, 20)
    for ((id, _) <- answered) {
      val now = TestDatabase.stored(id)
      // A row drawn twice keeps one of its two new numbers.
      assert(answered.contains((id, now)), s"row $id holds $now, answered $answered")
    }
  }

  test("concurrent /updates of shared rows do not deadlock") {
    needsDatabase()
    together(8, "/updates?queries=500").foreach(r => assertEquals(rows(r).size, 500))
  }

  test("GET /fortunes is the escaped, sorted page, with the added fortune on every request") {
    needsDatabase()
    val want = Seq(
      11 -> "&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;",
      4 -> "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1",
      5 -> "A computer program does what you tell it to do, not what you want it to do.",
      2 -> "A computer scientist is someone who fixes things that aren&#39;t broken.",
      8 -> "A list is only as strong as its weakest link. — Donald Knuth",
      0 -> "Additional fortune added at request time.",
      3 -> "After enough decimal places, nobody gives a damn.",
      7 -> "Any program that runs right is obsolete.",
      10 -> "Computers make very fast, very accurate mistakes.",
      6 -> "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen",
      9 -> "Feature: A bug with seniority.",
      1 -> "fortune: No such file or directory",
      12 -> "フレームワークのベンチマーク"
    ).map { case (id, message) => s"<tr><td>$id</td><td>$message</td></tr>\n" }
    // java-jetty's template (templates/fortunes.mustache), byte for byte: its line breaks, mustache.java's escapes.
    val page = "<!DOCTYPE html>\n<html>\n<head><title>Fortunes</title></head>\n<body>\n<table>\n" +
      "<tr><th>id</th><th>message</th></tr>\n" + want.mkString + "</table>\n</body>\n</html>\n"
    for (_ <- 1 to 2) {
      val r = call("GET", "/fortunes")
      assertEquals((r.status, r.header("content-type")), (200, Some("text/html; charset=UTF-8")), r.text)
      assertEquals(r.text, page)
    }
  }

  test("GET /slowdb waits in the query, CONCUR_DB_SLOW_MS") {
    needsDatabase()
    val started = System.nanoTime
    val (id, n) = rows(call("GET", "/slowdb")).head
    assert((System.nanoTime - started).nanos >= slow, s"GET /slowdb took ${(System.nanoTime - started) / 1000000} ms")
    assertEquals(TestDatabase.stored(id), n)
  }

  test("the database routes refuse other methods (405, Allow) and longer paths (404)") {
    for (path <- Seq("/db", "/queries", "/updates", "/fortunes", "/slowdb")) {
      val r = call("POST", path)
      assertError(r, 405, path)
      assertEquals(r.header("allow"), Some("GET"), path)
    }
    for (path <- Seq("/db/1", "/queries/20", "/fortunes/x", "/slowdb/")) assertError(call("GET", path), 404, path)
  }
}

/** A pool of 2: eight slow queries at once run two at a time, the others wait for a thread of the database
  * dispatcher (and so a connection), none fails; `/` is answered meanwhile, since the dispatcher that serves the
  * connections never blocks.
  */
class DatabasePoolSuite extends DatabaseServerSuite(DatabaseServerSuite.realDatabase, 2, 200.millis) {

  test("requests wait for a pooled connection while / is served") {
    needsDatabase()
    rows(call("GET", "/db")) // the pool has opened a connection
    val started = System.nanoTime
    val slowOnes = Future(together(8, "/slowdb"))
    Thread.sleep(50) // the eight are in: two hold the connections, six wait in the dispatcher's queue
    assertEquals(call("GET", "/").text, "Hello, World!")
    val helloAt = (System.nanoTime - started).nanos
    Await.result(slowOnes, 50.seconds).foreach(r => assertEquals(rows(r).size, 1))
    val tookAll = (System.nanoTime - started).nanos
    assert(tookAll >= slow * 4, s"8 slow queries on 2 connections took ${tookAll.toMillis} ms, want at least 4 × $slow")
    assert(helloAt < tookAll, s"GET / took ${helloAt.toMillis} ms, as long as the 8 slow queries: it waited for them")
  }
}

/** SPEC §8.4: with the database out of reach each route is a 503 with a one-line reason within 5 s, and `/` serves. */
abstract class UnreachableDatabaseSuite(url: => Option[String]) extends DatabaseServerSuite(url, 2, 100.millis) {
  def needs: Boolean = false

  test("every database route is a prompt 503 with a reason, and / still serves") {
    if (needs) needsDatabase()
    for (path <- Seq("/db", "/queries?queries=2", "/updates", "/fortunes", "/slowdb")) {
      val started = System.nanoTime
      val r = call("GET", path)
      val took = (System.nanoTime - started).nanos
      assertError(r, 503, path)
      assert(r.text.startsWith("database unavailable"), r.text)
      assert(took < 5.seconds, s"GET $path took ${took.toMillis} ms to say the database is gone")
      assertEquals(call("GET", "/").text, "Hello, World!")
    }
  }

  test("a burst while the database is gone is all 503 within 5 s (they drained 2 per 2 s, the last after 12 s)") {
    if (needs) needsDatabase()
    val started = System.nanoTime
    val replies = together(12, "/db")
    val took = (System.nanoTime - started).nanos
    replies.foreach(assertError(_, 503, "GET /db"))
    assert(took < 5.seconds, s"12 GET /db at once on 2 database threads took ${took.toMillis} ms to be told the database is gone")
  }
}

object UnreachableDatabaseSuite {

  /** A port nothing listens on: one the OS gave and took back. */
  def closedPort: Int = {
    val socket = new ServerSocket(0)
    try socket.getLocalPort
    finally socket.close()
  }
}

class NoDatabaseUrlSuite extends UnreachableDatabaseSuite(None)

class RefusedConnectionSuite extends UnreachableDatabaseSuite(Some(s"postgres://u:p@127.0.0.1:${UnreachableDatabaseSuite.closedPort}/db"))

/** A refused login: the real database, a wrong password. */
class RefusedLoginSuite
    extends UnreachableDatabaseSuite(DatabaseServerSuite.realDatabase.map { url =>
      val uri = new URI(url)
      s"postgres://${uri.getRawUserInfo.takeWhile(_ != ':')}:wrong-password@${uri.getHost}:${uri.getPort}${uri.getRawPath}"
    }) {
  override def needs: Boolean = true
}

/** SPEC §8.4: when the database is back the routes answer again, without a restart. The server reaches the real
  * database through a port where, at first, nothing listens; then a TCP relay to PostgreSQL opens on it.
  */
class DatabaseBackSuite
    extends DatabaseServerSuite(DatabaseServerSuite.realDatabase.map(DatabaseBackSuite.throughPort), 2, 100.millis) {

  test("the routes answer again once the database can be reached (the pool reconnects, the breaker closes)") {
    needsDatabase()
    assertError(call("GET", "/db"), 503, "GET /db with nothing on the port")
    val relay = new Relay(DatabaseBackSuite.port, new URI(TestDatabase.url.toOption.get))
    try {
      val deadline = System.nanoTime + 10.seconds.toNanos
      var last = call("GET", "/db")
      while (last.status != 200 && System.nanoTime < deadline) {
        Thread.sleep(100)
        last = call("GET", "/db")
      }
      assertEquals(last.status, 200, s"GET /db 10 s after the database came back: ${last.text}")
      for (path <- Seq("/queries?queries=2", "/updates?queries=2", "/fortunes", "/slowdb"))
        assertEquals(call("GET", path).status, 200, path)
    } finally relay.close()
  }
}

object DatabaseBackSuite {
  lazy val port: Int = UnreachableDatabaseSuite.closedPort

  /** `url` with its host and port replaced by 127.0.0.1:[[port]]. */
  def throughPort(url: String): String = {
    val uri = new URI(url)
    s"postgres://${uri.getRawUserInfo}@127.0.0.1:$port${uri.getRawPath}"
  }
}

/** A TCP relay from 127.0.0.1:`port` to the host and port of `to`, one pair of copying threads per connection. */
final class Relay(port: Int, to: URI) extends AutoCloseable {
  private val server = new ServerSocket()
  server.setReuseAddress(true)
  server.bind(new java.net.InetSocketAddress("127.0.0.1", port))
  private val sockets = java.util.concurrent.ConcurrentHashMap.newKeySet[java.net.Socket]()

  private def daemon(body: => Unit): Unit = {
    val t = new Thread(() => try body catch { case _: java.io.IOException => () })
    t.setDaemon(true)
    t.start()
  }

  daemon {
    while (true) {
      val client = server.accept()
      val upstream = new java.net.Socket(to.getHost, to.getPort)
      sockets.add(client); sockets.add(upstream)
      daemon(client.getInputStream.transferTo(upstream.getOutputStream))
      daemon(upstream.getInputStream.transferTo(client.getOutputStream))
    }
  }

  override def close(): Unit = {
    server.close()
    sockets.forEach(_.close())
  }
}
