package concur.micro

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import java.nio.file.Path
import java.util.concurrent.CompletableFuture
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * End-to-end tests: each runs the program in a fresh JVM, as concur micro
 * does, so exitProcess, the watchdog and the exit codes are tested exactly as
 * they are seen from outside.
 */
class MainTest {
    private data class Run(val stdout: String, val stderr: String, val exitCode: Int)

    /** Runs the program on a JVM limited to [cores] processors. */
    private fun run(cores: Int, args: List<String>): Run {
        val java = Path.of(System.getProperty("java.home"), "bin", "java").toString()
        val command = listOf(java, "-XX:ActiveProcessorCount=$cores", "-cp", System.getProperty("java.class.path"), "concur.micro.MainKt") + args
        val builder = ProcessBuilder(command)
        builder.environment().remove("CONCUR_CORES")
        val process = builder.start()
        val stdout = CompletableFuture.supplyAsync { process.inputStream.readBytes().decodeToString() }
        val stderr = CompletableFuture.supplyAsync { process.errorStream.readBytes().decodeToString() }
        val code = process.waitFor()
        return Run(stdout.join(), stderr.join(), code)
    }

    private fun args(bench: String, vararg more: String) = listOf(bench) + SMALL.getValue(bench) + more

    @Test
    fun everyBenchPrintsOneVerifiedJsonLine() {
        for (bench in BENCHES) {
            val run = run(2, args(bench, "--cores", "2"))
            assertEquals(0, run.exitCode, "$bench: ${run.stderr}")
            assertTrue(run.stdout.endsWith("\n") && run.stdout.count { it == '\n' } == 1, "$bench: one line, got ${run.stdout}")
            checkResult(bench, ObjectMapper().readTree(run.stdout))
        }
    }

    private fun checkResult(bench: String, r: JsonNode) {
        assertEquals(1, r["schema"].asInt())
        assertEquals(bench, r["bench"].asText())
        assertEquals("kotlin-coroutines", r["runtime"].asText())
        assertEquals(PARAMS.getValue(bench), r["params"].fieldNames().asSequence().toSet(), bench)
        assertEquals(2, r["params"]["cores"].asInt())
        assertTrue(r["elapsed_ns"].asLong() > 0)
        assertTrue(r["ns_per_op"].isNumber)
        val received = r["checks"]["received"].asLong()
        assertEquals(r["checks"]["expected"].asLong(), received, bench)
        val ops = r["ops"].asLong()
        when (bench) {
            "pingping", "pingpong" -> {
                assertEquals(300, ops)
                assertEquals(600, received)
            }
            "spawn", "maxprocs" -> {
                assertEquals(300, ops)
                assertEquals(600, received)
                assertEquals(300, r["procs"].asLong())
                assertEquals(r["ns_per_op"].asDouble(), r["ns_per_proc"].asDouble())
            }
            "pairs" -> {
                assertTrue(ops > 0)
                assertEquals(ops, r["round_trips"].asLong())
                assertEquals(2 * ops, r["messages"].asLong())
                assertEquals(2 * ops, received)
                assertTrue(r["messages_per_s"].asDouble() > 0)
                assertTrue(r["min_pair_round_trips"].asLong() <= ops / 3)
            }
            "supervised" -> {
                checkSupervised(r)
                assertTrue(ops > 0)
                assertEquals(0, r["kills"].asLong())
                assertEquals(0, r["lost"].asLong())
                assertEquals(0, r["restart_p50_ns"].asLong())
                assertEquals(0, r["restart_p99_ns"].asLong())
                assertEquals(0, r["late_restarts"].asLong())
            }
            "idle" -> {
                assertEquals(300, ops)
                assertEquals(300, received)
                assertEquals(300, r["tasks"].asLong())
                assertEquals(20_000_000L, r["sleep_ns"].asLong())
                assertTrue(r["elapsed_ns"].asLong() >= 20_000_000L)
            }
            else -> error(bench)
        }
    }

    /** The rules concur checks a supervised line by (spec/MICRO.md §4.7, §7). */
    private fun checkSupervised(r: JsonNode) {
        val ops = r["ops"].asLong()
        val elapsed = r["elapsed_ns"].asLong()
        val messages = r["messages"].asLong()
        val kills = r["kills"].asLong()
        val lost = r["lost"].asLong()
        assertEquals(ops, r["round_trips"].asLong())
        assertEquals(elapsed.toDouble() / ops, r["ns_per_op"].asDouble(), 1e-6 * elapsed / ops)
        assertEquals(r["checks"]["received"].asLong(), messages)
        assertEquals(r["checks"]["expected"].asLong(), messages + lost)
        assertEquals(messages / (elapsed / 1e9), r["messages_per_s"].asDouble(), 1e-6 * messages / (elapsed / 1e9))
        assertTrue(lost in 0..kills, "lost $lost, kills $kills")
        assertTrue(r["restart_p50_ns"].asLong() <= r["restart_p99_ns"].asLong())
        assertTrue(r["late_restarts"].asLong() in 0..kills, "late_restarts ${r["late_restarts"]}, kills $kills")
    }

