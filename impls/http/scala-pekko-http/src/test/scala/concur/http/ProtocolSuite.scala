package concur.http

import java.nio.charset.StandardCharsets.ISO_8859_1

/** SPEC §4 on raw sockets: keep-alive, pipelining, split requests, chunked bodies, 100-continue, HTTP/1.0, HEAD. */
class ProtocolSuite extends ServerSuite {

  private def send(socket: java.net.Socket, s: String): Unit = socket.getOutputStream.write(s.getBytes(ISO_8859_1))

  test("keep-alive: many requests on one connection, then Connection: close closes it") {
    val socket = connect()
    try {
      for (_ <- 1 to 20) {
        send(socket, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assertEquals(read(socket.getInputStream).text, "Hello, World!")
      }
      send(socket, "GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      assertEquals(read(socket.getInputStream).status, 200)
      assertEquals(socket.getInputStream.read(), -1)
    } finally socket.close()
  }

  test("pipelined requests are answered in order, each seeing the one before") {
    val socket = connect()
    try {
      val set = """{"step":1}"""
      send(socket, s"POST /user/set/piped HTTP/1.1\r\nHost: x\r\nContent-Length: ${set.length}\r\n\r\n$set" +
        "GET /user/get/piped HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
      val in = socket.getInputStream
      assertEquals(read(in).text, "OK")
      assertEquals(read(in).text, set)
      assertEquals(read(in).text, "Hello, World!")
    } finally socket.close()
  }

  test("a request sent a byte at a time, with header names in odd case") {
    val socket = connect()
    try {
      socket.setTcpNoDelay(true)
      "GET /json HTTP/1.1\r\nhOsT: x\r\nCONNECTION: keep-alive\r\n\r\n".foreach { c =>
        socket.getOutputStream.write(c.toInt)
        socket.getOutputStream.flush()
      }
      assertEquals(read(socket.getInputStream).status, 200)
    } finally socket.close()
  }

  test("a chunked request body") {
    val socket = connect()
    try {
      send(socket, "POST /user/set/chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n")
      assertOk(read(socket.getInputStream))
    } finally socket.close()
    assertEquals(call("GET", "/user/get/chunked").text, """{"a":1}""")
  }

  test("Expect: 100-continue gets 100 Continue, then the answer") {
    val socket = connect()
    try {
      val body = """{"password":"pw"}"""
      send(socket, s"POST /password/set/cont HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n")
      val first = read(socket.getInputStream)
      assertEquals(first.status, 100)
      send(socket, body)
      assertOk(read(socket.getInputStream))
    } finally socket.close()
  }

  test("HTTP/1.0 without Host is answered with Content-Length, then closed") {
    val socket = connect()
    try {
      send(socket, "GET /page HTTP/1.0\r\n\r\n")
      val r = read(socket.getInputStream)
      assertEquals(r.status, 200)
      assert(r.header("content-length").isDefined && r.header("transfer-encoding").isEmpty, r.headers)
      assertEquals(socket.getInputStream.read(), -1)
    } finally socket.close()
  }

  test("HEAD on a GET route is 405 with Allow (transparent-head-requests is off), and the connection stays usable") {
    val socket = connect()
    try {
      send(socket, "HEAD /json HTTP/1.1\r\nHost: x\r\n\r\n")
      val r = read(socket.getInputStream, head = true)
      assertEquals((r.status, r.header("allow")), (405, Some("GET")))
      send(socket, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
      assertEquals(read(socket.getInputStream).text, "Hello, World!")
    } finally socket.close()
  }

  test("a request target in absolute form is routed by its path") {
    assertEquals(call("GET", s"http://127.0.0.1:$port/json").status, 400) // Host lacks the port: Pekko refuses (README)
    val socket = connect()
    try {
      send(socket, s"GET http://127.0.0.1:$port/user/get/%41 HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n\r\n")
      assertEquals(read(socket.getInputStream).status, 400) // the raw {user} of an absolute target is checked too
    } finally socket.close()
  }

  test("errors carry Content-Length, Content-Type, Date and Server") {
    for (r <- Seq(call("GET", "/nope"), call("DELETE", "/json"), call("GET", "/user/get/%41"), call("POST", "/user/set/x", "[]"))) {
      for (h <- Seq("content-length", "content-type", "date", "server")) assert(r.header(h).isDefined, s"$h in ${r.headers}")
    }
  }
}
