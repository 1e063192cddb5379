package concur.http

import java.io.{BufferedReader, FileDescriptor, FileOutputStream, InputStreamReader, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}
import java.sql.{Connection, DriverManager}
import java.util.concurrent.TimeUnit
import scala.util.Using

/** The PostgreSQL of the database suites, seeded as SPEC §8.1 says: the one `CONCUR_DB_URL` names (`concur test`
  * gives it), else one that `concur db` starts now and that ends with this JVM. `setpriv --pdeathsig` sends
  * `concur db` SIGINT (how it is told to stop and clean up) when the thread that started it ends, so no database
  * outlives the tests, even after a kill -9.
  *
  * Where PostgreSQL is not installed, `url` is Left with `concur db`'s one-line reason, and the suites skip the
  * tests that need it, printing that line; any other failure to start it fails them.
  */
object TestDatabase {

  lazy val url: Either[String, String] =
    sys.env.get("CONCUR_DB_URL").filter(_.trim.nonEmpty).map(Right(_)).getOrElse(start())

  /** Why the PostgreSQL tests are skipped, printed on one line the first time it is asked; None when they run. It
    * goes to the JVM's own stderr, which surefire shows on the console even under `mvn -q`: `System.err` goes to
    * target/surefire-reports here (`redirectTestOutputToFile`), where nobody would see it.
    */
  lazy val skipped: Option[String] = url.left.toOption.map { reason =>
    new PrintStream(new FileOutputStream(FileDescriptor.err), true, UTF_8)
      .println(s"scala-pekko-http: the PostgreSQL tests are skipped: $reason")
    reason
  }

  @volatile private var concurDb: Option[Process] = None

  private def start(): Either[String, String] = {
    val built = Paths.get("../../../target/release/concur").toAbsolutePath.normalize
    val concur = if (Files.isExecutable(built)) built.toString else "concur"
    val process = new ProcessBuilder("setpriv", "--pdeathsig", "SIGINT", concur, "db").start()
    concurDb = Some(process)
    sys.addShutdownHook(stop())
    // Its stderr (progress, or why it failed) is passed on, and kept to tell "not installed" from a failure.
    val errors = new StringBuffer
    val relay = new Thread(() =>
      new BufferedReader(new InputStreamReader(process.getErrorStream, UTF_8)).lines.forEach { line =>
        System.err.println(line)
        errors.append(line).append('\n')
      }
    )
    relay.setDaemon(true)
    relay.start()
    val line = Option(new BufferedReader(new InputStreamReader(process.getInputStream, UTF_8)).readLine()).getOrElse("")
    if (line.startsWith("CONCUR_DB_URL=")) Right(line.stripPrefix("CONCUR_DB_URL=").trim)
    else {
      process.waitFor(20, TimeUnit.SECONDS)
      relay.join(5000)
      errors.toString.linesIterator.find(_.contains("PostgreSQL is not installed")) match {
        case Some(reason) => Left(reason.trim)
        case None =>
          throw new IllegalStateException(
            s"$concur db printed '$line' instead of CONCUR_DB_URL=…: cargo build --release, or export the CONCUR_DB_URL of a running `concur db` (its stderr: ${errors.toString.trim})"
          )
      }
    }
  }

  private def stop(): Unit = concurDb.foreach { process =>
    new ProcessBuilder("kill", "-INT", process.pid.toString).start().waitFor()
    if (!process.waitFor(20, TimeUnit.SECONDS)) process.destroyForcibly()
  }

  /** A connection of the test's own, to read what the server wrote. */
  def connect(): Connection = {
    val login = Database.jdbc(url.fold(reason => throw new IllegalStateException(reason), identity))
    DriverManager.getConnection(login.url, login.user, login.password)
  }

  /** The stored number of row `id`. */
  def stored(id: Int): Int =
    Using.Manager { use =>
      val statement = use(use(connect()).prepareStatement("SELECT randomnumber FROM world WHERE id = ?"))
      statement.setInt(1, id)
      val rs = use(statement.executeQuery())
      assert(rs.next(), s"world has no row $id")
      rs.getInt(1)
    }.get
}
