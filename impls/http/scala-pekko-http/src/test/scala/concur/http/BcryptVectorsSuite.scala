package concur.http

import at.favre.lib.crypto.bcrypt.BCrypt
import spray.json._

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

/** Every vector of spec/bcrypt-vectors.json ($2a$ and $2b$) verifies as it says with favre bcrypt, the library the
  * server uses, so a hash made by any runtime of Concur verifies here.
  */
class BcryptVectorsSuite extends munit.FunSuite {
  private val vectors: Vector[JsObject] = {
    val file = Paths.get("../../../spec/bcrypt-vectors.json")
    JsonParser(Files.readString(file)).asJsObject.fields("vectors") match {
      case JsArray(items) => items.map(_.asJsObject)
      case other          => fail(s"vectors is not an array: $other")
    }
  }

  test("the vector file has $2a$ and $2b$ hashes, matching and not") {
    val hashes = vectors.map(_.fields("hash").convertTo[String](DefaultJsonProtocol.StringJsonFormat))
    assert(hashes.exists(_.startsWith("$2a$")))
    assert(hashes.exists(_.startsWith("$2b$")))
    assert(vectors.exists(_.fields("matches") == JsTrue))
    assert(vectors.exists(_.fields("matches") == JsFalse))
  }

  vectors.zipWithIndex.foreach { case (v, i) =>
    val JsString(password) = v.fields("password"): @unchecked
    val JsString(hash) = v.fields("hash"): @unchecked
    val JsBoolean(matches) = v.fields("matches"): @unchecked
    test(s"vector $i: ${hash.take(7)} ${if (matches) "matches" else "does not match"}") {
      assertEquals(BCrypt.verifyer().verify(password.getBytes(UTF_8), hash.getBytes(UTF_8)).verified, matches)
    }
  }
}
