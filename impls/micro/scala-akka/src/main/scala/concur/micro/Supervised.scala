package concur.micro

import concur.micro.Main.fail
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior, ChildFailed, DeathPactException, SupervisorStrategy, Terminated}

import java.util.SplittableRandom
import java.util.concurrent.atomic.{AtomicLongArray, AtomicReferenceArray}
import scala.collection.mutable
import scala.concurrent.{ExecutionContext, Promise}
import scala.concurrent.duration.{DurationInt, DurationLong}

/** supervised (spec/MICRO.md §4.7): the pairs of §4.5, each pair one unit of Pekko supervision, while a killer makes
  * processes fail.
  *
  * Each pair is a pair actor that spawns and watches its A and B. A child that fails ends the pair actor: it leaves the
  * child's `ChildFailed` signal unhandled, which Pekko turns into a `DeathPactException`. The pair actor runs under
  * `Behaviors.supervise(…).onFailure[DeathPactException](SupervisorStrategy.restart…)`, whose restart stops the
  * surviving child, waits for it to end, and runs the pair's setup again: a new A and a new B, with new mailboxes.
  * A typed actor cannot be killed from outside, so a kill is a message, [[Kill]], whose handling throws.
  *
  * The end (§4.7 "The run."): at t0 + D a shared stop flag is set, which every A polls once per round trip and every
  * new A reads when it starts; the pairs stop first, and only then does the killer wait for the replacements of its
  * last kills, which end at once when they first run after the stop (late restarts).
  */
object Supervised {

  /** What A receives. */
  sealed trait Command
  case object Go extends Command
  final case class Pong(k: Long) extends Command

  /** What B receives. */
  sealed trait Request
  final case class Ping(k: Long, replyTo: ActorRef[Pong]) extends Request

  /** A's stop to B, once A has seen the stop flag. */
  case object Stop extends Request

  /** The kill: A and B both throw when they handle it. */
  case object Kill extends Command with Request

  /** The failure a kill causes; no stack trace, nobody reads it. */
  final class Killed extends RuntimeException("killed", null, false, false)

  /** What main receives. */
  sealed trait Event
  case object Ready extends Event
  case object Done extends Event
  final case class Outcome(kills: Long, restartLatencies: Array[Long], lateRestarts: Long) extends Event

  /** What the killer sends itself. */
  case object Tick

  /** Restarts a pair actor may make within a second before its supervisor gives up (README). */
  val RestartLimit = 1000

  /** The part of the program that outlives the processes: per pair, a slot of eight longs (one cache line, so that no
    * two pairs write the same line) holding the four counters of §4.7, the first clock read of its current A and B,
    * and whether the pair has ended for good; the current A's and B's addresses, which the processes write when they
    * start; and the stop flag shared by every generation of every pair.
    */
  private[micro] final class Board(val pairs: Int) {
    private val slots = new AtomicLongArray(8 * pairs)
    val a = new AtomicReferenceArray[ActorRef[Command]](pairs)
    val b = new AtomicReferenceArray[ActorRef[Request]](pairs)
    @volatile private var stopAt = 0L

    def count(pair: Int, counter: Int): Unit = slots.incrementAndGet(8 * pair + counter)
    def apply(pair: Int, counter: Int): Long = slots.get(8 * pair + counter)
    def started(pair: Int, role: Int, at: Long): Unit = slots.set(8 * pair + StartedA + role, at)
    def started(pair: Int, role: Int): Long = slots.get(8 * pair + StartedA + role)
    def ended(pair: Int): Unit = slots.set(8 * pair + Ended, 1L)
    def hasEnded(pair: Int): Boolean = slots.get(8 * pair + Ended) != 0L

    /** Raises the stop flag and returns the moment it was raised (its clock read, taken just before). */
    def stop(): Long = {
      val at = System.nanoTime()
      stopAt = at
      at
    }
    def stopped: Boolean = stopAt != 0L
  }
  final val PingsSent = 0
  final val PingsReceived = 1
  final val PongsSent = 2
  final val PongsReceived = 3
  private final val StartedA = 4
  private final val Ended = 6
  final val RoleA = 0
  final val RoleB = 1

