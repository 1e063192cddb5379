package concur.http

import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.marshallers.sprayjson.SprayJsonSupport._
import org.apache.pekko.http.scaladsl.model.ContentTypes
import org.apache.pekko.http.scaladsl.server.Directives._
import org.apache.pekko.http.scaladsl.server.Route
import org.apache.pekko.pattern.after

import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.Future

/** The routes without state of their own (SPEC §2): /, /json, /page and /longPoll. The waits are futures that
  * the system scheduler completes later (`pattern.after`): a waiting request holds a timer, not a thread.
  */
final class Hello(settings: Settings)(implicit system: ActorSystem[_]) {
  import Json.Protocol._

  /** /page requests so far in this process; every `pageDelayEvery`th one is delayed. */
  private val pageRequests = new AtomicLong

  val root: Route = complete("Hello, World!")

  val json: Route = complete(Json.Message("Hello, World!"))

  /** The file is read from disk on every request by `getFromFile` (a FileIO stream on Pekko's blocking-I/O
    * dispatcher), after the delay when this request is a delayed one.
    */
  val page: Route = {
    val file = getFromFile(settings.pageFile.toFile, ContentTypes.`text/html(UTF-8)`)
    extract(_ => pageRequests.incrementAndGet()) { n =>
      if (n % settings.pageDelayEvery == 0) onSuccess(after(settings.pageDelay)(Future.unit))(file)
      else file
    }
  }

  val longPoll: Route = complete(after(settings.longPoll)(Future.successful("OK")))
}
