package concur.jetty;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * The PostgreSQL of the database tests, seeded as SPEC §8.1 says: the one
 * {@code CONCUR_DB_URL} names ({@code concur test} gives it), else one that
 * {@code concur db} starts now and that ends with this JVM. {@code setpriv
 * --pdeathsig} sends {@code concur db} SIGINT when the thread that started it
 * ends (surefire's main thread, which lives as long as the JVM), so no
 * database outlives the tests, even after a kill -9.
 */
final class TestDatabase {

    private static String url;
    private static Process concurDb;

    private TestDatabase() {}

    static synchronized String url() throws Exception {
        if (url == null) {
            String env = System.getenv("CONCUR_DB_URL");
            url = env != null && !env.isBlank() ? env : start();
        }
        return url;
    }

    private static String start() throws Exception {
        Path built = Path.of("../../../target/release/concur").toAbsolutePath().normalize();
        String concur = Files.isExecutable(built) ? built.toString() : "concur";
        concurDb = new ProcessBuilder("setpriv", "--pdeathsig", "SIGINT", concur, "db")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        // SIGINT is how `concur db` is told to stop its database and clean up.
        Runtime.getRuntime().addShutdownHook(new Thread(TestDatabase::stop));
        String line = new BufferedReader(new InputStreamReader(concurDb.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (line == null || !line.startsWith("CONCUR_DB_URL=")) {
            throw new IllegalStateException(concur + " db printed '" + line + "' instead of CONCUR_DB_URL=…: cargo build --release,"
                    + " or export the CONCUR_DB_URL of a running `concur db`");
        }
        return line.substring("CONCUR_DB_URL=".length()).trim();
    }

    private static void stop() {
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(concurDb.pid())).start().waitFor();
            concurDb.waitFor(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            concurDb.destroyForcibly();
        }
    }

    /** A connection of the test's own, to read what the server wrote. */
    static Connection connect() throws Exception {
        Database.Jdbc jdbc = Database.jdbc(url());
        return DriverManager.getConnection(jdbc.url(), jdbc.user(), jdbc.password());
    }

    /** The stored number of row {@code id}. */
    static int stored(int id) throws Exception {
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement("SELECT randomnumber FROM world WHERE id = ?")) {
            s.setInt(1, id);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no row " + id);
                }
                return rs.getInt(1);
            }
        }
    }
}
