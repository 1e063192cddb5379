package concur.jetty;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The environment of SPEC §1, read and checked once at start. A bad value is
 * refused with a sentence naming the variable, so the server never starts
 * half-configured.
 */
public record Config(
        int port,
        int cores,
        int bcryptCost,
        Path pageFile,
        int pageDelayEvery,
        Duration pageDelay,
        Duration longPoll,
        boolean faults) {

    /** {@code spec/static/hello.html}, seen from either implementation folder (the start command's directory). */
    static final Path DEFAULT_PAGE_FILE = Path.of("../../../spec/static/hello.html");

    public static Config fromEnv(Map<String, String> env) {
        String port = env.get("PORT");
        if (port == null) {
            throw new IllegalArgumentException("PORT must be set (the TCP port to listen on, e.g. PORT=8080)");
        }
        return new Config(
                integer("PORT", port, 0, 65535),
                integer("CONCUR_CORES", env.getOrDefault("CONCUR_CORES", "1"), 1, 1024),
                integer("CONCUR_BCRYPT_COST", env.getOrDefault("CONCUR_BCRYPT_COST", "10"), 4, 31),
                Path.of(env.getOrDefault("CONCUR_PAGE_FILE", DEFAULT_PAGE_FILE.toString())).toAbsolutePath().normalize(),
                integer("CONCUR_PAGE_DELAY_EVERY", env.getOrDefault("CONCUR_PAGE_DELAY_EVERY", "10"), 1, Integer.MAX_VALUE),
                Duration.ofMillis(integer("CONCUR_PAGE_DELAY_MS", env.getOrDefault("CONCUR_PAGE_DELAY_MS", "2000"), 0, 3_600_000)),
                Duration.ofMillis(integer("CONCUR_LONGPOLL_MS", env.getOrDefault("CONCUR_LONGPOLL_MS", "5000"), 0, 3_600_000)),
                // SPEC §9: the fault routes exist only with CONCUR_FAULTS=1; any other value leaves them off.
                "1".equals(env.get("CONCUR_FAULTS")));
    }

    static int integer(String name, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // refused below, with the same sentence as an out-of-range value
        }
        throw new IllegalArgumentException(name + " must be an integer from " + min + " to " + max + ", got '" + value + "'");
    }
}
