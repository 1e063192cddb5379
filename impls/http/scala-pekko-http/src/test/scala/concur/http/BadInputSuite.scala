package concur.http

import java.nio.charset.StandardCharsets.ISO_8859_1

/** SPEC §3: each kind of bad input gets its status and a one-line text/plain reason, in the spec's order. */
class BadInputSuite extends ServerSuite {

  private def objectOf(length: Int): String = "{\"pad\":\"" + "a" * (length - 10) + "\"}"

  test("unknown paths and bare prefixes are 404") {
    for (path <- Seq("/nope", "/JSON", "/json/extra", "/user/get", "/user/delete/x", "/password/setx/a", "/index.html"))
      assertError(call("GET", path), 404, path)
    assertError(call("POST", "/password/reset/x", "{}"), 404)
  }

  test("a known path with another method is 405 with Allow") {
    for ((method, path, allow) <- Seq(("POST", "/", "GET"), ("DELETE", "/json", "GET"), ("PUT", "/page", "GET"),
        ("GET", "/password/set/a", "POST"), ("GET", "/user/set/b", "POST"), ("PATCH", "/user/get/b", "GET"))) {
      val r = call(method, path, if (method == "GET") "" else "{}")
      assertError(r, 405, s"$method $path")
      assertEquals(r.header("allow"), Some(allow), s"$method $path")
    }
  }

  test("a {user} outside [A-Za-z0-9_.-]{1,64}, judged on the raw path, is 400 on every route") {
    for (name <- Seq("", "a/b", "%41", "a%20b", "%C3%BC", "a%2Fb", "a:b", "a@b", "a+b", "a~b", "x" * 65)) {
      assertError(call("POST", s"/password/set/$name", """{"password":"pw"}"""), 400, name)
      assertError(call("POST", s"/password/verify/$name", """{"password":"pw"}"""), 400, name)
      assertError(call("POST", s"/user/set/$name", """{"a":1}"""), 400, name)
      assertError(call("GET", s"/user/get/$name"), 400, name)
    }
  }

  test("a body of exactly 1 MiB is taken, one byte more is 413 (Content-Length and chunked)") {
    assertOk(call("POST", "/user/set/big", objectOf(1 << 20)))
    assertEquals(call("GET", "/user/get/big").body.length, 1 << 20)
    for (path <- Seq("/user/set/big", "/password/set/big")) {
      // Only the head is sent: the answer must come from Content-Length alone.
      val socket = connect()
      try {
        socket.getOutputStream.write(s"POST $path HTTP/1.1\r\nHost: x\r\nContent-Length: ${(1 << 20) + 1}\r\n\r\n{".getBytes(ISO_8859_1))
        assertError(read(socket.getInputStream), 413, path)
      } finally socket.close()
    }
    val socket = connect()
    try {
      val out = socket.getOutputStream
      out.write("POST /user/set/big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(ISO_8859_1))
      val piece = "a" * 65536
      for (_ <- 1 to 17) out.write(s"${Integer.toHexString(piece.length)}\r\n$piece\r\n".getBytes(ISO_8859_1))
      assertError(read(socket.getInputStream), 413, "chunked")
    } finally socket.close()
    assertEquals(call("GET", "/user/get/big").body.length, 1 << 20)
  }

  test("a body that is not JSON is 400 on every POST route") {
    for (body <- Seq("not json", "{\"password\":", "{'password':'x'}", "{\"password\":\"x\"} trailing", ""))
      for (route <- Seq("password/set", "password/verify", "user/set"))
        assertError(call("POST", s"/$route/badjson", body), 400, s"$route $body")
  }

  test("password bodies without a usable password are 400") {
    for (body <- Seq("{}", """{"password":5}""", """{"password":null}""", """["password"]""", "{\"password\":\"nul\\u0000byte\"}",
        s"""{"password":"${"\u00e9" * 36}x"}"""))
      for (route <- Seq("password/set", "password/verify")) assertError(call("POST", s"/$route/badpw", body), 400, body)
  }

  test("user bodies that are JSON but not objects are 400, and nothing is stored") {
    for (body <- Seq("[1,2]", "\"str\"", "42", "null", "true")) assertError(call("POST", "/user/set/badbody", body), 400, body)
    assertError(call("GET", "/user/get/badbody"), 404)
  }

  test("bodies that are not UTF-8 are 400") {
    val ff = Array[Byte]('{', '"', 'n', '"', ':', '"', 0xff.toByte, '"', '}')
    val overlong = Array[Byte]('{', '"', 'n', '"', ':', '"', 0xc0.toByte, 0x80.toByte, '"', '}')
    assertError(call("POST", "/user/set/notutf8", ff), 400)
    assertError(call("POST", "/user/set/notutf8", overlong), 400)
    assertError(call("GET", "/user/get/notutf8"), 404)
    val password = Array[Byte]('{', '"', 'p', 'a', 's', 's', 'w', 'o', 'r', 'd', '"', ':', '"', 0xff.toByte, '"', '}')
    assertError(call("POST", "/password/set/notutf8", password), 400)
  }

  test("malformed requests are 400, and the server keeps serving") {
    for (bytes <- Seq("GARBAGE\r\n\r\n", "GET / EXTRA JUNK HTTP/1.1\r\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
        "POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n")) {
      val socket = connect()
      try {
        socket.getOutputStream.write(bytes.getBytes(ISO_8859_1))
        assertEquals(read(socket.getInputStream).status, 400, bytes)
      } finally socket.close()
      assertEquals(call("GET", "/").status, 200)
    }
  }
}
