package concur.micro

import concur.micro.Main.fail
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}

import scala.concurrent.Promise
import scala.concurrent.duration.DurationInt

/** spawn and maxprocs (spec/MICRO.md §4.3, §4.4): main spawns N actors as its children; each acknowledges that it
  * runs and then waits for its stop message. An actor costs its cell, its mailbox, its behavior and its entry in
  * main's children container.
  */
object Spawn {

  /** What main receives. */
  sealed trait Event
  case object Ack extends Event
  case object Stopped extends Event

  /** What a dormant actor receives. */
  case object Stop

  def apply(cfg: Config, result: Promise[Result]): Behavior[Event] = Behaviors.setup { ctx =>
    val n = cfg.procs
    val dormants = new Array[ActorRef[Stop.type]](n)
    val t0 = System.nanoTime()
    var created = 0
    try {
      while (created < n) {
        dormants(created) = ctx.spawnAnonymous(dormant(ctx.self))
        created += 1
      }
    } catch {
      case e: OutOfMemoryError => fail(s"${cfg.bench}: could not create process ${created + 1} of $n: $e")
    }
    var received = 0L
    var elapsed = 0L

    lazy val awaitingStopped: Behavior[Event] = Behaviors.receiveMessage {
      case Stopped =>
        received += 1
        if (received < 2L * n) Behaviors.same
        else {
          val res = Result(cfg, Seq("procs" -> n), n.toLong, elapsed, received, 2L * n)
          result.success(res.copy(extra = Seq("procs" -> n, "ns_per_proc" -> res.nsPerOp)))
          Behaviors.stopped
        }
      case Ack => fail("main expected a stopped message, got an ack")
    }
    lazy val awaitingAcks: Behavior[Event] = Behaviors.receiveMessage {
      case Ack =>
        received += 1
        if (received < n) Behaviors.same
        else {
          elapsed = System.nanoTime() - t0
          dormants.foreach(_ ! Stop)
          awaitingStopped
        }
      case Stopped => fail("main expected an ack, got a stopped message")
    }
    // --drop-one: the first ack is taken out of main's mailbox and ignored.
    if (cfg.dropOne) Behaviors.receiveMessage { _ => awaitingAcks } else awaitingAcks
  }

  /** Acknowledges that it runs, then waits for its stop message. */
  private def dormant(main: ActorRef[Event]): Behavior[Stop.type] = Behaviors.setup { _ =>
    main ! Ack
    Behaviors.receiveMessage { _ =>
      main ! Stopped
      Behaviors.stopped
    }
  }
}

/** idle (spec/MICRO.md §4.6): N actors each set a timer for M ms, tell main when it fires, and stop. */
object Idle {

  /** What main receives: one completion notice per actor. */
  case object Notice

  private case object Wake

  def apply(cfg: Config, result: Promise[Result]): Behavior[Notice.type] = Behaviors.setup { ctx =>
    val n = cfg.procs
    val sleepNs = cfg.sleepMs * 1000000L
    val t0 = System.nanoTime()
    for (_ <- 0 until n) ctx.spawnAnonymous(idler(cfg.sleepMs, ctx.self))
    var received = 0L

    val collecting: Behavior[Notice.type] = Behaviors.receiveMessage { _ =>
      received += 1
      if (received < n) Behaviors.same
      else {
        val elapsed = System.nanoTime() - t0
        if (elapsed < sleepNs) fail(s"idle: all tasks ended after $elapsed ns, before their sleep of $sleepNs ns")
        val res = Result(cfg, Seq("procs" -> n, "sleep_ms" -> cfg.sleepMs), n.toLong, elapsed, received, n.toLong)
        result.success(
          res.copy(nsPerOp = (elapsed - sleepNs).toDouble / n, extra = Seq("tasks" -> n, "sleep_ns" -> sleepNs))
        )
        Behaviors.stopped
      }
    }
    // --drop-one: one completion notice is taken out of main's mailbox and ignored.
    if (cfg.dropOne) Behaviors.receiveMessage { _ => collecting } else collecting
  }

  /** Pekko's timers are the actor's way to sleep: the scheduler sends Wake after M ms, no thread is held meanwhile. */
  private def idler(sleepMs: Int, main: ActorRef[Notice.type]): Behavior[Wake.type] = Behaviors.withTimers { timers =>
    timers.startSingleTimer(Wake, sleepMs.millis)
    Behaviors.receiveMessage { _ =>
      main ! Notice
      Behaviors.stopped
    }
  }
}
