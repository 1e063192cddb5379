package concur.http

import com.github.mustachejava.{DefaultMustacheFactory, Mustache}
import org.apache.pekko.actor.typed.{ActorSystem, DispatcherSelector}
import org.apache.pekko.pattern.{CircuitBreaker, CircuitBreakerOpenException}
import org.apache.pekko.http.scaladsl.marshallers.sprayjson.SprayJsonSupport._
import org.apache.pekko.http.scaladsl.marshalling.ToResponseMarshaller
import org.apache.pekko.http.scaladsl.model.StatusCodes.ServiceUnavailable
import org.apache.pekko.http.scaladsl.model.{ContentTypes, HttpEntity}
import org.apache.pekko.http.scaladsl.server.Directives._
import org.apache.pekko.http.scaladsl.server.{Directive1, Route}
import spray.json.{DefaultJsonProtocol, RootJsonFormat}

import java.io.StringWriter
import java.sql.{Connection, PreparedStatement, SQLException}
import java.util.concurrent.ThreadLocalRandom
import scala.concurrent.duration._
import scala.concurrent.{ExecutionContext, Future}
import scala.jdk.CollectionConverters._
import scala.util.{Failure, Success, Using}

/** The five routes of SPEC §8.3, as Pekko's documentation says blocking calls are made ("Blocking Needs Careful
  * Management"): each request's JDBC work is one `Future` on `concur.db-dispatcher`, a `thread-pool-executor` of
  * `CONCUR_DB_POOL` threads that does nothing else, and the route completes with it (`onComplete`). A request waiting
  * for the database is a task in that dispatcher's queue, holding no thread; the default dispatcher, which serves the
  * connections, never blocks. Rows become JSON, and fortunes HTML, back on the default dispatcher.
  */
final class DbRoutes(database: Database, slow: FiniteDuration)(implicit system: ActorSystem[_]) {
  import DbRoutes._
  import DbRoutes.Protocol._

  private val blocking: ExecutionContext = system.dispatchers.lookup(DispatcherSelector.fromConfig("concur.db-dispatcher"))
  private implicit val ec: ExecutionContext = system.executionContext

  /** The fortunes template, compiled once as the server starts (the guardian builds the routes before it binds). */
  private val fortunesTemplate: Mustache = Fortunes.compile()

  /** Pekko's circuit breaker. With only `CONCUR_DB_POOL` threads, each waiting 2 s for HikariCP to give up on an
    * unreachable database, a burst of requests drained at `CONCUR_DB_POOL` per 2 s and got its last 503s long after
    * SPEC §8.4's 5 s. So one "unreachable" ([[Database.unreachable]]) opens it, every request that reaches a thread
    * while it is open is a 503 at once, and a second later one request tries the database again; its success closes
    * it. The call timeout cuts no query short: SPEC §8.3 puts no limit on one.
    */
  private val breaker = CircuitBreaker(system.classicSystem.scheduler, maxFailures = 1, callTimeout = 2.hours, resetTimeout = 1.second)

  val route: Route = concat(
    path("db")(get(reply(answer(Sql.row(_, randomId()))))),
    path("queries")((get & count)(n => reply(answer(Sql.reads(_, n))))),
    path("updates")((get & count)(n => reply(answer(c => Sql.update(c, Sql.reads(c, n)))))),
    // The rows are read and the connection is back in the pool (answer's future completes after withConnection
    // closed it) before the page is rendered, on the default dispatcher.
    path("fortunes")(get(reply(answer(Sql.fortunes).map(Fortunes.page(fortunesTemplate))))),
    path("slowdb")(get(reply(answer(Sql.slowRow(_, randomId(), slow)))))
  )

  /** `work` on a pooled connection, on the database dispatcher, unless the breaker is open when its turn comes. */
  private def answer[T](work: Connection => T): Future[T] =
    Future(breaker.withSyncCircuitBreaker(database.withConnection(work), Database.unreachable[T]))(blocking)

  /** Completes with the future's value, or with SPEC §8.4's 503 when the database failed it. */
  private def reply[T](future: Future[T])(implicit m: ToResponseMarshaller[T]): Route =
    onComplete(future) {
      case Success(value)           => complete(value)
      case Failure(e: SQLException) => complete(Errors.plain(ServiceUnavailable, Database.unavailable(e)))
      case Failure(_: CircuitBreakerOpenException) =>
        complete(Errors.plain(ServiceUnavailable, s"${Database.unavailable(database.lastUnreachable)} (trying again within 1 s)"))
      case Failure(e)               => failWith(e)
    }
}

object DbRoutes {

  /** A row of `world`, serialized as `{"id":…,"randomNumber":…}`. */
  final case class World(id: Int, randomNumber: Int)

  /** A row of `fortune`; the template reads `{{id}}` and `{{message}}` through its accessors. */
  final case class Fortune(id: Int, message: String)

  object Protocol extends DefaultJsonProtocol {
    implicit val worldFormat: RootJsonFormat[World] = jsonFormat2(World.apply)
  }

  val WorldRows = 10000

