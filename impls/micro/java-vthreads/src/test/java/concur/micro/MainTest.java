package concur.micro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * End-to-end tests: each runs the program in a fresh JVM, as concur micro
 * does, so System.exit, the watchdog and the exit codes are tested exactly as
 * they are seen from outside.
 */
class MainTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Parameters small enough for a second per run. */
    private static final Map<String, List<String>> SMALL = Map.of(
            "pingping", List.of("--size", "100", "--reps", "300"),
            "pingpong", List.of("--reps", "300"),
            "spawn", List.of("--procs", "300"),
            "maxprocs", List.of("--procs", "300"),
            "pairs", List.of("--pairs", "3", "--seconds", "0.2"),
            "idle", List.of("--procs", "300", "--sleep-ms", "20"),
            "supervised", List.of("--pairs", "3", "--seconds", "0.2"));

    private static final Map<String, Set<String>> PARAMS = Map.of(
            "pingping", Set.of("size", "reps", "cores"),
            "pingpong", Set.of("reps", "cores"),
            "spawn", Set.of("procs", "cores"),
            "maxprocs", Set.of("procs", "cores"),
            "pairs", Set.of("pairs", "seconds", "cores"),
            "idle", Set.of("procs", "sleep_ms", "cores"),
            "supervised", Set.of("pairs", "seconds", "kill_rate", "cores"));

    record Run(String stdout, String stderr, int exitCode) {}

    /** Runs the program on a JVM limited to {@code cores} processors. */
    static Run run(int cores, List<String> args) throws IOException, InterruptedException {
        var command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-preview",
                "-XX:ActiveProcessorCount=" + cores,
                "-Djdk.virtualThreadScheduler.parallelism=" + cores,
                "-cp", System.getProperty("java.class.path"),
                "concur.micro.Main"));
        command.addAll(args);
        var builder = new ProcessBuilder(command);
        builder.environment().remove("CONCUR_CORES");
        var process = builder.start();
        var stdout = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
        var stderr = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        int code = process.waitFor();
        return new Run(stdout.join(), stderr.join(), code);
    }

    private static String read(java.io.InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> args(String bench, String... more) {
        var args = new ArrayList<String>();
        args.add(bench);
        args.addAll(SMALL.get(bench));
        args.addAll(List.of(more));
        return args;
    }

    @ParameterizedTest
    @ValueSource(strings = {"pingping", "pingpong", "spawn", "maxprocs", "pairs", "idle", "supervised"})
    void everyBenchPrintsOneVerifiedJsonLine(String bench) throws Exception {
        var run = run(2, args(bench, "--cores", "2"));
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stdout().endsWith("\n") && run.stdout().indexOf('\n') == run.stdout().length() - 1,
                "exactly one line: " + run.stdout());
        var r = JSON.readTree(run.stdout());

        assertEquals(1, r.get("schema").asInt());
        assertEquals(bench, r.get("bench").asText());
        assertEquals("java-vthreads", r.get("runtime").asText());
        assertEquals(PARAMS.get(bench), fieldNames(r.get("params")));
        assertEquals(2, r.get("params").get("cores").asInt());
        assertTrue(r.get("elapsed_ns").asLong() > 0);
        assertTrue(r.get("ns_per_op").isNumber());
        long received = r.get("checks").get("received").asLong();
        assertEquals(r.get("checks").get("expected").asLong(), received);  // supervised: no kill, nothing lost

        long ops = r.get("ops").asLong();
        switch (bench) {
            case "pingping", "pingpong" -> {
                assertEquals(300, ops);
                assertEquals(600, received);
            }
            case "spawn", "maxprocs" -> {
                assertEquals(300, ops);
                assertEquals(600, received);
                assertEquals(300, r.get("procs").asLong());
                assertEquals(r.get("ns_per_op").asDouble(), r.get("ns_per_proc").asDouble());
            }
            case "pairs" -> {
                assertTrue(ops > 0);
                assertEquals(ops, r.get("round_trips").asLong());
                assertEquals(2 * ops, r.get("messages").asLong());
                assertEquals(2 * ops, received);
                assertTrue(r.get("messages_per_s").asDouble() > 0);
                assertTrue(r.get("min_pair_round_trips").asLong() <= ops / 3);
            }
            case "supervised" -> {
                assertEquals(0, r.get("params").get("kill_rate").asDouble());
                assertTrue(ops > 0);
                assertEquals(ops, r.get("round_trips").asLong());
                assertEquals(2 * ops, r.get("messages").asLong());
                assertEquals(2 * ops, received);
                assertEquals(0, r.get("kills").asLong());
                assertEquals(0, r.get("lost").asLong());
                assertEquals(0, r.get("restart_p50_ns").asLong());
                assertEquals(0, r.get("restart_p99_ns").asLong());
                assertTrue(r.get("late_restarts").isIntegralNumber(), r.toString());
                assertEquals(0, r.get("late_restarts").asLong());
            }
            case "idle" -> {
                assertEquals(300, ops);
                assertEquals(300, received);
                assertEquals(300, r.get("tasks").asLong());
                assertEquals(20_000_000L, r.get("sleep_ns").asLong());
                assertTrue(r.get("elapsed_ns").asLong() >= 20_000_000L);
            }
            default -> throw new AssertionError(bench);
        }
    }

    /** spec/MICRO.md §3.3: a lost message must fail the run, through a check or the watchdog. */
    @ParameterizedTest
    @ValueSource(strings = {"pingping", "pingpong", "spawn", "maxprocs", "pairs", "idle", "supervised"})
    void dropOneFailsVerification(String bench) throws Exception {
        var run = run(1, args(bench, "--cores", "1", "--drop-one", "--timeout", "2"));
        assertEquals(1, run.exitCode(), run.stderr());
        assertEquals("", run.stdout());
        assertTrue(run.stderr().startsWith("micro: "), run.stderr());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "", "nosuch", "pingping --reps 10k", "pingping --reps 0", "pingping --size", "pingping --bogus 1",
            "pingping --reps 1 --reps 2", "pairs --seconds -1", "pairs --seconds NaN", "pairs --seconds 1e3",
            "idle --sleep-ms -5", "spawn --procs 99999999999", "spawn --cores 0", "spawn --drop-one=yes",
            "supervised --kill-rate -1", "supervised --kill-rate 1000.5", "supervised --kill-rate 5%",
            "supervised --kill-rate 1e2", "supervised --kill-rate", "pingpong --kill-rate NaN"})
    void badArgumentsExit2(String line) throws Exception {
        var run = run(1, line.isEmpty() ? List.of() : List.of(line.split(" ")));
        assertEquals(2, run.exitCode(), run.stderr());
        assertEquals("", run.stdout());
        assertEquals(1, run.stderr().lines().count(), run.stderr());
    }

    /**
     * spec/MICRO.md §4.7: kills at 100 % of the processes a second; every kill
     * has its replacement (restart figures above 0), at most one message lost
     * per kill, at most one late restart per kill, and the pairs exchanged.
     */
    @Test
    void supervisedReplacesEveryKilledPair() throws Exception {
        var run = run(2, List.of("supervised", "--pairs", "8", "--seconds", "0.5", "--kill-rate", "100",
                "--cores", "2", "--timeout", "20"));
        assertEquals(0, run.exitCode(), run.stderr());
        var r = JSON.readTree(run.stdout());
        assertEquals(100, r.get("params").get("kill_rate").asDouble());
        assertEquals(0.5, r.get("params").get("seconds").asDouble());
        long kills = r.get("kills").asLong();
        long lost = r.get("lost").asLong();
        assertTrue(kills > 0 && kills <= 7, "kills 1-7 of the 7 due in 0.5 s: " + kills);
        assertTrue(lost >= 0 && lost <= kills, r.toString());
        assertTrue(r.get("restart_p50_ns").asLong() > 0, r.toString());
        assertTrue(r.get("restart_p99_ns").asLong() >= r.get("restart_p50_ns").asLong(), r.toString());
        assertTrue(r.get("late_restarts").isIntegralNumber(), r.toString());
        long late = r.get("late_restarts").asLong();
        assertTrue(late >= 0 && late <= kills, "0 <= late_restarts <= kills: " + r);
        long ops = r.get("ops").asLong();
        assertTrue(ops > 0);
        assertEquals(ops, r.get("round_trips").asLong());
        long received = r.get("checks").get("received").asLong();
        assertEquals(received, r.get("messages").asLong());
        assertEquals(r.get("checks").get("expected").asLong(), received + lost);
        double seconds = r.get("elapsed_ns").asLong() / 1e9;
        assertEquals(received / seconds, r.get("messages_per_s").asDouble(), received / seconds * 1e-6);
        assertEquals((double) r.get("elapsed_ns").asLong() / ops, r.get("ns_per_op").asDouble(), 1e-6);
    }

    /** --kill-rate is accepted, and neither used nor echoed, by the other benchmarks (spec §2). */
    @Test
    void killRateIsIgnoredElsewhere() throws Exception {
        var run = run(1, List.of("pingpong", "--reps", "50", "--kill-rate", "5", "--cores", "1"));
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals(Set.of("reps", "cores"), fieldNames(JSON.readTree(run.stdout()).get("params")));
    }

    @Test
    void equalsFormAndAnyOrderAreAccepted() throws Exception {
        var run = run(1, List.of("pingpong", "--cores=1", "--reps=50", "--size", "7"));
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals(50, JSON.readTree(run.stdout()).get("ops").asInt());
    }

    /** spec §6: the program reports the parallelism it had and refuses to claim another. */
    @Test
    void coresOtherThanTheJvmsFail() throws Exception {
        var run = run(1, List.of("pingpong", "--reps", "10", "--cores", "2"));
        assertEquals(1, run.exitCode(), run.stderr());
        assertEquals("", run.stdout());
    }

    private static Set<String> fieldNames(JsonNode node) {
        var names = new TreeSet<String>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
