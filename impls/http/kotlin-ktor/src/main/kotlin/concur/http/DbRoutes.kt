/*
 * The five routes of SPEC §8.3 in plain JDBC: each call takes one connection
 * from [Database] and runs its statements on it one after another, on the
 * database dispatcher; the call's coroutine is suspended meanwhile and
 * resumes on its event loop to respond. Every statement is a
 * PreparedStatement; pgjdbc makes it a named server-side one from its fifth
 * use on a connection (its default `prepareThreshold=5`).
 */
package concur.http

import io.ktor.server.application.ApplicationCall
import io.ktor.server.response.respond
import kotlinx.serialization.Serializable
import java.sql.Connection
import java.sql.PreparedStatement
import java.sql.SQLException
import java.util.concurrent.ThreadLocalRandom
import kotlin.time.Duration

/** A row of `world`, serialized as `{"id":…,"randomNumber":…}`. */
@Serializable
data class World(val id: Int, val randomNumber: Int)

const val WORLD_ROWS = 10_000
private const val SELECT_ROW = "SELECT id, randomnumber FROM world WHERE id = ?"
private const val UPDATE_ROWS =
    "UPDATE world SET randomnumber = u.r FROM unnest(?::int[], ?::int[]) AS u(id, r) WHERE world.id = u.id"
private const val SLOW_ROW = "SELECT id, randomnumber FROM world, pg_sleep(?) WHERE id = ?"

class DbRoutes(private val database: Database, private val slow: Duration) {
    suspend fun db(call: ApplicationCall) = call.respond(database.withConnection { read(it, 1).single() })

    suspend fun queries(call: ApplicationCall) {
        val n = call.queries()
        call.respond(database.withConnection { read(it, n) })
    }

    suspend fun updates(call: ApplicationCall) {
        val n = call.queries()
        call.respond(database.withConnection { update(it, read(it, n)) })
    }

    /** The wait is `pg_sleep`'s, in the database, with the connection held. */
    suspend fun slowdb(call: ApplicationCall) = call.respond(
        database.withConnection { connection ->
            connection.prepareStatement(SLOW_ROW).use { statement ->
                statement.setDouble(1, slow.inWholeMilliseconds / 1000.0)
                one(statement, randomId(), 2)
            }
        },
    )

    suspend fun fortunes(call: ApplicationCall) = call.respondFortunes(database.withConnection(::fortunes))
}

/** SPEC §8.3's N: missing, empty, not an integer or below 1 is 1; above 500 is 500. */
fun ApplicationCall.queries(): Int = request.queryParameters["queries"]?.toIntOrNull()?.coerceIn(1, 500) ?: 1

private fun randomId() = ThreadLocalRandom.current().nextInt(1, WORLD_ROWS + 1)

/** [n] random rows, one query each, one after another on the call's connection. */
private fun read(connection: Connection, n: Int): List<World> =
    connection.prepareStatement(SELECT_ROW).use { statement -> List(n) { one(statement, randomId(), 1) } }

/** Runs [statement] with [id] as parameter [idAt]: the row it reads. */
private fun one(statement: PreparedStatement, id: Int, idAt: Int): World {
    statement.setInt(idAt, id)
    return statement.executeQuery().use { rs ->
        if (!rs.next()) throw SQLException("world has no row $id")
        World(rs.getInt(1), rs.getInt(2))
    }
}

/**
 * Gives each row a new number and writes them all back with one statement,
 * the ids and the numbers as two `int4` arrays, in auto-commit (one statement
 * is atomic, so no transaction around it), on the connection that read them.
 * The arrays go in ascending id order, so two calls that share rows lock them
 * in the same order and cannot deadlock; the answer keeps the order of the reads.
 */
private fun update(connection: Connection, rows: List<World>): List<World> {
    val updated = rows.map { World(it.id, randomId()) }
    val ascending = updated.sortedBy { it.id }
    connection.prepareStatement(UPDATE_ROWS).use { statement ->
        statement.setArray(1, connection.createArrayOf("int4", ascending.map { it.id }.toTypedArray()))
        statement.setArray(2, connection.createArrayOf("int4", ascending.map { it.randomNumber }.toTypedArray()))
        statement.executeUpdate()
    }
    return updated
}
