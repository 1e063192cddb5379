package concur.micro

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Path
import java.util.concurrent.CompletableFuture
import scala.jdk.CollectionConverters._

/** End-to-end tests: each runs the program in a fresh JVM, as concur micro does, so sys.exit, the watchdog and the
  * exit codes are tested exactly as they are seen from outside.
  */
class MainSuite extends munit.FunSuite {
  override val munitTimeout = scala.concurrent.duration.Duration(120, "s")

  private final case class Run(stdout: String, stderr: String, exitCode: Int)

  /** Runs the program on a JVM limited to `cores` processors. */
  private def run(cores: Int, args: Seq[String]): Run = {
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    // As the manifest's start command: Pekko 1.1 reads field offsets through sun.misc.Unsafe, which JDK 25 warns
    // about on stderr unless allowed.
    val command = Seq(java, s"-XX:ActiveProcessorCount=$cores", "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"), "concur.micro.Main") ++ args
    val builder = new ProcessBuilder(command.asJava)
    builder.environment().remove("CONCUR_CORES")
    val process = builder.start()
    val stdout = CompletableFuture.supplyAsync(() => new String(process.getInputStream.readAllBytes(), UTF_8))
    val stderr = CompletableFuture.supplyAsync(() => new String(process.getErrorStream.readAllBytes(), UTF_8))
    val code = process.waitFor()
    Run(stdout.join(), stderr.join(), code)
  }

  /** Parameters small enough for a second per run. */
  private val small = Map(
    "pingping" -> Seq("--size", "100", "--reps", "300"),
    "pingpong" -> Seq("--reps", "300"),
    "spawn" -> Seq("--procs", "300"),
    "maxprocs" -> Seq("--procs", "300"),
    "pairs" -> Seq("--pairs", "3", "--seconds", "0.2"),
    "idle" -> Seq("--procs", "300", "--sleep-ms", "20"),
    "supervised" -> Seq("--pairs", "3", "--seconds", "0.2")
  )

  private val params = Map(
    "pingping" -> Set("size", "reps", "cores"),
    "pingpong" -> Set("reps", "cores"),
    "spawn" -> Set("procs", "cores"),
    "maxprocs" -> Set("procs", "cores"),
    "pairs" -> Set("pairs", "seconds", "cores"),
    "idle" -> Set("procs", "sleep_ms", "cores"),
    "supervised" -> Set("pairs", "seconds", "kill_rate", "cores")
  )

  private def args(bench: String, more: String*): Seq[String] = (bench +: small(bench)) ++ more

  for (bench <- Config.Benches) test(s"$bench prints one verified JSON line") {
    val run = this.run(2, args(bench, "--cores", "2"))
    assertEquals(run.exitCode, 0, run.stderr)
    assert(run.stdout.endsWith("\n") && run.stdout.count(_ == '\n') == 1, s"one line, got ${run.stdout}")
    checkResult(bench, new ObjectMapper().readTree(run.stdout))
  }

  private def checkResult(bench: String, r: JsonNode): Unit = {
    assertEquals(r.get("schema").asInt, 1)
    assertEquals(r.get("bench").asText, bench)
    assertEquals(r.get("runtime").asText, "scala-akka")
    assertEquals(r.get("params").fieldNames.asScala.toSet, params(bench))
    assertEquals(r.get("params").get("cores").asInt, 2)
    assert(r.get("elapsed_ns").asLong > 0)
    assert(r.get("ns_per_op").isNumber)
    val received = r.get("checks").get("received").asLong
    assertEquals(received, r.get("checks").get("expected").asLong)
    val ops = r.get("ops").asLong
    bench match {
      case "pingping" | "pingpong" =>
        assertEquals(ops, 300L)
        assertEquals(received, 600L)
      case "spawn" | "maxprocs" =>
        assertEquals(ops, 300L)
        assertEquals(received, 600L)
        assertEquals(r.get("procs").asLong, 300L)
        assertEquals(r.get("ns_per_proc").asDouble, r.get("ns_per_op").asDouble)
      case "pairs" =>
        assert(ops > 0)
        assertEquals(r.get("round_trips").asLong, ops)
        assertEquals(r.get("messages").asLong, 2 * ops)
        assertEquals(received, 2 * ops)
        assert(r.get("messages_per_s").asDouble > 0)
        assert(r.get("min_pair_round_trips").asLong <= ops / 3)
      case "idle" =>
        assertEquals(ops, 300L)
        assertEquals(received, 300L)
        assertEquals(r.get("tasks").asLong, 300L)
        assertEquals(r.get("sleep_ns").asLong, 20000000L)
        assert(r.get("elapsed_ns").asLong >= 20000000L)
      case "supervised" =>
        // No --kill-rate: no kill, so nothing lost, no restart and no late one.
        checkSupervised(r)
        assert(ops > 0)
        assertEquals(r.get("params").get("kill_rate").asDouble, 0.0)
        for (field <- Seq("kills", "lost", "restart_p50_ns", "restart_p99_ns", "late_restarts"))
          assertEquals(r.get(field).asLong, 0L, field)
    }
  }

  /** The rules concur checks on a supervised line (§4.7, §7). */
  private def checkSupervised(r: JsonNode): Unit = {
    val ops = r.get("ops").asLong
    val elapsed = r.get("elapsed_ns").asLong
    val received = r.get("checks").get("received").asLong
    val lost = r.get("lost").asLong
    assertEquals(r.get("round_trips").asLong, ops)
    assertEquals(r.get("messages").asLong, received)
    assertEquals(received + lost, r.get("checks").get("expected").asLong)
    assert(lost <= r.get("kills").asLong, s"lost $lost in ${r.get("kills")} kills")
    assert(r.get("late_restarts").isIntegralNumber, "late_restarts")
    val late = r.get("late_restarts").asLong
    assert(0 <= late && late <= r.get("kills").asLong, s"late_restarts $late of ${r.get("kills")} kills")
    assertEqualsDouble(r.get("ns_per_op").asDouble, if (ops == 0) 0.0 else elapsed.toDouble / ops, 1e-6)
    val perSecond = received / (elapsed / 1e9)
    assertEqualsDouble(r.get("messages_per_s").asDouble, perSecond, perSecond * 1e-9)
  }

  // spec §4.7, §8: kills at 200 % of the 8 processes per second for half a second, each replaced. At the end the pairs
  // stop first and the replacements are awaited after; a replacement that first ran after the stop is a late restart.
  test("supervised with kills: every kill replaced, the pairs still exchanging") {
    val run = this.run(2, Seq("supervised", "--pairs", "4", "--seconds", "0.5", "--kill-rate", "200", "--cores", "2"))
    assertEquals(run.exitCode, 0, run.stderr)
    assertEquals(run.stderr, "")
    val r = new ObjectMapper().readTree(run.stdout)
    assertEquals(r.get("params").get("kill_rate").asDouble, 200.0)
    checkSupervised(r)
    assert(r.get("kills").asLong > 0, run.stdout)
    assert(r.get("restart_p50_ns").asLong > 0, run.stdout)
    assert(r.get("restart_p99_ns").asLong >= r.get("restart_p50_ns").asLong, run.stdout)
    assert(r.get("round_trips").asLong > 0, run.stdout)
    val late = r.get("late_restarts").asLong
    assert(0 <= late && late <= r.get("kills").asLong, run.stdout)
  }

  // spec/MICRO.md §3.3: a lost message must fail the run, through a check or the watchdog.
  for (bench <- Config.Benches) test(s"$bench --drop-one fails verification") {
    val run = this.run(1, args(bench, "--cores", "1", "--drop-one", "--timeout", "2"))
    assertEquals(run.exitCode, 1, run.stderr)
    assertEquals(run.stdout, "")
    assert(run.stderr.startsWith("micro: "), run.stderr)
  }

  for (
    line <- Seq(
      "", "nosuch", "pingping --reps 10k", "pingping --reps 0", "pingping --size", "pingping --bogus 1",
      "pingping --reps 1 --reps 2", "pairs --seconds -1", "pairs --seconds NaN", "pairs --seconds 1e3",
      "idle --sleep-ms -5", "spawn --procs 99999999999", "spawn --cores 0", "spawn --drop-one=yes",
      "supervised --kill-rate 1001", "supervised --kill-rate 5%",
      "pairs --kill-rate NaN"
    )
  ) test(s"bad arguments exit 2: '$line'") {
    val run = this.run(1, if (line.isEmpty) Nil else line.split(" ").toSeq)
    assertEquals(run.exitCode, 2, run.stderr)
    assertEquals(run.stdout, "")
    assertEquals(run.stderr.linesIterator.count(_.nonEmpty), 1, run.stderr)
  }

  test("the --flag=value form and any order are accepted") {
    val run = this.run(1, Seq("pingpong", "--cores=1", "--reps=50", "--size", "7"))
    assertEquals(run.exitCode, 0, run.stderr)
    assertEquals(new ObjectMapper().readTree(run.stdout).get("ops").asInt, 50)
  }

  // spec §6: the program reports the parallelism it had and refuses to claim another.
  test("--cores other than the JVM's fails") {
    val run = this.run(1, Seq("pingpong", "--reps", "10", "--cores", "2"))
    assertEquals(run.exitCode, 1, run.stderr)
    assertEquals(run.stdout, "")
  }
}
