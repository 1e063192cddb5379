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
        val run = run(1, listOf("pingpong", "--cores=1", "--reps=50", "--size", "7"))
        assertEquals(0, run.exitCode, run.stderr)
        assertEquals(50, ObjectMapper().readTree(run.stdout)["ops"].asInt())
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
        )
        val PARAMS = mapOf(
            "pingping" to setOf("size", "reps", "cores"),
            "pingpong" to setOf("reps", "cores"),
            "spawn" to setOf("procs", "cores"),
            "maxprocs" to setOf("procs", "cores"),
            "pairs" to setOf("pairs", "seconds", "cores"),
            "idle" to setOf("procs", "sleep_ms", "cores"),
        )
    }
}
