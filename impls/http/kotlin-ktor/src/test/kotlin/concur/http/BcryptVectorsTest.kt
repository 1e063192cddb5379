package concur.http

import at.favre.lib.crypto.bcrypt.BCrypt
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.boolean
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import java.nio.file.Files
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** spec/bcrypt-vectors.json: every hash checks against its password as the file says. */
class BcryptVectorsTest {
    private val vectors = Json.parseToJsonElement(Files.readString(SPEC_DIR.resolve("bcrypt-vectors.json")))
        .jsonObject.getValue("vectors").jsonArray.map { it.jsonObject }

    @Test
    fun `every vector verifies as the file says`() {
        for (v in vectors) {
            val password = v.getValue("password").jsonPrimitive.content
            val hash = v.getValue("hash").jsonPrimitive.content
            val result = BCrypt.verifyer().verify(password.toByteArray(Charsets.UTF_8), hash.toByteArray())
            assertTrue(result.validFormat, "$hash is not read as bcrypt")
            assertEquals(v.getValue("matches").jsonPrimitive.boolean, result.verified, "$password against $hash")
        }
    }

    @Test
    fun `the vectors hold both 2a and 2b hashes`() {
        val prefixes = vectors.map { it.getValue("hash").jsonPrimitive.content.take(4) }.toSet()
        assertTrue("\$2a\$" in prefixes && "\$2b\$" in prefixes, "prefixes: $prefixes")
    }

    @Test
    fun `a new hash is 2b and verifies, also at 72 bytes`() {
        val password = "é".repeat(36).toByteArray(Charsets.UTF_8)
        val hash = BCrypt.with(BCrypt.Version.VERSION_2B).hash(4, password)
        assertEquals("\$2b\$04\$", String(hash).take(7))
        assertTrue(BCrypt.verifyer().verify(password, hash).verified)
    }
}
