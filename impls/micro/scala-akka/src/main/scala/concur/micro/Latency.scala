package concur.micro

import concur.micro.Main.fail
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}

import scala.concurrent.Promise

/** pingping (spec/MICRO.md §4.1): two actors A and B send each other message k, then wait for the other's. */
object PingPing {

  /** What A and B receive. */
  sealed trait Command
  final case class Go(peer: ActorRef[Command]) extends Command

  /** One message: its number and a fresh payload, shared by reference as every JVM message is. */
  final case class Parcel(k: Int, data: Array[Byte]) extends Command

  /** What main receives. */
  sealed trait Event
  case object Ready extends Event
  final case class Done(received: Long) extends Event

  def apply(cfg: Config, result: Promise[Result]): Behavior[Event] = Behaviors.setup { ctx =>
    val a = ctx.spawn(exchanger("A", cfg, ctx.self, dropOne = false), "A")
    val b = ctx.spawn(exchanger("B", cfg, ctx.self, cfg.dropOne), "B")
    var ready = 0
    var t0 = 0L
    var received = 0L
    var done = 0
    Behaviors.receiveMessage {
      case Ready =>
        ready += 1
        if (ready == 2) {
          t0 = System.nanoTime()
          a ! Go(b)
          b ! Go(a)
        }
        Behaviors.same
      case Done(n) =>
        received += n
        done += 1
        if (done < 2) Behaviors.same
        else {
          val elapsed = System.nanoTime() - t0
          val params = Seq("size" -> cfg.size, "reps" -> cfg.reps)
          result.success(Result(cfg, params, cfg.reps.toLong, elapsed, received, 2L * cfg.reps))
          Behaviors.stopped
        }
    }
  }

  /** One side of the exchange. As an actor it cannot block in receive, so its state counts what it has sent and
    * received: it sends message k+1 once it has both sent k and received the other's k, exactly the loop
    * "send k, receive k". Go, its own message from main, starts it; the other's message 1 may arrive before Go and is
    * then stashed, not received, until Go (spec/MICRO.md §4.1). Only message 1 can come early: the other sends
    * message 2 after receiving this side's message 1, which needs Go.
    */
  private[micro] def exchanger(name: String, cfg: Config, main: ActorRef[Event], dropOne: Boolean): Behavior[Command] =
    Behaviors.withStash[Command](1) { early =>
      Behaviors.setup { _ =>
        main ! Ready
        var peer: ActorRef[Command] = null
        var sent = 0
        var got = 0

        def sendAhead(): Unit =
          while (sent < cfg.reps && sent <= got) {
            sent += 1
            peer ! Parcel(sent, payload(cfg.size, sent))
          }

        def secondGo(): Nothing = fail(s"pingping: process $name received a second Go")

        lazy val exchanging: Behavior[Command] = Behaviors.receiveMessage {
          case Parcel(k, data) =>
            check(name, k, got + 1, data, cfg.size)
            got = k
            sendAhead()
            if (got < cfg.reps) Behaviors.same
            else {
              main ! Done(got)
              Behaviors.stopped
            }
          case Go(_) => secondGo()
        }
        // --drop-one: the first parcel is taken out of the mailbox and ignored.
        lazy val droppingFirst: Behavior[Command] = Behaviors.receiveMessage {
          case _: Parcel => exchanging
          case Go(_)     => secondGo()
        }
        Behaviors.receiveMessage {
          case Go(p) =>
            peer = p
            sendAhead()
            early.unstashAll(if (dropOne) droppingFirst else exchanging)
          case parcel: Parcel =>
            early.stash(parcel)
            Behaviors.same
        }
      }
    }

  /** A fresh payload, every byte k mod 251 (the JVM zeroes it first; no API avoids that). */
  private def payload(size: Int, k: Int): Array[Byte] = {
    val data = new Array[Byte](size)
    java.util.Arrays.fill(data, (k % 251).toByte)
    data
  }

