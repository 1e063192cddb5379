package concur.http

import at.favre.lib.crypto.bcrypt.BCrypt
import org.apache.pekko.actor.typed.scaladsl.AskPattern._
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem, DispatcherSelector}
import org.apache.pekko.util.Timeout

import java.nio.charset.StandardCharsets.{US_ASCII, UTF_8}
import scala.concurrent.{ExecutionContext, Future}

/** bcrypt set and verify (SPEC §2). The store is a [[Registry]] actor; every hash runs as a Future on
  * `concur.bcrypt-dispatcher` (application.conf), `cores` threads that do nothing else, so a hash never holds a
  * thread of the default dispatcher that serves the connections.
  */
final class Passwords(registry: ActorRef[Registry.Command[String]], cost: Int)(implicit system: ActorSystem[_]) {
  private val bcrypt: ExecutionContext = system.dispatchers.lookup(DispatcherSelector.fromConfig("concur.bcrypt-dispatcher"))
  private implicit val ec: ExecutionContext = system.executionContext
  private implicit val timeout: Timeout = Registry.AskTimeout

  private val hasher = BCrypt.`with`(BCrypt.Version.VERSION_2B)
  private val verifyer = BCrypt.verifyer()

  def set(user: String, password: String): Future[Unit] =
    Future(new String(hasher.hash(cost, password.getBytes(UTF_8)), US_ASCII))(bcrypt)
      .flatMap(hash => registry.ask[org.apache.pekko.Done](Registry.Put(user, hash, _)))
      .map(_ => ())

  /** Some(matches), or None for a user without a password: that answer, too, comes after one hash at `cost`, so
    * its timing does not tell which users exist (thesis, Listing 24).
    */
  def verify(user: String, password: String): Future[Option[Boolean]] =
    registry.ask[Option[String]](Registry.Get(user, _)).flatMap {
      case Some(hash) => Future(Some(verifyer.verify(password.getBytes(UTF_8), hash.getBytes(US_ASCII)).verified))(bcrypt)
      case None =>
        Future {
          hasher.hash(cost, password.getBytes(UTF_8))
          None
        }(bcrypt)
    }
}
