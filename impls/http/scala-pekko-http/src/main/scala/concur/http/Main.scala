package concur.http

import scala.concurrent.Await
import scala.concurrent.duration._
import scala.util.{Failure, Success}

/** The Concur HTTP workload (spec/SPEC.md) on Apache Pekko HTTP: read the environment, start the server, say where
  * it listens. The JVM then lives on in Pekko's threads until SIGTERM.
  */
object Main {
  def main(args: Array[String]): Unit = {
    val settings =
      try Settings.fromEnv(sys.env)
      catch {
        case e: SettingsError =>
          System.err.println(s"scala-pekko-http: ${e.getMessage}")
          sys.exit(2)
      }
    val (system, bound) = Server.start(settings)
    Await.ready(bound, 60.seconds).value.get match {
      case Success(binding) => println(s"scala-pekko-http: listening on http://127.0.0.1:${binding.localAddress.getPort}")
      case Failure(e) =>
        System.err.println(s"scala-pekko-http: cannot listen on 127.0.0.1:${settings.port}: ${e.getMessage}")
        system.terminate()
        sys.exit(1)
    }
  }
}
