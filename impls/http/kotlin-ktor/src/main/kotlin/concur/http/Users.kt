/*
 * The user-info store (SPEC §2): the JsonObject that kotlinx.serialization
 * parsed from the body, kept as that value; /user/get serializes it anew
 * (ContentNegotiation) on every request.
 */
package concur.http

import kotlinx.serialization.json.JsonObject
import java.util.concurrent.ConcurrentHashMap

class Users {
    private val values = ConcurrentHashMap<String, JsonObject>()

    fun set(user: String, info: JsonObject) {
        values[user] = info
    }

    fun get(user: String): JsonObject? = values[user]
}
