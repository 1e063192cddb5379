package concur.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** SPEC §1: the environment, its defaults, and a refusal naming the variable. */
class ConfigTest {

    @Test
    void defaults() {
        Config config = Config.fromEnv(Map.of("PORT", "8080"));
        assertEquals(new Config(8080, 1, 10, Config.DEFAULT_PAGE_FILE.toAbsolutePath().normalize(), 10,
                Duration.ofMillis(2000), Duration.ofMillis(5000), false), config);
        assertTrue(config.pageFile().endsWith("spec/static/hello.html"));
        assertTrue(Config.fromEnv(Map.of("PORT", "8080", "CONCUR_FAULTS", "1")).faults());
        assertFalse(Config.fromEnv(Map.of("PORT", "8080", "CONCUR_FAULTS", "true")).faults());
    }

    @Test
    void the_thesis_cost_20_and_the_bounds_are_accepted() {
        for (String cost : new String[] {"4", "20", "31"}) {
            assertEquals(Integer.parseInt(cost), Config.fromEnv(Map.of("PORT", "1", "CONCUR_BCRYPT_COST", cost)).bcryptCost());
        }
    }

    @Test
    void every_bad_value_is_refused_naming_its_variable() {
        Map<String, String[]> bad = Map.of(
                "PORT", new String[] {"", "x", "70000", "-1"},
                "CONCUR_CORES", new String[] {"0", "two", "1.5"},
                "CONCUR_BCRYPT_COST", new String[] {"3", "32", "10x"},
                "CONCUR_PAGE_DELAY_EVERY", new String[] {"0", "-3"},
                "CONCUR_PAGE_DELAY_MS", new String[] {"-1", "soon"},
                "CONCUR_LONGPOLL_MS", new String[] {"1e3", "99999999999"});
        bad.forEach((name, values) -> {
            for (String value : values) {
                Map<String, String> env = name.equals("PORT") ? Map.of("PORT", value) : Map.of("PORT", "8080", name, value);
                var e = assertThrows(IllegalArgumentException.class, () -> Config.fromEnv(env), name + "=" + value);
                assertTrue(e.getMessage().startsWith(name + " must be"), e.getMessage());
            }
        });
        assertThrows(IllegalArgumentException.class, () -> Config.fromEnv(Map.of()));
    }
}
