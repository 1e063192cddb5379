package concur.micro;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The command line of spec/MICRO.md §2, parsed once. A bad argument throws a
 * {@link UsageError} (exit code 2) naming the flag and the fix, so a typo never
 * measures a silently different workload.
 *
 * @param size    --size: payload bytes per pingping message
 * @param reps    --reps: exchanges (pingping) or round trips (pingpong)
 * @param procs   --procs: processes of spawn, maxprocs and idle
 * @param pairs   --pairs: communicating pairs
 * @param seconds --seconds: run length of pairs and supervised
 * @param killRate --kill-rate: supervised's kills per second, in percent of its 2P processes
 * @param sleepMs --sleep-ms: each idle task's sleep
 * @param cores   --cores: the parallelism the JVM must have been started with
 * @param timeout --timeout: the watchdog of §3.2, in seconds
 * @param dropOne --drop-one: the test hook of §3.3
 */
record Config(String bench, int size, int reps, int procs, int pairs, double seconds, double killRate,
              int sleepMs, int cores, double timeout, boolean dropOne) {

    static final List<String> BENCHES = List.of("pingping", "pingpong", "spawn", "maxprocs", "pairs", "idle", "supervised");

    /** A bad argument: exit code 2. */
    static final class UsageError extends Exception {
        UsageError(String message) {
            super(message);
        }
    }

    // Plain decimals only: Double.parseDouble would also take "NaN", "1e3" and "2d".
    private static final Pattern DECIMAL = Pattern.compile("[0-9]+(\\.[0-9]*)?|\\.[0-9]+");

    static Config parse(String[] args, Map<String, String> env) throws UsageError {
        if (args.length == 0 || !BENCHES.contains(args[0])) {
            String got = args.length == 0 ? "nothing" : "'" + args[0] + "'";
            throw new UsageError("the first argument must be a benchmark, one of " + BENCHES + ", got " + got
                    + " (e.g. pingping --size 5120 --reps 10000)");
        }
        int size = 5120, reps = 10000, procs = 10000, pairs = 4, sleepMs = 1000;
        double seconds = 1, killRate = 0, timeout = 300;
        int cores = Runtime.getRuntime().availableProcessors();
        String fromEnv = env.get("CONCUR_CORES");
        if (fromEnv != null && !fromEnv.isEmpty()) {
            cores = positiveInt("CONCUR_CORES", fromEnv);
        }
        boolean dropOne = false;
        Set<String> seen = new HashSet<>();
        for (int i = 1; i < args.length; i++) {
            String flag = args[i];
            String value = null;
            int eq = flag.indexOf('=');
            if (flag.startsWith("--") && eq > 0) {
                value = flag.substring(eq + 1);
                flag = flag.substring(0, eq);
            }
            if (!seen.add(flag)) {
                throw new UsageError(flag + ": given twice (give each flag at most once)");
            }
            if (flag.equals("--drop-one")) {
                if (value != null) {
                    throw new UsageError("--drop-one: takes no value (e.g. --drop-one)");
                }
                dropOne = true;
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageError(flag + ": missing value (e.g. " + flag + " 1000)");
                }
                value = args[++i];
            }
            switch (flag) {
                case "--size" -> size = positiveInt(flag, value);
                case "--reps" -> reps = positiveInt(flag, value);
                case "--procs" -> procs = positiveInt(flag, value);
                case "--pairs" -> pairs = positiveInt(flag, value);
                case "--cores" -> cores = positiveInt(flag, value);
                case "--sleep-ms" -> sleepMs = nonNegativeInt(flag, value);
                case "--seconds" -> seconds = positiveSeconds(flag, value);
                case "--kill-rate" -> killRate = percentage(flag, value);
                case "--timeout" -> timeout = positiveSeconds(flag, value);
                default -> throw new UsageError("unknown flag '" + flag + "' (the flags are in spec/MICRO.md §2)");
            }
        }
        return new Config(args[0], size, reps, procs, pairs, seconds, killRate, sleepMs, cores, timeout, dropOne);
    }

    private static int positiveInt(String name, String value) throws UsageError {
        int n = parseInt(value);
        if (n < 1) {
            throw new UsageError(name + ": '" + value + "' is not an integer >= 1 (e.g. " + name + " 10000)");
        }
        return n;
    }

    private static int nonNegativeInt(String name, String value) throws UsageError {
        int n = parseInt(value);
        if (n < 0) {
            throw new UsageError(name + ": '" + value + "' is not an integer >= 0 (e.g. " + name + " 1000)");
        }
        return n;
    }

    /** The integer, or -1 when the text is not one that fits an int. */
    private static int parseInt(String value) {
        if (!value.matches("[0-9]+")) {
            return -1;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException tooLarge) {
            return -1;
        }
    }

    private static double percentage(String name, String value) throws UsageError {
        double k = DECIMAL.matcher(value).matches() ? Double.parseDouble(value) : -1;
        if (!(k >= 0 && k <= 1000)) {
            throw new UsageError(name + ": '" + value + "' is not a percentage from 0 to 1000 (e.g. " + name + " 5)");
        }
        return k;
    }

    private static double positiveSeconds(String name, String value) throws UsageError {
        double s = DECIMAL.matcher(value).matches() ? Double.parseDouble(value) : 0;
        if (!(s > 0) || s > 1e6) {
            throw new UsageError(name + ": '" + value + "' is not a number of seconds > 0 (e.g. " + name + " 0.5)");
        }
        return s;
    }
}
