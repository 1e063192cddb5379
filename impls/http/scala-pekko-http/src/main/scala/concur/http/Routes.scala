package concur.http

import org.apache.pekko.http.scaladsl.marshallers.sprayjson.SprayJsonSupport._
import org.apache.pekko.http.scaladsl.model.StatusCodes.{Forbidden, NotFound}
import org.apache.pekko.http.scaladsl.model.headers.`Raw-Request-URI`
import org.apache.pekko.http.scaladsl.server.Directives._
import org.apache.pekko.http.scaladsl.server.{Directive1, Route, ValidationRejection}
import org.apache.pekko.util.ByteString
import spray.json.JsValue

/** The route tree of SPEC §2, §8 and §9, wrapped in the error handlers of [[Errors]].
  *
  * `path("user" / "get" / Remaining)` matches every path under the prefix, so that a bad `{user}` (`a/b`, `%41`)
  * reaches the route and gets its 400, while the bare prefix `/user/get` matches nothing and gets 404.
  */
final class Routes(hello: Hello, passwords: Passwords, users: Users, db: DbRoutes, faults: Boolean) {
  import Routes._

  val route: Route =
    handleExceptions(Errors.exceptions) {
      handleRejections(Errors.rejections) {
        concat(
          pathSingleSlash(get(hello.root)),
          path("json")(get(hello.json)),
          path("page")(get(hello.page)),
          path("longPoll")(get(hello.longPoll)),
          path("password" / "set" / Remaining) { _ =>
            (post & userName & jsonBody(Json.password)) { (user, password) =>
              onSuccess(passwords.set(user, password))(complete("OK"))
            }
          },
          path("password" / "verify" / Remaining) { _ =>
            (post & userName & jsonBody(Json.password)) { (user, password) =>
              onSuccess(passwords.verify(user, password)) {
                case Some(true)  => complete("OK")
                case Some(false) => complete(Errors.plain(Forbidden, "wrong password"))
                case None        => complete(Errors.plain(NotFound, s"no password for user $user"))
              }
            }
          },
          path("user" / "set" / Remaining) { _ =>
            (post & userName & jsonBody(Json.userObject)) { (user, value) =>
              onSuccess(users.set(user, value))(_ => complete("OK"))
            }
          },
          path("user" / "get" / Remaining) { _ =>
            (get & userName) { user =>
              onSuccess(users.get(user)) {
                case Some(value) => complete(value) // serialized anew by spray-json on every request
                case None        => complete(Errors.plain(NotFound, s"no user $user"))
              }
            }
          },
          db.route,
          if (faults) Faults.route else reject // SPEC §9, only with CONCUR_FAULTS=1
        )
      }
    }
}

object Routes {
  private val UserName = "[A-Za-z0-9_.-]{1,64}".r

  /** `{user}` as the client sent it, the rest of the path after `/prefix/route/`.
    *
    * Pekko decodes path segments (`%41` becomes `A`, `a%2Fb` one segment `a/b`), but SPEC §3.4 judges the raw
    * path, so it is taken from the `Raw-Request-URI` header (`raw-request-uri-header = on` in application.conf).
    */
  val userName: Directive1[String] =
    headerValueByType(`Raw-Request-URI`).flatMap { raw =>
      val user = rawPath(raw.uri).split("/", 4) match {
        case Array("", _, _, rest) => rest
        case _                     => ""
      }
      if (UserName.matches(user)) provide(user)
      else reject(ValidationRejection(s"invalid user name: must match ${UserName.regex}"))
    }

  /** The path of a request target in origin form (`/a/b?q`) or absolute form (`http://host/a/b?q`). */
  def rawPath(target: String): String = {
    val path = target.takeWhile(c => c != '?' && c != '#')
    path.indexOf("://") match {
      case -1 => path
      case scheme =>
        path.indexOf('/', scheme + 3) match {
          case -1    => "/"
          case slash => path.substring(slash)
        }
    }
  }

  /** The body parsed by [[Json.parse]] and checked by `rule`. Pekko limits it to 1 MiB
    * (`pekko.http.server.parsing.max-content-length`), a refusal becomes a 400 with its reason.
    */
  def jsonBody[T](rule: JsValue => Either[String, T]): Directive1[T] =
    entity(as[ByteString]).flatMap { body =>
      Json.parse(body).flatMap(rule) match {
        case Right(value) => provide(value)
        case Left(reason) => reject(ValidationRejection(reason))
      }
    }
}
