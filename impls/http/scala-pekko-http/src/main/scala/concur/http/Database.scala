package concur.http

import com.zaxxer.hikari.{HikariConfig, HikariDataSource}

import java.net.{URI, URISyntaxException, URLDecoder}
import java.nio.charset.StandardCharsets.UTF_8
import java.sql.{Connection, SQLException, SQLTransientConnectionException}
import scala.util.{Failure, Try}

/** The PostgreSQL connection pool of SPEC §8: HikariCP over the PostgreSQL JDBC driver (pgjdbc), holding at most
  * `CONCUR_DB_POOL` connections. Everything here blocks its caller, so only the threads of
  * `concur.db-dispatcher` (application.conf, [[DbRoutes]]) call it; there are as many of them as connections.
  *
  * The pool opens its connections in the background (`initializationFailTimeout = -1`), so the server starts, and
  * serves its other routes, with the database down; [[withConnection]] is where a failure to reach it becomes the
  * `SQLException` that [[DbRoutes]] answers with 503 (SPEC §8.4).
  */
final class Database(settings: DbSettings) extends AutoCloseable {
  import Database._

  private val pool: Option[HikariDataSource] = settings.url.map { url =>
    val login = jdbc(url)
    val config = new HikariConfig()
    config.setPoolName("concur-db")
    config.setJdbcUrl(login.url)
    config.setUsername(login.user)
    config.setPassword(login.password)
    // minimumIdle left unset: a fixed-size pool of CONCUR_DB_POOL connections, as HikariCP recommends.
    config.setMaximumPoolSize(settings.pool)
    config.setConnectionTimeout(ConnectionTimeoutMs)
    config.addDataSourceProperty("loginTimeout", LoginTimeoutSeconds)
    // Start at once, database or not: the pool fills in the background (SPEC §8.2).
    config.setInitializationFailTimeout(-1)
    new HikariDataSource(config)
  }

  /** Runs `work` on a pooled connection, on the calling thread, and gives the connection back. */
  def withConnection[T](work: Connection => T): T = {
    val connection = take()
    try work(connection)
    finally connection.close()
  }

  /** A connection, waiting for one as long as it takes while the database can be reached (connections being
    * opened). HikariCP's timeout carries the failure of its last attempt to connect as its cause, and clears it
    * when a connection opens: a timeout with a cause means the database is unreachable now, and is thrown.
    */
  private def take(): Connection = {
    val source = pool.getOrElse(throw new SQLException("CONCUR_DB_URL is not set"))
    var connection: Connection = null
    while (connection == null) {
      try connection = source.getConnection
      catch {
        case timedOut: SQLTransientConnectionException if timedOut.getCause == null => ()
        case gone: SQLTransientConnectionException =>
          lastUnreachable = gone
          throw gone
      }
    }
    connection
  }

  /** The last "unreachable" [[take]] threw: the reason [[DbRoutes]] gives while its circuit breaker is open. */
  @volatile var lastUnreachable: Throwable = new SQLException("the database was unreachable")

  override def close(): Unit = pool.foreach(_.close())
}

object Database {

  /** HikariCP's `connectionTimeout` (30 s by default): a busy pool and a database refusing every connection look
    * alike to HikariCP (both time out), and SPEC §8.4 wants the second answered within 5 s, so one wait is 2 s and
    * [[Database.take]] waits again unless the database is the reason.
    */
  val ConnectionTimeoutMs = 2000L

  /** pgjdbc's `loginTimeout`. HikariCP otherwise sets the JVM-wide login timeout from `connectionTimeout` (2 s),
    * and a SCRAM login in a cold JVM on a loaded machine comes close to that (java-jetty's README); a login cut
    * off by it would read as a database gone.
    */
  val LoginTimeoutSeconds = "10"

  /** `CONCUR_DB_URL` in pgjdbc's terms, which take no user or password in the URL. */
  final case class Jdbc(url: String, user: String, password: String)

  def jdbc(url: String): Jdbc =
    try {
      val uri = new URI(url)
      val login = Option(uri.getRawUserInfo).map(_.split(":", 2)).getOrElse(Array.empty[String])
      val scheme = Option(uri.getScheme).getOrElse("")
      if (!Set("postgres", "postgresql")(scheme) || uri.getHost == null || login.length != 2 || uri.getPath.length < 2
          || uri.getRawQuery != null)
        throw new URISyntaxException("CONCUR_DB_URL", "not of the form postgres://USER:PASSWORD@HOST:PORT/DATABASE")
      val port = if (uri.getPort < 0) 5432 else uri.getPort
      Jdbc(s"jdbc:postgresql://${uri.getHost}:$port${uri.getRawPath}", decode(login(0)), decode(login(1)))
    } catch {
      // The URL is not echoed: it holds a password.
      case e: URISyntaxException =>
        throw new SettingsError(
          s"CONCUR_DB_URL must be postgres://USER:PASSWORD@HOST:PORT/DATABASE with no query parameters: ${e.getReason}"
        )
    }

  /** What opens [[DbRoutes]]' circuit breaker: a connection timeout that [[Database.take]] let through, which says
    * the database is unreachable. A failed statement, or a connection PostgreSQL ended, fails its own request only.
    */
  def unreachable[T](result: Try[T]): Boolean = result match {
    case Failure(_: SQLTransientConnectionException) => true
    case _                                           => false
  }

  private def decode(part: String): String = URLDecoder.decode(part.replace("+", "%2B"), UTF_8)

  /** The reason of SPEC §8.4's 503: the failure and its causes, on one line. */
  def unavailable(failure: Throwable): String =
    Iterator
      .iterate(failure)(_.getCause)
      .takeWhile(_ != null)
      .take(8) // a chain of causes may loop
      .flatMap(t => Option(t.getMessage))
      .foldLeft("database unavailable")((reason, message) => if (reason.contains(message)) reason else s"$reason: $message")
}
