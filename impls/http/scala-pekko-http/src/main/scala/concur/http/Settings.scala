package concur.http

import java.nio.file.{Path, Paths}
import scala.concurrent.duration._

/** The environment of SPEC §1, read and checked once at start, so the server never runs half-configured.
  *
  * @param port           PORT: the TCP port on 127.0.0.1 (0 lets the OS choose, for tests)
  * @param cores          CONCUR_CORES: the threads of the bcrypt dispatcher (application.conf)
  * @param bcryptCost     CONCUR_BCRYPT_COST: bcrypt's cost factor, 4..31
  * @param pageFile       CONCUR_PAGE_FILE: the file served at /page, read on every request
  * @param pageDelayEvery CONCUR_PAGE_DELAY_EVERY: every Nth /page is delayed
  * @param pageDelay      CONCUR_PAGE_DELAY_MS: that delay
  * @param longPoll       CONCUR_LONGPOLL_MS: the wait of /longPoll
  * @param db             CONCUR_DB_URL, CONCUR_DB_POOL and CONCUR_DB_SLOW_MS (SPEC §8.2)
  * @param faults         CONCUR_FAULTS=1: the fault routes of SPEC §9 exist
  */
final case class Settings(
    port: Int,
    cores: Int = 1,
    bcryptCost: Int = 10,
    pageFile: Path = Settings.DefaultPageFile,
    pageDelayEvery: Int = 10,
    pageDelay: FiniteDuration = 2.seconds,
    longPoll: FiniteDuration = 5.seconds,
    db: DbSettings = DbSettings(),
    faults: Boolean = false
)

/** SPEC §8.2's variables.
  *
  * @param url  CONCUR_DB_URL, `postgres://USER:PASSWORD@HOST:PORT/DATABASE`; None when unset (the database routes
  *             then answer 503)
  * @param pool CONCUR_DB_POOL: the most connections the server holds, and the threads of its database dispatcher
  * @param slow CONCUR_DB_SLOW_MS: how long the query of /slowdb takes in the database
  */
final case class DbSettings(url: Option[String] = None, pool: Int = 16, slow: FiniteDuration = 20.millis)

/** A variable that is missing or out of range; Main prints the message and exits 2. */
final class SettingsError(message: String) extends Exception(message)

object Settings {

  /** `spec/static/hello.html`, seen from this folder (the start command's directory). */
  val DefaultPageFile: Path = Paths.get("../../../spec/static/hello.html").toAbsolutePath.normalize

  def fromEnv(env: Map[String, String]): Settings = {
    def int(name: String, default: Option[Int], min: Int, max: Int): Int = env.get(name) match {
      case None =>
        default.getOrElse(throw new SettingsError(s"$name must be set (the TCP port to listen on, e.g. $name=8080)"))
      case Some(value) =>
        value.toIntOption
          .filter(n => n >= min && n <= max)
          .getOrElse(throw new SettingsError(s"$name must be an integer from $min to $max, got '$value'"))
    }
    val hour = 3600 * 1000
    Settings(
      port = int("PORT", None, 0, 65535),
      cores = int("CONCUR_CORES", Some(1), 1, 1024),
      bcryptCost = int("CONCUR_BCRYPT_COST", Some(10), 4, 31),
      pageFile = env.get("CONCUR_PAGE_FILE").map(Paths.get(_).toAbsolutePath.normalize).getOrElse(DefaultPageFile),
      pageDelayEvery = int("CONCUR_PAGE_DELAY_EVERY", Some(10), 1, Int.MaxValue),
      pageDelay = int("CONCUR_PAGE_DELAY_MS", Some(2000), 0, hour).millis,
      longPoll = int("CONCUR_LONGPOLL_MS", Some(5000), 0, hour).millis,
      db = DbSettings(
        // Checked now, so that a malformed URL stops the server at start rather than failing every request.
        url = env.get("CONCUR_DB_URL").filter(_.trim.nonEmpty).map { url => Database.jdbc(url); url },
        pool = int("CONCUR_DB_POOL", Some(16), 1, 10000),
        slow = int("CONCUR_DB_SLOW_MS", Some(20), 0, hour).millis
      ),
      faults = env.get("CONCUR_FAULTS").contains("1")
    )
  }
}