  def apply(cfg: Config, result: Promise[Result]): Behavior[Event] = Behaviors.setup { ctx =>
    val p = cfg.pairs
    val board = new Board(p)
    for (i <- 0 until p) ctx.watch(ctx.spawn[Nothing](pair(i, board, ctx.self, cfg.dropOne && i == 0), s"pair$i"))
    var ready = 0
    var done = 0
    var ended = 0
    var t0 = 0L
    var elapsed = 0L
    var outcome = if (cfg.killRate > 0) None else Some(Outcome(0, Array.empty, 0))

    // t1 comes with the last of the p Dones (every pair stopped) and the killer's Outcome (every kill's replacement
    // has run); the result once every pair actor has also ended (untimed): Pekko delivers an actor's termination
    // before the messages it sent, so the two may come in any order.
    def finished(): Behavior[Event] = {
      if (elapsed == 0 && done == p && outcome.isDefined) elapsed = System.nanoTime() - t0
      outcome match {
        case Some(Outcome(kills, latencies, late)) if done == p && ended == p =>
          result.success(supervisedResult(cfg, elapsed, board, kills, latencies, late))
          Behaviors.stopped
        case _ => Behaviors.same
      }
    }

    Behaviors
      .receiveMessage[Event] {
        case Ready =>
          ready += 1
          if (ready == 2 * p) {
            t0 = System.nanoTime()
            for (i <- 0 until p) board.a.get(i) ! Go
            if (cfg.killRate > 0) ctx.spawn(killer(cfg, board, t0, ctx.self), "killer")
            else
              // No killer: the scheduler's own thread raises the stop flag after D (it needs no dispatcher thread).
              ctx.system.scheduler.scheduleOnce((cfg.seconds * 1e9).toLong.nanos, () => { board.stop(); () })(
                ExecutionContext.parasitic
              )
          }
          Behaviors.same
        case o: Outcome =>
          outcome = Some(o)
          finished()
        case Done =>
          done += 1
          finished()
      }
      .receiveSignal {
        case (_, ChildFailed(ref, cause)) => fail(s"supervised: ${ref.path.name} gave up after its restart limit: $cause")
        case (_, Terminated(_)) =>
          ended += 1
          finished()
      }
  }

  /** The pair actor: the unit of supervision. Its setup spawns a fresh B and A and watches both; a restart runs it
    * again. The generation is counted outside the setup, so it survives the restarts: only the first generation tells
    * main it is ready and waits for Go, a restarted A starts exchanging at once.
    *
    * The pair has stopped when both children have ended normally (A after the stop, B on A's Stop): it then marks its
    * slot ended and tells main. A child that fails in the meantime (a kill sent before the stop and handled after it)
    * still restarts the pair, whose new A sees the stop flag and ends at once: every kill that ended a process has a
    * replacement, and a pair that ended for good was not killed after its last replacement.
    */
  private[micro] def pair(i: Int, board: Board, main: ActorRef[Event], dropOne: Boolean): Behavior[Nothing] = {
    var generation = 0
    Behaviors
      .supervise[Nothing](Behaviors.setup[Nothing] { ctx =>
        generation += 1
        val first = generation == 1
        val b = ctx.spawn(dying(responder(i, board, main, first, dropOne && first)), "B")
        val a = ctx.spawn(dying(initiator(i, b, board, main, first)), "A")
        ctx.watch(b)
        ctx.watch(a)
        var ended = 0
        Behaviors.receiveSignal[Nothing] {
          // Unhandled: Pekko throws DeathPactException, and the supervisor restarts the pair.
          case (_, ChildFailed(_, _)) => Behaviors.unhandled
          // A child that ended normally (after the stop); once both have, the pair has stopped for good.
          case (_, Terminated(_)) =>
            ended += 1
            if (ended < 2) Behaviors.same
            else {
              board.ended(i)
              main ! Done
              Behaviors.stopped
            }
        }
      })
      .onFailure[DeathPactException](
        // The restart stops the surviving child and waits for its end before the new setup (stopChildren, the default).
        SupervisorStrategy.restart.withLimit(RestartLimit, 1.second).withLoggingEnabled(false)
      )
  }

  /** A child's own supervision: a kill stops it, as any failure would, but without Pekko's error log and stack
    * trace (the pair's supervisor is the one that acts on it).
    */
  private def dying[T](child: Behavior[T]): Behavior[T] =
    Behaviors.supervise(child).onFailure[Killed](SupervisorStrategy.stop.withLoggingEnabled(false))

