package concur.http

import org.apache.pekko.http.scaladsl.server.Directives._
import org.apache.pekko.http.scaladsl.server.Route

import scala.concurrent.duration._

/** The fault routes of SPEC §9 (only with `CONCUR_FAULTS=1`), as a bug in a route would behave: an exception that
  * nothing in the route catches, left to Pekko HTTP's default `ExceptionHandler` (a logged 500), and a computation
  * that holds the default-dispatcher thread running the route until it is done.
  */
object Faults {

  val route: Route = concat(
    path("fault" / "panic")(get(panic)),
    path("fault" / "spin")((get & parameter("ms".optional)) { ms =>
      spin(clamp(ms).millis)
      complete("OK")
    })
  )

  private def panic: Route = _ => throw new IllegalStateException("fault: /fault/panic")

  /** SPEC §9's N, read as `queries` is: missing, empty or not an integer is 0, below 0 is 0, above 10000 is 10000. */
  def clamp(ms: Option[String]): Int = ms.flatMap(_.toIntOption).fold(0)(_.max(0).min(10000))

  /** Busy for `time` of wall-clock time, reading the monotonic clock (`Deadline` is `System.nanoTime`). */
  private def spin(time: FiniteDuration): Unit = {
    val deadline = time.fromNow
    while (deadline.hasTimeLeft()) {}
  }
}
