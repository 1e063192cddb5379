/*
 * GET /fortunes (SPEC §8.3): the rows of `fortune` plus one added per call,
 * sorted by message, rendered with kotlinx.html through Ktor's HTML DSL
 * plugin (`respondHtml`), whose `+text` escapes `<`, `>`, `&`, `"` and `'`.
 */
package concur.http

import io.ktor.server.application.ApplicationCall
import io.ktor.server.html.respondHtml
import kotlinx.html.body
import kotlinx.html.head
import kotlinx.html.table
import kotlinx.html.td
import kotlinx.html.th
import kotlinx.html.title
import kotlinx.html.tr
import java.sql.Connection
import java.util.Arrays

data class Fortune(val id: Int, val message: String)

/** SPEC §8.3 sorts by code point; `String.compareTo` compares UTF-16 units, which differ above U+FFFF. */
val CODE_POINT_ORDER = Comparator<String> { a, b -> Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray()) }

/** Every row of `fortune`, in the database's order. */
fun fortunes(connection: Connection): List<Fortune> =
    connection.prepareStatement("SELECT id, message FROM fortune").use { statement ->
        statement.executeQuery().use { rs ->
            buildList { while (rs.next()) add(Fortune(rs.getInt(1), rs.getString(2))) }
        }
    }

suspend fun ApplicationCall.respondFortunes(stored: List<Fortune>) {
    val rows = (stored + Fortune(0, "Additional fortune added at request time.")).sortedWith(compareBy(CODE_POINT_ORDER) { it.message })
    respondHtml {
        head { title { +"Fortunes" } }
        body {
            table {
                tr {
                    th { +"id" }
                    th { +"message" }
                }
                for (fortune in rows) {
                    tr {
                        td { +fortune.id.toString() }
                        td { +fortune.message }
                    }
                }
            }
        }
    }
}
