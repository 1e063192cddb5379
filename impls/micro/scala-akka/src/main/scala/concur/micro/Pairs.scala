package concur.micro

import concur.micro.Main.fail
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}

import scala.concurrent.{ExecutionContext, Promise}
import scala.concurrent.duration.DurationLong

/** pairs (spec/MICRO.md §4.5): P pairs (A_i, B_i) bounce a number for D seconds; main then sends each A_i a stop
  * message, Akka's way to end an actor's work. B_i is the [[Ponger]].
  */
object Pairs {

  /** What A_i receives (and [[Ponger.Pong]]). */
  trait Command
  final case class Go(b: ActorRef[Ponger.Command]) extends Command
  case object Stop extends Command

  /** What main receives. */
  sealed trait Event
  case object Ready extends Event
  final case class Done(pair: Int, roundTrips: Long) extends Event
  final case class Echoed(pair: Int, pings: Long) extends Event

  def apply(cfg: Config, result: Promise[Result]): Behavior[Event] = Behaviors.setup { ctx =>
    val p = cfg.pairs
    val pairs = Vector.tabulate(p) { i =>
      val a = ctx.spawn(initiator(i, ctx.self), s"A$i")
      val b = ctx.spawn(Ponger(s"pairs: pair $i", ctx.self, Ready, Echoed(i, _), cfg.dropOne && i == 0), s"B$i")
      (a, b)
    }
    val roundTrips = new Array[Long](p)
    val pings = new Array[Long](p)
    var ready = 0
    var done = 0
    var t0 = 0L

    def collected(): Behavior[Event] = {
      done += 1
      if (done < 2 * p) Behaviors.same
      else {
        result.success(pairsResult(cfg, System.nanoTime() - t0, roundTrips, pings))
        Behaviors.stopped
      }
    }

    Behaviors.receiveMessage {
      case Ready =>
        ready += 1
        if (ready == 2 * p) {
          t0 = System.nanoTime()
          pairs.foreach { case (a, b) => a ! Go(b) }
          // The scheduler's own thread puts the Stops into the A_i's mailboxes
          // (parasitic: no hop through the dispatcher). A timer message to main,
          // or ctx.scheduleOnce, would be handed to the dispatcher from outside,
          // and its fork-join workers, busy with the pairs' hand-offs in their
          // own queues, never look at that queue (README).
          ctx.system.scheduler.scheduleOnce(
            (cfg.seconds * 1e9).toLong.nanos,
            () => pairs.foreach { case (a, _) => a ! Stop }
          )(ExecutionContext.parasitic)
        }
        Behaviors.same
      case Done(i, n) =>
        roundTrips(i) = n
        collected()
      case Echoed(i, n) =>
        pings(i) = n
        collected()
    }
  }

  /** A_i: each pong starts the next round trip until Stop; the round trip then in flight is the last. */
  private def initiator(pair: Int, main: ActorRef[Event]): Behavior[Command] = Behaviors.setup { ctx =>
    main ! Ready
    var b: ActorRef[Ponger.Command] = null
    var k = 1L

    def checked(got: Long): Unit = if (got != k) fail(s"pairs: pair $pair expected pong $k, got $got")

    val stopping: Behavior[Command] = Behaviors.receiveMessage {
      case Ponger.Pong(got) =>
        checked(got)
        b ! Ponger.Stop
        main ! Done(pair, k)
        Behaviors.stopped
      case _ => Behaviors.unhandled
    }
    Behaviors.receiveMessage {
      case Go(peer) =>
        b = peer
        b ! Ponger.Ping(k, ctx.self)
        Behaviors.same
      case Ponger.Pong(got) =>
        checked(got)
        k += 1
        b ! Ponger.Ping(k, ctx.self)
        Behaviors.same
      case Stop => stopping
    }
  }

  private[micro] def pairsResult(cfg: Config, elapsed: Long, roundTrips: Array[Long], pings: Array[Long]): Result = {
    for (i <- roundTrips.indices if roundTrips(i) != pings(i))
      fail(s"pairs: pair $i made ${roundTrips(i)} round trips but its B received ${pings(i)} pings")
    val total = roundTrips.sum
    Result(cfg, Seq("pairs" -> cfg.pairs, "seconds" -> cfg.seconds), total, elapsed, total + pings.sum, 2 * total)
      .copy(extra =
        Seq(
          "round_trips" -> total,
          "messages" -> 2 * total,
          "messages_per_s" -> 2 * total / (elapsed / 1e9),
          "min_pair_round_trips" -> roundTrips.min
        )
      )
  }
}