  def randomId(): Int = ThreadLocalRandom.current().nextInt(1, WorldRows + 1)

  /** SPEC §8.3's N: missing, empty, not a 32-bit integer or below 1 is 1; above 500 is 500. */
  def clamp(queries: Option[String]): Int = queries.flatMap(_.toIntOption).fold(1)(_.max(1).min(500))

  val count: Directive1[Int] = parameter("queries".optional).map(clamp)

  /** The statements, in plain blocking JDBC; every one is a `PreparedStatement`, which pgjdbc makes a named
    * server-side one from its fifth use on a connection (its default `prepareThreshold=5`).
    */
  object Sql {
    private val SelectRow = "SELECT id, randomnumber FROM world WHERE id = ?"
    private val UpdateRows =
      "UPDATE world SET randomnumber = u.r FROM unnest(?::int[], ?::int[]) AS u(id, r) WHERE world.id = u.id"
    private val SelectFortunes = "SELECT id, message FROM fortune"
    private val SlowRow = "SELECT id, randomnumber FROM world, pg_sleep(?) WHERE id = ?"

    def row(c: Connection, id: Int): World = Using.resource(c.prepareStatement(SelectRow))(one(_, id))

    /** `/slowdb`: the wait is `pg_sleep`'s, in the database, with the connection held. */
    def slowRow(c: Connection, id: Int, slow: FiniteDuration): World =
      Using.resource(c.prepareStatement(SlowRow)) { statement =>
        statement.setDouble(1, slow.toMillis / 1000.0)
        one(statement, id, 2)
      }

    /** N rows, one query each, one after another on the request's connection (spec/POLICIES.md §6, Rule R): JDBC
      * blocks in `executeQuery` until the row has come, so the next read is sent only then.
      */
    def reads(c: Connection, n: Int): Vector[World] =
      Using.resource(c.prepareStatement(SelectRow))(statement => Vector.fill(n)(one(statement, randomId())))

    /** Gives each row a new number and writes them all with one statement on the connection that read them
      * (spec/POLICIES.md §6, Rule W): the ids and their numbers go as two `int4` arrays (`createArrayOf`) that
      * `unnest` pairs up. No transaction is opened: under auto-commit the one statement is atomic on its own. The
      * arrays are in ascending id order, so two requests that share rows lock them in the same order and cannot
      * deadlock; an id drawn twice is in them twice, and PostgreSQL applies one of its two numbers. The answer keeps
      * the rows in the order they were read.
      */
    def update(c: Connection, rows: Vector[World]): Vector[World] = {
      val updated = rows.map(_.copy(randomNumber = randomId()))
      val ascending = updated.sortBy(_.id)
      def int4s(values: Vector[Int]): java.sql.Array = c.createArrayOf("int4", values.map(Int.box).toArray[AnyRef])
      Using.resource(c.prepareStatement(UpdateRows)) { statement =>
        statement.setArray(1, int4s(ascending.map(_.id)))
        statement.setArray(2, int4s(ascending.map(_.randomNumber)))
        statement.executeUpdate()
      }
      updated
    }

    def fortunes(c: Connection): Vector[Fortune] =
      Using.Manager { use =>
        val rs = use(use(c.prepareStatement(SelectFortunes)).executeQuery())
        Iterator.continually(rs.next()).takeWhile(identity).map(_ => Fortune(rs.getInt(1), rs.getString(2))).toVector
      }.get

    /** The row `id`, the statement's parameter `at`. */
    private def one(statement: PreparedStatement, id: Int, at: Int = 1): World = {
      statement.setInt(at, id)
      Using.resource(statement.executeQuery()) { rs =>
        if (!rs.next()) throw new SQLException(s"world has no row $id")
        World(rs.getInt(1), rs.getInt(2))
      }
    }
  }

  /** The fortunes page of SPEC §8.3 through mustache.java, the template engine java-jetty uses (README, "The database
    * routes": Pekko HTTP ships none). The rows come here after their connection is back in the pool.
    */
  object Fortunes {
    val Added = Fortune(0, "Additional fortune added at request time.")

    /** Code point order; `String.compareTo` compares UTF-16 units, which differ above U+FFFF. */
    val ByCodePoint: Ordering[String] = (a, b) => java.util.Arrays.compare(a.codePoints.toArray, b.codePoints.toArray)

    /** `src/main/resources/templates/fortunes.mustache`, java-jetty's template; its `{{message}}` escapes HTML. */
    def compile(): Mustache = new DefaultMustacheFactory("templates").compile("fortunes.mustache")

    /** The page: the stored rows and [[Added]], sorted, rendered by the compiled `template` (safe to run from many
      * threads at once). The template reads `id` and `message` through the case class's accessors, from a Java list.
      */
    def page(template: Mustache)(stored: Vector[Fortune]): HttpEntity.Strict = {
      val rows = (stored :+ Added).sortBy(_.message)(ByCodePoint)
      val html = new StringWriter(2048)
      template.execute(html, java.util.Map.of("fortunes", rows.asJava))
      HttpEntity(ContentTypes.`text/html(UTF-8)`, html.toString)
    }
  }
}
