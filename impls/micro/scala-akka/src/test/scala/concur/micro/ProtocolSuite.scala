package concur.micro

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem}

import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit.{MILLISECONDS, SECONDS}
import scala.concurrent.{Await, Promise}
import scala.concurrent.duration.DurationInt

/** The protocol rules of spec/MICRO.md that a run from outside cannot force: §4.1's start, §4.5's empty run. */
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
}