  /** A: each pong starts the next round trip until the stop flag is up; A polls it once per round trip, so the round
    * trip in flight when it rises is the last. An A that first runs after the stop (a late replacement) records its
    * start and ends at once, without a ping, so that its generation loses nothing.
    */
  private def initiator(
      pair: Int,
      b: ActorRef[Request],
      board: Board,
      main: ActorRef[Event],
      first: Boolean
  ): Behavior[Command] = Behaviors.setup { ctx =>
    board.a.set(pair, ctx.self)
    board.started(pair, RoleA, System.nanoTime())
    var k = 1L

    def ping(): Unit = {
      board.count(pair, PingsSent)
      b ! Ping(k, ctx.self)
    }
    def checked(got: Long): Unit = {
      if (got != k) fail(s"supervised: pair $pair expected pong $k, got $got")
      board.count(pair, PongsReceived)
    }
    def unexpected(what: Command): Nothing = fail(s"supervised: pair $pair's A got an unexpected $what")
    def end(): Behavior[Command] = {
      b ! Stop
      Behaviors.stopped
    }

    val exchanging: Behavior[Command] = Behaviors.receiveMessage {
      case Pong(got) =>
        checked(got)
        if (board.stopped) end()
        else {
          k += 1
          ping()
          Behaviors.same
        }
      case Kill  => throw new Killed
      case other => unexpected(other)
    }
    if (board.stopped) end()
    else if (first) {
      main ! Ready
      Behaviors.receiveMessage {
        case Go =>
          ping()
          exchanging
        case other => unexpected(other)
      }
    } else {
      ping()
      exchanging
    }
  }

  /** B: pong(k) for ping(k), counting each, numbered from 1 in every generation, until its A's Stop. B does not read
    * the stop flag: its A may have sent a ping already, which B must answer for nothing to be lost. A B that first runs
    * after the stop therefore ends on its first message, the Stop of an A that was late too, or at most one round trip
    * later, when its A saw the stop at its pong.
    */
  private def responder(
      pair: Int,
      board: Board,
      main: ActorRef[Event],
      first: Boolean,
      dropOne: Boolean
  ): Behavior[Request] = Behaviors.setup { ctx =>
    board.b.set(pair, ctx.self)
    board.started(pair, RoleB, System.nanoTime())
    if (first) main ! Ready
    var received = 0L

    val answering: Behavior[Request] = Behaviors.receiveMessage {
      case Ping(k, replyTo) =>
        received += 1
        if (k != received) fail(s"supervised: pair $pair's B expected ping $received, got $k")
        board.count(pair, PingsReceived)
        board.count(pair, PongsSent)
        replyTo ! Pong(k)
        Behaviors.same
      case Stop   => Behaviors.stopped
      case Kill   => throw new Killed
    }
    // --drop-one: the first ping of the first generation is taken out of the mailbox and neither counted nor answered.
    lazy val droppingFirst: Behavior[Request] = Behaviors.receiveMessage {
      case _: Ping => answering
      case Stop    => Behaviors.stopped
      case Kill    => throw new Killed
    }
    if (dropOne) droppingFirst else answering
  }