  private def check(name: String, k: Int, expected: Int, data: Array[Byte], size: Int): Unit = {
    val fill = (expected % 251).toByte
    if (k != expected) fail(s"pingping: process $name expected message $expected, got $k")
    if (data.length != size) fail(s"pingping: process $name: message $k has ${data.length} bytes, expected $size")
    if (data(0) != fill || data(size - 1) != fill) fail(s"pingping: process $name: message $k is not filled with $fill")
  }
}

/** pingpong (spec/MICRO.md §4.2): the pinger sends ping(k) with its address, the ponger answers pong(k). */
object PingPong {

  /** What the pinger receives. */
  sealed trait Command
  final case class Go(ponger: ActorRef[Ponger.Command]) extends Command

  /** What main receives. */
  sealed trait Event
  case object Ready extends Event
  final case class Done(received: Long) extends Event
  final case class PongerDone(received: Long) extends Event

  def apply(cfg: Config, result: Promise[Result]): Behavior[Event] = Behaviors.setup { ctx =>
    val pinger = ctx.spawn(this.pinger(cfg.reps, ctx.self), "pinger")
    val ponger = ctx.spawn(Ponger("pingpong: ponger", ctx.self, Ready, PongerDone(_), cfg.dropOne), "ponger")
    var ready = 0
    var t0 = 0L
    var elapsed = 0L
    var pongs = 0L
    Behaviors.receiveMessage {
      case Ready =>
        ready += 1
        if (ready == 2) {
          t0 = System.nanoTime()
          pinger ! Go(ponger)
        }
        Behaviors.same
      case Done(n) =>
        elapsed = System.nanoTime() - t0
        pongs = n
        ponger ! Ponger.Stop
        Behaviors.same
      case PongerDone(pings) =>
        result.success(Result(cfg, Seq("reps" -> cfg.reps), cfg.reps.toLong, elapsed, pongs + pings, 2L * cfg.reps))
        Behaviors.stopped
    }
  }

  private def pinger(reps: Int, main: ActorRef[Event]): Behavior[Command] = Behaviors.setup { ctx =>
    main ! Ready
    var ponger: ActorRef[Ponger.Command] = null
    var k = 1L
    Behaviors.receiveMessage {
      case Go(p) =>
        ponger = p
        ponger ! Ponger.Ping(k, ctx.self)
        Behaviors.same
      case Ponger.Pong(got) =>
        if (got != k) fail(s"pingpong: pinger expected pong $k, got $got")
        if (k == reps) {
          main ! Done(k)
          Behaviors.stopped
        } else {
          k += 1
          ponger ! Ponger.Ping(k, ctx.self)
          Behaviors.same
        }
    }
  }
}

/** The answering side of pingpong and of every pair: pong(k) for ping(k), its count to main on Stop. */
object Ponger {
  sealed trait Command
  final case class Ping(k: Long, replyTo: ActorRef[Pong]) extends Command
  case object Stop extends Command

  /** The answer; both pingpong's pinger and pairs' A accept it. */
  final case class Pong(k: Long) extends PingPong.Command with Pairs.Command

  /** @param ready  main's ready message
    * @param report main's message carrying the number of pings received
    */
  def apply[E](name: String, main: ActorRef[E], ready: E, report: Long => E, dropOne: Boolean): Behavior[Command] =
    Behaviors.setup { _ =>
      main ! ready
      var received = 0L

      def stop(): Behavior[Command] = {
        main ! report(received)
        Behaviors.stopped
      }

      val answering: Behavior[Command] = Behaviors.receiveMessage {
        case Ping(k, replyTo) =>
          received += 1
          if (k != received) fail(s"$name expected ping $received, got $k")
          replyTo ! Pong(k)
          Behaviors.same
        case Stop => stop()
      }
      // --drop-one: the first ping is taken out of the mailbox and neither counted nor answered.
      lazy val droppingFirst: Behavior[Command] = Behaviors.receiveMessage {
        case _: Ping => answering
        case Stop    => stop()
      }
      if (dropOne) droppingFirst else answering
    }
}