    /** spec/MICRO.md §4.7: every kill is replaced, and the tree still exchanges after them. */
    @Test
    fun supervisedReplacesEveryKilledProcess() {
        // 16 processes, 16 kills per second: 7 kills due in the half second.
        val run = run(2, listOf("supervised", "--pairs", "8", "--seconds", "0.5", "--kill-rate", "100", "--cores", "2"))
        assertEquals(0, run.exitCode, run.stderr)
        val r = ObjectMapper().readTree(run.stdout)
        assertEquals(setOf("pairs", "seconds", "kill_rate", "cores"), r["params"].fieldNames().asSequence().toSet())
        assertEquals(100.0, r["params"]["kill_rate"].asDouble())
        checkSupervised(r)
        assertTrue(r["kills"].asLong() > 0, run.stdout)
        assertTrue(r["restart_p50_ns"].asLong() > 0, run.stdout)
        assertTrue(r["round_trips"].asLong() > 0, run.stdout)
    }

    /** spec/MICRO.md §3.3: a lost message must fail the run, through a check or the watchdog. */
    @Test
    fun dropOneFailsVerification() {
        for (bench in BENCHES) {
            val run = run(1, args(bench, "--cores", "1", "--drop-one", "--timeout", "2"))
            assertEquals(1, run.exitCode, "$bench: ${run.stderr}")
            assertEquals("", run.stdout, bench)
            assertTrue(run.stderr.startsWith("micro: "), "$bench: ${run.stderr}")
        }
    }

    @Test
    fun badArgumentsExit2() {
        val lines = listOf(
            "", "nosuch", "pingping --reps 10k", "pingping --reps 0", "pingping --size", "pingping --bogus 1",
            "pingping --reps 1 --reps 2", "pairs --seconds -1", "pairs --seconds NaN", "pairs --seconds 1e3",
            "idle --sleep-ms -5", "spawn --procs 99999999999", "spawn --cores 0", "spawn --drop-one=yes",
            "supervised --kill-rate -1", "supervised --kill-rate 1001", "supervised --kill-rate 1e2",
        )
        for (line in lines) {
            val run = run(1, if (line.isEmpty()) emptyList() else line.split(" "))
            assertEquals(2, run.exitCode, "'$line': ${run.stderr}")
            assertEquals("", run.stdout, line)
            assertEquals(1, run.stderr.lines().count { it.isNotEmpty() }, "'$line': ${run.stderr}")
        }
    }

    @Test
    fun equalsFormAndAnyOrderAreAccepted() {
        val run = run(1, listOf("pingpong", "--cores=1", "--reps=50", "--size", "7", "--kill-rate=5"))
        assertEquals(0, run.exitCode, run.stderr)
        val r = ObjectMapper().readTree(run.stdout)
        assertEquals(50, r["ops"].asInt())
        assertEquals(setOf("reps", "cores"), r["params"].fieldNames().asSequence().toSet(), "flags a benchmark does not use are not echoed")
    }

    /** spec §6: the program reports the parallelism it had and refuses to claim another. */
    @Test
    fun coresOtherThanTheJvmsFail() {
        val run = run(1, listOf("pingpong", "--reps", "10", "--cores", "2"))
        assertEquals(1, run.exitCode, run.stderr)
        assertEquals("", run.stdout)
    }

    private companion object {
        /** Parameters small enough for a second per run. */
        val SMALL = mapOf(
            "pingping" to listOf("--size", "100", "--reps", "300"),
            "pingpong" to listOf("--reps", "300"),
            "spawn" to listOf("--procs", "300"),
            "maxprocs" to listOf("--procs", "300"),
            "pairs" to listOf("--pairs", "3", "--seconds", "0.2"),
            "idle" to listOf("--procs", "300", "--sleep-ms", "20"),
            "supervised" to listOf("--pairs", "4", "--seconds", "0.2", "--kill-rate", "0"),
        )
        val PARAMS = mapOf(
            "pingping" to setOf("size", "reps", "cores"),
            "pingpong" to setOf("reps", "cores"),
            "spawn" to setOf("procs", "cores"),
            "maxprocs" to setOf("procs", "cores"),
            "pairs" to setOf("pairs", "seconds", "cores"),
            "idle" to setOf("procs", "sleep_ms", "cores"),
            "supervised" to setOf("pairs", "seconds", "kill_rate", "cores"),
        )
    }
}
