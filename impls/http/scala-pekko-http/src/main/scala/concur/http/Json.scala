package concur.http

import org.apache.pekko.util.ByteString
import spray.json._

import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}

/** Request bodies as spray-json values, and the body rules of SPEC §3.6. Every refusal is a one-line reason. */
object Json {

  /** The message of /json, serialized by spray-json on each request. */
  final case class Message(message: String)

  object Protocol extends DefaultJsonProtocol {
    implicit val messageFormat: RootJsonFormat[Message] = jsonFormat1(Message.apply)
  }

  /** Parses a body into spray-json's AST.
    *
    * spray-json reads a byte array as UTF-8 on its own and turns malformed sequences (a lone FF, the overlong
    * `C0 80`, an encoded surrogate) into U+FFFD; RFC 8259 §8.1 says such bytes are not JSON. So the JDK's decoder,
    * which reports malformed input instead of replacing it, turns the bytes into a String first, and spray-json
    * parses that (JsonSuite pins spray-json's own behaviour).
    */
  def parse(body: ByteString): Either[String, JsValue] = {
    val decoder = StandardCharsets.UTF_8
      .newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT)
      .onUnmappableCharacter(CodingErrorAction.REPORT)
    try Right(JsonParser(decoder.decode(body.asByteBuffer).toString))
    catch {
      case _: CharacterCodingException => Left("request body is not valid UTF-8")
      case e: JsonParser.ParsingException => Left(s"request body is not JSON: ${e.summary}")
    }
  }

  /** /user/set takes any JSON object. */
  def userObject(value: JsValue): Either[String, JsObject] = value match {
    case obj: JsObject => Right(obj)
    case _             => Left("request body must be a JSON object")
  }

  /** bcrypt reads at most 72 bytes and stops at a NUL, and libraries differ in how: the contract refuses both. */
  val MaxPasswordBytes = 72

  /** The string member `password` of /password/set and /password/verify. */
  def password(value: JsValue): Either[String, String] = value match {
    case JsObject(fields) =>
      fields.get("password") match {
        case Some(JsString(pw)) if pw.getBytes(StandardCharsets.UTF_8).length > MaxPasswordBytes =>
          Left(s"password must be at most $MaxPasswordBytes bytes of UTF-8")
        case Some(JsString(pw)) if pw.contains('\u0000') => Left("password must not contain U+0000")
        case Some(JsString(pw))                            => Right(pw)
        case _ => Left("request body must be a JSON object with a string member \"password\"")
      }
    case _ => Left("request body must be a JSON object with a string member \"password\"")
  }
}
