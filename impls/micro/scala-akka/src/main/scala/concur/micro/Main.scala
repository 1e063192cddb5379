package concur.micro

import com.typesafe.config.ConfigFactory
import org.apache.pekko.actor.typed.{ActorSystem, Behavior}

import scala.concurrent.duration.Duration
import scala.concurrent.{Await, Promise}

/** Concur's process micro-benchmarks (spec/MICRO.md) on Apache Pekko typed actors: one benchmark per invocation,
  * one JSON line on stdout, exit 1 when a message was lost or a count is wrong, exit 2 on a bad argument.
  *
  * Main is the guardian actor of the system: it spawns the benchmark's actors as its children, talks to them by
  * messages and completes a promise with the result, which the JVM's main thread prints.
  */
object Main {

  /** Held by whoever ends the program, so a late watchdog cannot follow the result line. */
  private val Exit = new Object

  def main(args: Array[String]): Unit = {
    val cfg =
      try Config.parse(args.toSeq, sys.env)
      catch {
        case e: UsageError =>
          System.err.println(s"micro: ${e.getMessage}")
          sys.exit(2)
      }
    checkCores(cfg)
    armWatchdog(cfg)
    // SLF4J initialised here, before Pekko's threads race to it, prints no "replaying" warning.
    org.slf4j.LoggerFactory.getILoggerFactory
    val result = Promise[Result]()
    val system = ActorSystem(guardian(cfg, result), "micro", pekkoConfig(cfg.cores))
    system.whenTerminated.foreach(_ => if (!result.isCompleted) fail(s"${cfg.bench}: the actor system terminated early"))(
      system.executionContext
    )
    finish(Await.result(result.future, Duration.Inf))
  }

  private def guardian(cfg: Config, result: Promise[Result]): Behavior[_] = cfg.bench match {
    case "pingping"          => PingPing(cfg, result)
    case "pingpong"          => PingPong(cfg, result)
    case "spawn" | "maxprocs" => Spawn(cfg, result)
    case "pairs"             => Pairs(cfg, result)
    case "idle"              => Idle(cfg, result)
    case "supervised"        => Supervised(cfg, result)
  }

  /** Pekko's default dispatcher sizes its fork-join pool as max(8, CPUs × 1.0): eight threads even on one core.
    * Pinning min and max to --cores makes the parallelism the one asked for.
    */
  def pekkoConfig(cores: Int): com.typesafe.config.Config =
    ConfigFactory
      .parseString(s"""
        |pekko.actor.default-dispatcher.fork-join-executor {
        |  parallelism-min = $cores
        |  parallelism-factor = 1.0
        |  parallelism-max = $cores
        |}
        |pekko.actor.internal-dispatcher.fork-join-executor {
        |  parallelism-min = $cores
        |  parallelism-max = $cores
        |}
        |""".stripMargin)
      .withFallback(ConfigFactory.load())

  /** -XX:ActiveProcessorCount is what the JVM reports; a run by hand without it must not claim what it did not have. */
  private def checkCores(cfg: Config): Unit = {
    val cpus = Runtime.getRuntime.availableProcessors
    if (cpus != cfg.cores)
      fail(s"${cfg.bench}: --cores ${cfg.cores} but the JVM has $cpus processors (start it with -XX:ActiveProcessorCount=${cfg.cores})")
  }

  /** A plain daemon thread, so that busy dispatcher threads cannot delay it. */
  private def armWatchdog(cfg: Config): Unit = {
    val watchdog = new Thread(() => {
      Thread.sleep((cfg.timeout * 1000).toLong)
      fail(s"timeout after ${cfg.timeout} s in ${cfg.bench}")
    }, "watchdog")
    watchdog.setDaemon(true)
    watchdog.start()
  }

  private def finish(result: Result): Unit = {
    if (result.received + result.lost != result.expected)
      fail(s"${result.bench}: received ${result.received} messages and lost ${result.lost}, expected ${result.expected}")
    Exit.synchronized {
      print(result.toJson + "\n")
      Console.out.flush()
      sys.exit(0)
    }
  }

  /** Ends the program at the first wrong count (spec §3.1): exit 1, one line on stderr. */
  def fail(message: String): Nothing = Exit.synchronized {
    System.err.println(s"micro: $message")
    sys.exit(1)
  }
}
