package concur.http

import org.apache.pekko.Done
import org.apache.pekko.actor.typed.scaladsl.AskPattern._
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem}
import org.apache.pekko.util.Timeout
import spray.json.JsObject

import scala.concurrent.Future

/** The user objects (SPEC §2): spray-json values in a [[Registry]] actor. The value is stored, never the request's
  * bytes; the route serializes it anew on every get.
  */
final class Users(registry: ActorRef[Registry.Command[JsObject]])(implicit system: ActorSystem[_]) {
  private implicit val timeout: Timeout = Registry.AskTimeout

  def set(user: String, value: JsObject): Future[Done] = registry.ask(Registry.Put(user, value, _))

  def get(user: String): Future[Option[JsObject]] = registry.ask(Registry.Get(user, _))
}
