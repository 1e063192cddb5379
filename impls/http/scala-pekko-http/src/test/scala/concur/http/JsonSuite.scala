package concur.http

import org.apache.pekko.util.ByteString
import spray.json._

import scala.util.Try

class JsonSuite extends munit.FunSuite {

  /** The verifier's not-utf8 bodies: a lone FF, a truncated sequence, an overlong NUL, an encoded surrogate, a
    * bad byte in a member name.
    */
  private val notUtf8: Seq[Array[Byte]] = Seq(
    Array[Byte]('{', '"', 'n', '"', ':', '"', 0xff.toByte, '"', '}'),
    Array[Byte]('{', '"', 'n', '"', ':', '"', 'a', 'b', 0xc3.toByte, '"', '}'),
    Array[Byte]('{', '"', 'n', '"', ':', '"', 0xc0.toByte, 0x80.toByte, '"', '}'),
    Array[Byte]('{', '"', 'n', '"', ':', '"', 0xed.toByte, 0xa0.toByte, 0x80.toByte, '"', '}'),
    Array[Byte]('{', '"', 0xfe.toByte, '"', ':', '1', '}')
  )

  test("spray-json alone takes malformed UTF-8 (why Json.parse decodes strictly first)") {
    // spray-json 1.3.6 refuses only the truncated sequence and reads the others with U+FFFD in place.
    val accepted = notUtf8.filter(bytes => Try(JsonParser(ParserInput(bytes))).isSuccess)
    assertEquals(accepted.size, 4, "spray-json changed: if it refuses them all, the strict decode is redundant")
  }

  test("bytes that are not UTF-8 are refused") {
    notUtf8.foreach(bytes => assertEquals(Json.parse(ByteString(bytes)), Left("request body is not valid UTF-8")))
  }

  test("a JSON value is parsed into spray-json's AST, and serializes to the same value") {
    val body = """{"name":"Ada","n":[1,2.5,9007199254740991],"u":"h\u00e9llo \ud83d\ude80","o":{"t":true,"z":null}}"""
    val value = Json.parse(ByteString(body)).toOption.get
    assertEquals(value.asJsObject.fields("name"), JsString("Ada"))
    assertEquals(JsonParser(value.compactPrint), value)
    assertEquals(value.asJsObject.fields("u"), JsString("h\u00e9llo \ud83d\ude80"))
  }

  test("not JSON: one-line reasons") {
    for (body <- Seq("not json", "{\"password\":", "{'password':'x'}", "{\"password\":\"x\"} trailing", "")) {
      val reason = Json.parse(ByteString(body)).left.toOption.getOrElse(fail(s"$body was accepted"))
      assert(reason.startsWith("request body is not JSON") && !reason.contains('\n'), reason)
    }
  }

  test("user bodies must be objects") {
    assert(Json.userObject(JsObject()).isRight)
    for (v <- Seq(JsArray(JsNumber(1)), JsString("s"), JsNumber(42), JsNull, JsTrue)) assert(Json.userObject(v).isLeft, v)
  }

  test("passwords: a string member, at most 72 bytes of UTF-8, no NUL") {
    def pw(json: String) = Json.password(JsonParser(json))
    assertEquals(pw("""{"password":"secret","other":1}"""), Right("secret"))
    assertEquals(pw(s"""{"password":"${"\u00e9" * 36}"}"""), Right("\u00e9" * 36))
    assert(pw(s"""{"password":"${"\u00e9" * 36}x"}""").isLeft)
    assert(pw("{\"password\":\"nul\\u0000byte\"}").isLeft) // the JSON escape, decoded by the parser
    for (body <- Seq("{}", """{"password":5}""", """{"password":null}""", """{"password":["x"]}""", """["password"]""", "\"password\"", """{"PASSWORD":"x"}"""))
      assert(pw(body).isLeft, body)
  }

  test("the raw path of origin-form and absolute-form targets") {
    assertEquals(Routes.rawPath("/user/get/%41?x=1"), "/user/get/%41")
    assertEquals(Routes.rawPath("http://127.0.0.1:8080/user/get/a"), "/user/get/a")
    assertEquals(Routes.rawPath("http://127.0.0.1:8080"), "/")
  }
}
