package concur.http

import com.typesafe.config.{Config, ConfigFactory}
import org.apache.pekko.Done
import org.apache.pekko.actor.CoordinatedShutdown
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorSystem, Behavior}
import org.apache.pekko.http.scaladsl.Http
import spray.json.JsObject

import scala.concurrent.duration._
import scala.concurrent.{Future, Promise}

/** The actor system and its HTTP server, as Pekko HTTP's quickstart builds them: the guardian spawns the two
  * [[Registry]] actors, opens the [[Database]] pool (closed by CoordinatedShutdown), builds the routes and binds
  * them on 127.0.0.1.
  */
object Server {

  /** Starts the system; the future completes once the port is bound (or binding failed). */
  def start(settings: Settings): (ActorSystem[Nothing], Future[Http.ServerBinding]) = {
    // SLF4J initialised here, before Pekko's threads race to it, prints no "replaying" warning.
    org.slf4j.LoggerFactory.getILoggerFactory
    val bound = Promise[Http.ServerBinding]()
    val system = ActorSystem[Nothing](guardian(settings, bound), "concur", config(settings.cores, settings.db.pool))
    (system, bound.future)
  }

  /** application.conf with `concur.cores` and `concur.db-pool` set, which size its two dispatchers. */
  def config(cores: Int, dbPool: Int): Config =
    ConfigFactory.load(
      ConfigFactory
        .parseString(s"concur.cores = $cores\nconcur.db-pool = $dbPool")
        .withFallback(ConfigFactory.parseResources("application.conf"))
    )

  private def guardian(settings: Settings, bound: Promise[Http.ServerBinding]): Behavior[Nothing] =
    Behaviors.setup[Nothing] { context =>
      implicit val system: ActorSystem[Nothing] = context.system
      val passwords = new Passwords(context.spawn(Registry[String](), "passwords"), settings.bcryptCost)
      val users = new Users(context.spawn(Registry[JsObject](), "users"))
      val database = new Database(settings.db)
      CoordinatedShutdown(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate, "close-database-pool") { () =>
        database.close()
        Future.successful(Done)
      }
      val routes = new Routes(new Hello(settings), passwords, users, new DbRoutes(database, settings.db.slow), settings.faults)
      // SIGTERM runs the JVM's shutdown hook, Pekko's CoordinatedShutdown: it unbinds, lets requests in flight
      // finish for up to 2 s, and stops the system.
      bound.completeWith(
        Http()
          .newServerAt("127.0.0.1", settings.port)
          .bind(routes.route)
          .map(_.addToCoordinatedShutdown(hardTerminationDeadline = 2.seconds))(context.executionContext)
      )
      Behaviors.empty
    }
}