  /** The killer, one of main's actors: from t0 to t0 + D it kills at K % of the 2P per second; then it raises the stop
    * flag, which stops every pair, waits until every kill's replacement has run (or its pair has ended for good without
    * one: see `settled`), and reports to main.
    *
    * It keeps time by sending itself a Tick after each look at the clock, not by a timer. Pekko's timers, like every
    * message sent from outside the dispatcher, reach the default dispatcher's fork-join pool as external submissions,
    * and on JDK 25 a worker drains its own queue before it looks at those: while the pairs keep both workers busy, a
    * timer's tick never runs (README). A Kill sent from outside (a thread's `!`) would be stuck the same way whenever
    * its victim's mailbox was idle. An actor that keeps itself scheduled runs once per turn of its worker's queue, and
    * its sends put the victims' mailboxes into that queue like any send between actors.
    */
  private def killer(cfg: Config, board: Board, t0: Long, main: ActorRef[Event]): Behavior[Tick.type] =
    Behaviors.setup { ctx =>
      val p = cfg.pairs
      val end = t0 + (cfg.seconds * 1e9).toLong
      val interval = 1e9 / (cfg.killRate / 100 * 2 * p) // ns between two kills
      val random = new SplittableRandom(20180607L)
      // Per pair, the last kill whose replacement has not been seen running: its clock read and role.
      val pending = new Array[Boolean](p)
      val killedAt = new Array[Long](p)
      val killedRole = new Array[Int](p)
      val latencies = mutable.ArrayBuilder.make[Long]
      var kills = 0L
      var late = 0L
      var stopAt = 0L
      var j = 1L
      var due = t0 + interval.toLong

      /* Whether both processes of pair i run: none was killed, or both started after its last kill, whose restart
       * latency (to the first clock read of the killed role's replacement) is then recorded, and counted late when
       * that read came after the stop. A process writes its address before its clock read, so a pair that runs has
       * its current addresses on the board.
       */
      def running(i: Int): Boolean = !pending(i) || {
        val at = killedAt(i)
        val replaced = board.started(i, RoleA) > at && board.started(i, RoleB) > at
        if (replaced) {
          val replacement = board.started(i, killedRole(i))
          latencies += replacement - at
          if (stopAt != 0 && replacement > stopAt) late += 1
          pending(i) = false
        }
        replaced
      }

      /* After the stop: whether pair i's last kill is settled, i.e. replaced, or its pair has ended for good without a
       * replacement. The latter is a kill whose Kill reached an A that had just seen the stop at the pong ahead of it
       * in its mailbox and ended normally: the Kill ended no process and lost no message, and it is not counted. (The
       * pair marks itself ended after its last processes started, so `running` is asked again after that mark.)
       */
      def settled(i: Int): Boolean =
        running(i) || board.hasEnded(i) && (running(i) || {
          pending(i) = false
          kills -= 1
          true
        })

      // A uniformly random pair and role; a pair still restarting after an earlier kill is skipped.
      def kill(): Unit = {
        val i = random.nextInt(p)
        val role = random.nextInt(2)
        if (running(i)) {
          val victim: ActorRef[Kill.type] = if (role == RoleA) board.a.get(i) else board.b.get(i)
          val at = System.nanoTime()
          victim ! Kill
          pending(i) = true
          killedAt(i) = at
          killedRole(i) = role
          kills += 1
        }
      }

      ctx.self ! Tick
      Behaviors.receiveMessage { _ =>
        val now = System.nanoTime()
        if (now < end) {
          while (due <= now && due < end) {
            kill()
            j += 1
            due = t0 + (j * interval).toLong
          }
          ctx.self ! Tick
          Behaviors.same
        } else {
          if (stopAt == 0) stopAt = board.stop() // first the pairs stop …
          if ((0 until p).forall(settled)) { //    … then the replacements are awaited
            main ! Outcome(kills, latencies.result(), late)
            Behaviors.stopped
          } else {
            ctx.self ! Tick
            Behaviors.same
          }
        }
      }
    }

  private[micro] def supervisedResult(
      cfg: Config,
      elapsed: Long,
      board: Board,
      kills: Long,
      latencies: Array[Long],
      lateRestarts: Long
  ): Result = {
    var sent = 0L
    var received = 0L
    var roundTrips = 0L
    for (i <- 0 until board.pairs) {
      sent += board(i, PingsSent) + board(i, PongsSent)
      received += board(i, PingsReceived) + board(i, PongsReceived)
      roundTrips += board(i, PongsReceived)
    }
    val lost = sent - received
    if (lost < 0) fail(s"supervised: received $received messages, more than the $sent sent")
    if (lost > kills) fail(s"supervised: lost $lost messages in $kills kills, at most one a kill")
    val sorted = latencies.sorted
    def nearestRank(percent: Int): Long =
      if (sorted.isEmpty) 0L else sorted(math.ceil(percent / 100.0 * sorted.length).toInt - 1)
    val params = Seq("pairs" -> cfg.pairs, "seconds" -> cfg.seconds, "kill_rate" -> cfg.killRate)
    Result(cfg, params, roundTrips, elapsed, received, sent).copy(
      extra = Seq(
        "round_trips" -> roundTrips,
        "messages" -> received,
        "messages_per_s" -> received / (elapsed / 1e9),
        "kills" -> kills,
        "lost" -> lost,
        "restart_p50_ns" -> nearestRank(50),
        "restart_p99_ns" -> nearestRank(99),
        "late_restarts" -> lateRestarts
      ),
      lost = lost
    )
  }
}
