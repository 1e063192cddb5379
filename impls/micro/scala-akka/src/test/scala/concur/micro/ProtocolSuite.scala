package concur.micro

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem, Terminated}

import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit.{MILLISECONDS, SECONDS}
import scala.concurrent.{Await, Promise}
import scala.concurrent.duration.DurationInt

/** The protocol rules of spec/MICRO.md that a run from outside cannot force: §4.1's start, §4.5's empty run, §4.7's
  * restart of a whole pair.
  */
class ProtocolSuite extends munit.FunSuite {

  test("pingping sides start on their own Go, even after the peer's first parcel (B expected GO, got Parcel)") {
    val cfg = Config("pingping", size = 100, reps = 50, cores = 1)
    // The test is main: the guardian only spawns A and B and hands main's events to this thread.
    val events = new LinkedBlockingQueue[PingPing.Event]()
    val sides = Promise[(ActorRef[PingPing.Command], ActorRef[PingPing.Command])]()
    val system = ActorSystem(
      Behaviors.setup[PingPing.Event] { ctx =>
        sides.success((
          ctx.spawn(PingPing.exchanger("A", cfg, ctx.self, dropOne = false), "A"),
          ctx.spawn(PingPing.exchanger("B", cfg, ctx.self, dropOne = false), "B")
        ))
        Behaviors.receiveMessage { event => events.put(event); Behaviors.same }
      },
      "protocol"
    )
    try {
      val (a, b) = Await.result(sides.future, 10.seconds)
      assertEquals(events.poll(10, SECONDS), PingPing.Ready)
      assertEquals(events.poll(10, SECONDS), PingPing.Ready)
      a ! PingPing.Go(b)
      assertEquals(events.poll(100, MILLISECONDS), null, "nothing may finish while B waits for its Go")
      b ! PingPing.Go(a)
      assertEquals(events.poll(10, SECONDS), PingPing.Done(50))
      assertEquals(events.poll(10, SECONDS), PingPing.Done(50))
    } finally system.terminate()
  }

  test("pairs with no round trip print zeros and no error") {
    val cfg = Config("pairs", pairs = 2, seconds = 0.001, cores = 1)
    val line = new ObjectMapper().readTree(Pairs.pairsResult(cfg, 1500000L, new Array[Long](2), new Array[Long](2)).toJson)
    for (field <- Seq("ops", "round_trips", "messages", "min_pair_round_trips"))
      assertEquals(line.get(field).asLong, 0L, field)
    assertEquals(line.get("ns_per_op").asDouble, 0.0)
    assertEquals(line.get("messages_per_s").asDouble, 0.0)
    assertEquals(line.get("checks").get("received"), line.get("checks").get("expected"))
    assertEquals(line.get("elapsed_ns").asLong, 1500000L)
  }

  test("supervised: a pair whose B is killed by hand restarts as a whole, with a new A and a new B") {
    import Supervised._
    final case class Watch(ref: ActorRef[Nothing])
    final case class Ended(ref: ActorRef[Nothing])
    // The test is main: the guardian spawns one pair actor, watches what it is told to, and hands every event to
    // this thread.
    val board = new Board(1)
    val events = new LinkedBlockingQueue[Any]()
    val system = ActorSystem[Any](
      Behaviors.setup[Any] { ctx =>
        ctx.watch(ctx.spawn[Nothing](pair(0, board, ctx.self, dropOne = false), "pair0"))
        Behaviors
          .receiveMessage[Any] {
            case Watch(ref) =>
              ctx.watch(ref)
              Behaviors.same
            case event =>
              events.put(event)
              Behaviors.same
          }
          .receiveSignal { case (_, Terminated(ref)) =>
            events.put(Ended(ref))
            Behaviors.same
          }
      },
      "supervised"
    )
    def eventually(what: String)(condition: => Boolean): Unit = {
      val deadline = System.nanoTime() + 10000000000L
      while (!condition) {
        assert(System.nanoTime() < deadline, s"not within 10 s: $what")
        Thread.sleep(1)
      }
    }
    try {
      assertEquals(events.poll(10, SECONDS), Ready)
      assertEquals(events.poll(10, SECONDS), Ready)
      board.a.get(0) ! Go
      eventually("10 round trips")(board(0, PongsReceived) >= 10)
      val (oldA, oldB) = (board.a.get(0), board.b.get(0))
      system ! Watch(oldA)
      system ! Watch(oldB)
      val killedAt = System.nanoTime()
      oldB ! Kill

      eventually("a new A and a new B running")(
        board.started(0, RoleA) > killedAt && board.started(0, RoleB) > killedAt
      )
      assertNotEquals(board.a.get(0), oldA)
      assertNotEquals(board.b.get(0), oldB)
      assertEquals(Set(events.poll(10, SECONDS), events.poll(10, SECONDS)), Set[Any](Ended(oldA), Ended(oldB)))
      // The new A started from ping(1) without a Go (B checks the numbers), and no new Ready came.
      val before = board(0, PongsReceived)
      eventually("10 more round trips")(board(0, PongsReceived) >= before + 10)
      assertEquals(events.poll(50, MILLISECONDS), null)

      // The stop flag: A sees it at its next pong, tells B, and the pair actor reports Done once both have ended.
      // (The pair actor's end is a system message, which may overtake its Done.)
      board.stop()
      val last = Seq(events.poll(10, SECONDS), events.poll(10, SECONDS))
      assert(last.contains(Done), last)
      assertEquals(last.collect { case Ended(ref) => ref.path.name }, Seq("pair0"), last)
      val sent = board(0, PingsSent) + board(0, PongsSent)
      val received = board(0, PingsReceived) + board(0, PongsReceived)
      assert(sent - received <= 1, s"one kill lost ${sent - received} messages")
    } finally system.terminate()
  }
}
