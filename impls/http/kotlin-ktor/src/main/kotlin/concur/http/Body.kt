/*
 * Request bodies (SPEC §3.5, §3.6): at most 1 MiB, strict UTF-8, then JSON
 * parsed by kotlinx.serialization into its JsonElement tree. Ktor's
 * `receive<JsonObject>()` would decode the bytes with replacement, turning
 * invalid UTF-8 into U+FFFD, so the bytes go through a REPORTing decoder first.
 */
package concur.http

import io.ktor.http.HttpStatusCode
import io.ktor.server.application.ApplicationCall
import io.ktor.server.request.contentLength
import io.ktor.server.request.receiveChannel
import io.ktor.utils.io.readRemaining
import kotlinx.io.readByteArray
import kotlinx.serialization.SerializationException
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import java.nio.ByteBuffer
import java.nio.charset.CharacterCodingException
import java.nio.charset.CodingErrorAction

const val MAX_BODY: Long = 1L shl 20

/** bcrypt reads at most 72 bytes, and C implementations stop at a NUL: the contract refuses both. */
const val MAX_PASSWORD_BYTES = 72

/** The body of /user/set: a JSON object. */
suspend fun ApplicationCall.receiveUserInfo(): JsonObject =
    receiveJson() as? JsonObject ?: throw HttpError(HttpStatusCode.BadRequest, "user info must be a JSON object")

/** The UTF-8 bytes of the `password` member of a JSON object body. */
suspend fun ApplicationCall.receivePassword(): ByteArray {
    val member = (receiveJson() as? JsonObject)?.get("password") as? JsonPrimitive
    if (member == null || !member.isString) {
        throw HttpError(HttpStatusCode.BadRequest, "body must be a JSON object with a string member \"password\"")
    }
    val password = member.content
    if ('\u0000' in password) throw HttpError(HttpStatusCode.BadRequest, "password must not contain U+0000")
    val bytes = password.toByteArray(Charsets.UTF_8)
    if (bytes.size > MAX_PASSWORD_BYTES) {
        throw HttpError(HttpStatusCode.BadRequest, "password is ${bytes.size} bytes of UTF-8; at most $MAX_PASSWORD_BYTES")
    }
    return bytes
}

private suspend fun ApplicationCall.receiveJson(): JsonElement {
    val text = decodeUtf8(receiveBytes()) ?: throw HttpError(HttpStatusCode.BadRequest, "body is not valid UTF-8")
    return try {
        Json.parseToJsonElement(text)
    } catch (e: SerializationException) {
        throw HttpError(HttpStatusCode.BadRequest, "body is not JSON: ${e.message}")
    }
}

/** The whole body, refused with 413 from Content-Length alone or as soon as it passes [MAX_BODY]. */
private suspend fun ApplicationCall.receiveBytes(): ByteArray {
    val declared = request.contentLength()
    if (declared != null && declared > MAX_BODY) throw tooLarge()
    val body = receiveChannel().readRemaining(MAX_BODY + 1).readByteArray()
    framingError()?.let { throw HttpError(HttpStatusCode.BadRequest, "bad chunked framing: ${it.message}") }
    if (body.size > MAX_BODY) throw tooLarge()
    return body
}

private fun tooLarge() = HttpError(HttpStatusCode.PayloadTooLarge, "body over $MAX_BODY bytes")

private fun decodeUtf8(bytes: ByteArray): String? = try {
    Charsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes))
        .toString()
} catch (e: CharacterCodingException) {
    null
}
