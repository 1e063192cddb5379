/*
 * bcrypt set and verify (SPEC §2), with at.favre.lib:bcrypt. Every hash runs
 * on [bcrypt], a dispatcher that lets at most CONCUR_CORES hashes run at once,
 * never on a Netty event loop; the call's coroutine suspends meanwhile.
 */
package concur.http

import at.favre.lib.crypto.bcrypt.BCrypt
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.withContext
import java.util.concurrent.ConcurrentHashMap

class Passwords(private val cost: Int, private val bcrypt: CoroutineDispatcher) {
    /** user → `$2b$` hash. */
    private val hashes = ConcurrentHashMap<String, ByteArray>()
    private val hasher = BCrypt.with(BCrypt.Version.VERSION_2B)
    private val verifier = BCrypt.verifyer()

    suspend fun set(user: String, password: ByteArray) {
        hashes[user] = withContext(bcrypt) { hasher.hash(cost, password) }
    }

    /**
     * true or false for a user with a password, null for one without: then
     * the password is hashed once anyway, so the 404 takes as long as a real
     * check (thesis, Listing 24).
     */
    suspend fun verify(user: String, password: ByteArray): Boolean? = withContext(bcrypt) {
        val hash = hashes[user]
        if (hash == null) {
            hasher.hash(cost, password)
            null
        } else {
            verifier.verify(password, hash).verified
        }
    }
}
