package concur.micro;

/**
 * Concur's process micro-benchmarks (spec/MICRO.md) on Java virtual threads:
 * one benchmark per invocation, one JSON line on stdout, exit 1 when a message
 * was lost or a count is wrong, exit 2 on a bad argument.
 */
public final class Main {
    /** Held by whoever ends the program, so a late watchdog cannot follow the result line. */
    private static final Object EXIT = new Object();

    public static void main(String[] args) {
        Config cfg;
        try {
            cfg = Config.parse(args, System.getenv());
        } catch (Config.UsageError e) {
            System.err.println("micro: " + e.getMessage());
            System.exit(2);
            return;
        }
        checkCores(cfg);
        armWatchdog(cfg);
        // A process that dies (e.g. OutOfMemoryError while growing its stack)
        // would leave main waiting: make it a failure at once instead.
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> fail(cfg.bench() + ": " + t.getName() + " failed: " + e));

        // Main stays the platform thread the JVM starts in. As a virtual thread
        // it could starve: a carrier runs a ping-pong pair's hand-offs from its
        // own queue forever, so pairs' timer would never wake main (README).
        finish(cfg, run(cfg));
    }

    private static Result run(Config cfg) {
        return switch (cfg.bench()) {
            case "pingping" -> Latency.pingping(cfg);
            case "pingpong" -> Latency.pingpong(cfg);
            case "spawn", "maxprocs" -> Spawn.spawn(cfg);
            case "pairs" -> Pairs.pairs(cfg);
            case "idle" -> Spawn.idle(cfg);
            case "supervised" -> Supervised.supervised(cfg);
            default -> throw new IllegalArgumentException(cfg.bench());
        };
    }

    /**
     * -XX:ActiveProcessorCount sizes the virtual-thread scheduler (its
     * parallelism defaults to it); a run by hand without it must not report
     * a parallelism it did not have (spec §6).
     */
    private static void checkCores(Config cfg) {
        int cpus = Runtime.getRuntime().availableProcessors();
        String parallelism = System.getProperty("jdk.virtualThreadScheduler.parallelism", String.valueOf(cpus));
        if (cpus != cfg.cores() || !parallelism.equals(String.valueOf(cfg.cores()))) {
            fail(cfg.bench() + ": --cores " + cfg.cores() + " but the JVM has " + cpus
                    + " processors and a virtual-thread parallelism of " + parallelism
                    + " (start it with -XX:ActiveProcessorCount=" + cfg.cores()
                    + " -Djdk.virtualThreadScheduler.parallelism=" + cfg.cores() + ")");
        }
    }

    private static void armWatchdog(Config cfg) {
        long nanos = (long) (cfg.timeout() * 1e9);
        // A platform thread, so that busy carriers cannot delay it.
        Thread.ofPlatform().daemon().name("watchdog").start(() -> {
            try {
                Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
            } catch (InterruptedException e) {
                return;
            }
            fail("timeout after " + cfg.timeout() + " s in " + cfg.bench());
        });
    }

    private static void finish(Config cfg, Result result) {
        if (result.received + result.lost != result.expected) {
            fail(cfg.bench() + ": received " + result.received + " messages and lost " + result.lost
                    + ", expected " + result.expected);
        }
        synchronized (EXIT) {
            System.out.print(result.toJson() + "\n");
            System.out.flush();
            // Processes still parked (none should be) must not keep the JVM up.
            System.exit(0);
        }
    }

    /** Ends the program at the first wrong count (spec §3.1): exit 1, one line on stderr. */
    static void fail(String message) {
        synchronized (EXIT) {
            System.err.println("micro: " + message);
            System.exit(1);
        }
    }
}
