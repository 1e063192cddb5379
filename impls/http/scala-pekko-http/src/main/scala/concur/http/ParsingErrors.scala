package concur.http

import org.apache.pekko.event.LoggingAdapter
import org.apache.pekko.http.ParsingErrorHandler
import org.apache.pekko.http.scaladsl.model.{ErrorInfo, HttpResponse, StatusCode, StatusCodes}
import org.apache.pekko.http.scaladsl.settings.ServerSettings

/** Answers to requests Pekko's parser refuses before any route runs (SPEC §3.1), as one line of `text/plain` like
  * every other error. Named by `pekko.http.server.parsing.error-handler` in application.conf.
  *
  * Pekko answers 505 whenever the version slot of the request line is not exactly `HTTP/1.0` or `HTTP/1.1`, which
  * includes a request line with junk in it (`GET / EXTRA JUNK HTTP/1.1`). RFC 9112 §3 makes a request line that
  * does not match its grammar a 400; a client of another major version never sends this line (HTTP/2 and HTTP/3
  * have their own framing), so here every such answer is a 400.
  */
object ParsingErrors extends ParsingErrorHandler {
  override def handle(status: StatusCode, error: ErrorInfo, log: LoggingAdapter, settings: ServerSettings): HttpResponse = {
    val (answer, reason) =
      if (status == StatusCodes.HttpVersionNotSupported)
        (StatusCodes.BadRequest, "invalid request line: want METHOD TARGET HTTP/1.1 (or HTTP/1.0)")
      else (status, s"invalid request: ${if (error.summary.nonEmpty) error.summary else status.defaultMessage}")
    log.warning("Illegal request, responding with status '{}': {}", answer, error.summary)
    Errors.plain(answer, reason)
  }
}
