package concur.http

import org.apache.pekko.http.scaladsl.model.StatusCodes._
import org.apache.pekko.http.scaladsl.model._
import org.apache.pekko.http.scaladsl.model.headers.Allow
import org.apache.pekko.http.scaladsl.server.Directives._
import org.apache.pekko.http.scaladsl.server._

/** Every error as one line of `text/plain` (SPEC §3). The routes reject (Pekko's way of saying "not me, and
  * why") and these handlers, wrapped around the whole route tree, turn the rejections into answers in the order of
  * SPEC §3: no route matched the path → 404; a route matched it with another method → 405 with `Allow`; a route
  * refused the user name or the body → 400 (`ValidationRejection`), or 413 when the body was over the limit.
  */
object Errors {

  def plain(status: StatusCode, reason: String): HttpResponse =
    HttpResponse(status, entity = HttpEntity(ContentTypes.`text/plain(UTF-8)`, reason.linesIterator.mkString(" ")))

  val rejections: RejectionHandler = RejectionHandler
    .newBuilder()
    .handle {
      // pekko.http.server.parsing.max-content-length fails the entity stream as soon as a route reads a body whose
      // Content-Length is over the limit (before a byte of it is read), or once a chunked one outgrows it.
      case MalformedRequestContentRejection(_, EntityStreamSizeException(limit, _)) =>
        complete(plain(PayloadTooLarge, s"request body is over $limit bytes"))
      case MalformedRequestContentRejection(reason, _) => complete(plain(BadRequest, reason))
      case RequestEntityExpectedRejection              => complete(plain(BadRequest, "request body is empty: want JSON"))
      case ValidationRejection(reason, _)              => complete(plain(BadRequest, reason))
    }
    .handleAll[MethodRejection] { rejected =>
      val allowed = rejected.map(_.supported)
      complete(plain(MethodNotAllowed, s"method not allowed: use ${allowed.map(_.value).mkString(", ")}").withHeaders(Allow(allowed)))
    }
    .handleNotFound(complete(plain(NotFound, "not found: no such route")))
    .result()
    .withFallback(RejectionHandler.default)

  val exceptions: ExceptionHandler = ExceptionHandler {
    case EntityStreamSizeException(limit, _) => complete(plain(PayloadTooLarge, s"request body is over $limit bytes"))
  }
}
