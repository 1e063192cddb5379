package concur.http

import org.apache.pekko.actor.typed.ActorSystem

import java.io.{ByteArrayOutputStream, InputStream}
import java.net.{InetSocketAddress, Socket}
import java.nio.charset.StandardCharsets.{ISO_8859_1, UTF_8}
import java.nio.file.{Files, Path}
import scala.concurrent.Await
import scala.concurrent.duration._

/** A response as read off the socket: status, headers with lower-case names, body bytes. */
final case class Reply(status: Int, headers: Map[String, String], body: Array[Byte]) {
  def text: String = new String(body, UTF_8)
  def header(name: String): Option[String] = headers.get(name.toLowerCase)
  def mediaType: String = header("content-type").getOrElse("").takeWhile(_ != ';').trim
}

/** A real server on a port the OS chooses, with a cheap bcrypt cost and short waits, for one suite. */
abstract class ServerSuite extends munit.FunSuite {
  override val munitTimeout: Duration = 60.seconds

  val page: Path = {
    val file = Files.createTempFile("concur-page", ".html")
    file.toFile.deleteOnExit()
    Files.writeString(file, "<!doctype html><p>h\u00e9llo</p>\n")
  }

  def settings: Settings =
    Settings(port = 0, bcryptCost = 4, pageFile = page, pageDelayEvery = 3, pageDelay = 400.millis, longPoll = 400.millis)

  private var system: ActorSystem[Nothing] = _
  var port: Int = 0

  override def beforeAll(): Unit = {
    val (sys, bound) = Server.start(settings)
    system = sys
    port = Await.result(bound, 30.seconds).localAddress.getPort
  }

  override def afterAll(): Unit = {
    system.terminate()
    Await.ready(system.whenTerminated, 30.seconds)
  }

  def connect(): Socket = {
    val socket = new Socket()
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5000)
    socket.setSoTimeout(10000)
    socket
  }

  /** One request on a new connection, with Content-Length when there is a body. */
  def call(method: String, target: String, body: Array[Byte] = Array.emptyByteArray): Reply = {
    val socket = connect()
    try {
      val length = if (body.nonEmpty || method == "POST") s"Content-Length: ${body.length}\r\n" else ""
      socket.getOutputStream.write(s"$method $target HTTP/1.1\r\nHost: 127.0.0.1\r\n$length\r\n".getBytes(ISO_8859_1) ++ body)
      read(socket.getInputStream, head = method == "HEAD")
    } finally socket.close()
  }

  def call(method: String, target: String, body: String): Reply = call(method, target, body.getBytes(UTF_8))

  /** Reads one response framed by Content-Length or chunked encoding (or, without either, by the close). */
  def read(in: InputStream, head: Boolean = false): Reply = {
    val statusLine = line(in)
    val status = statusLine.split(" ")(1).toInt
    val headers = Iterator.continually(line(in)).takeWhile(_.nonEmpty).map { h =>
      val i = h.indexOf(':')
      h.substring(0, i).trim.toLowerCase -> h.substring(i + 1).trim
    }.toMap
    val body =
      if (head || status == 100) Array.emptyByteArray
      else if (headers.get("transfer-encoding").contains("chunked")) {
        val out = new ByteArrayOutputStream
        var size = Integer.parseInt(line(in).trim, 16)
        while (size > 0) {
          out.write(in.readNBytes(size))
          line(in)
          size = Integer.parseInt(line(in).trim, 16)
        }
        line(in)
        out.toByteArray
      } else headers.get("content-length").map(n => in.readNBytes(n.toInt)).getOrElse(in.readAllBytes())
    Reply(status, headers, body)
  }

  private def line(in: InputStream): String = {
    val out = new ByteArrayOutputStream
    var b = in.read()
    while (b != '\n' && b != -1) {
      if (b != '\r') out.write(b)
      b = in.read()
    }
    new String(out.toByteArray, ISO_8859_1)
  }

  /** A 200 text/plain "OK". */
  def assertOk(r: Reply, clue: String = ""): Unit = {
    assertEquals(r.status, 200, s"$clue: ${r.text}")
    assertEquals(r.mediaType, "text/plain", clue)
    assertEquals(r.text, "OK", clue)
  }

  /** An error: the status, one non-empty line of text/plain. */
  def assertError(r: Reply, status: Int, clue: String = ""): Unit = {
    assertEquals(r.status, status, s"$clue: ${r.text}")
    assertEquals(r.mediaType, "text/plain", clue)
    assert(r.text.trim.nonEmpty && !r.text.trim.contains('\n'), s"$clue: want one line, got ${r.text}")
  }
}
