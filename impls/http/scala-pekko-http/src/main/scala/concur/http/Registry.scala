package concur.http

import org.apache.pekko.Done
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}
import org.apache.pekko.util.Timeout

import scala.concurrent.duration._

/** A map from user name to a value, owned by one actor: the passwords (user → bcrypt hash) and the user objects
  * (user → spray-json `JsValue`) are two of them.
  *
  * This is the shape of Pekko HTTP's quickstart (`UserRegistry`): the actor's state is an immutable `Map` that each
  * message replaces, and routes reach it with `ask`. No lock and no concurrent map: the mailbox orders the writes,
  * and a `Put` is acknowledged only once the new map is the actor's state, so a `Get` sent after the reply (from
  * any connection) sees it (SPEC §5).
  */
object Registry {

  /** An ask is answered in microseconds; the timeout only bounds a lost reply, so it is generous. */
  val AskTimeout: Timeout = Timeout(30.seconds)

  sealed trait Command[V]
  final case class Put[V](user: String, value: V, replyTo: ActorRef[Done]) extends Command[V]
  final case class Get[V](user: String, replyTo: ActorRef[Option[V]]) extends Command[V]

  def apply[V](entries: Map[String, V] = Map.empty[String, V]): Behavior[Command[V]] =
    Behaviors.receiveMessage {
      case Put(user, value, replyTo) =>
        replyTo ! Done
        apply(entries.updated(user, value))
      case Get(user, replyTo) =>
        replyTo ! entries.get(user)
        Behaviors.same
    }
}
