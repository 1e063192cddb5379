package concur.jetty;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Map;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpStatus;

/**
 * The PostgreSQL connection pool of SPEC §8: HikariCP over the PostgreSQL
 * JDBC driver, holding at most {@code CONCUR_DB_POOL} connections. The pool
 * opens its connections in the background, so the server starts with the
 * database down; {@link #connection} is where a request waits for one, and
 * {@link #unavailable} turns any failure into the 503 of SPEC §8.4.
 */
final class Database implements AutoCloseable {

    /** {@code CONCUR_DB_URL} (null when unset), {@code CONCUR_DB_POOL} and {@code CONCUR_DB_SLOW_MS} (SPEC §8.2). */
    record Settings(String url, int pool, Duration slow) {

        static final Settings NONE = new Settings(null, 16, Duration.ofMillis(20));

        static Settings fromEnv(Map<String, String> env) {
            String url = env.get("CONCUR_DB_URL");
            Settings settings = new Settings(
                    url == null || url.isBlank() ? null : url,
                    Config.integer("CONCUR_DB_POOL", env.getOrDefault("CONCUR_DB_POOL", "16"), 1, 10_000),
                    Duration.ofMillis(Config.integer("CONCUR_DB_SLOW_MS", env.getOrDefault("CONCUR_DB_SLOW_MS", "20"), 0, 3_600_000)));
            if (settings.url != null) {
                jdbc(settings.url); // refuses a malformed URL at start, naming the variable
            }
            return settings;
        }
    }

    /**
     * How long one {@code getConnection} waits (HikariCP's
     * {@code connectionTimeout}, 30 s by default). A busy pool and a database
     * that refuses every connection look alike to HikariCP: both time out.
     * SPEC §8.4 wants the 503 within 5 s, so one wait is 2 s, and
     * {@link #connection} waits again unless the pool's last attempt to
     * connect failed.
     */
    static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(2);

    /**
     * pgjdbc's {@code loginTimeout}, in seconds. HikariCP otherwise sets the
     * JVM-wide {@code DriverManager} login timeout from
     * {@code connectionTimeout} (2 s here), and opening a connection (TCP,
     * SCRAM's 4,096 PBKDF2 rounds, the driver's first class loading) came
     * close to that at load 19, and a login cut off by it would read as a
     * database gone.
     */
    static final String LOGIN_TIMEOUT_SECONDS = "10";

    final Settings settings;
    private final HikariDataSource pool;

    Database(Settings settings) {
        this.settings = settings;
        if (settings.url == null) {
            pool = null;
            return;
        }
        Jdbc jdbc = jdbc(settings.url);
        HikariConfig config = new HikariConfig();
        config.setPoolName("concur-db");
        config.setJdbcUrl(jdbc.url);
        config.setUsername(jdbc.user);
        config.setPassword(jdbc.password);
        config.setMaximumPoolSize(settings.pool);
        config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
        config.addDataSourceProperty("loginTimeout", LOGIN_TIMEOUT_SECONDS);
        // Start at once, database or not: the pool fills in the background (SPEC §8.2).
        config.setInitializationFailTimeout(-1);
        pool = new HikariDataSource(config);
    }

    /**
     * A connection from the pool, waiting for one as long as it takes while
     * the database can be reached (the connections are busy, or being
     * opened). HikariCP's timeout carries the failure of its last attempt to
     * connect as its cause, and clears it when a connection opens: a timeout
     * with a cause means the database is unreachable now.
     */
    Connection connection() throws SQLException {
        if (pool == null) {
            throw new SQLException("CONCUR_DB_URL is not set");
        }
        while (true) {
            try {
                return pool.getConnection();
            } catch (SQLTransientConnectionException timedOut) {
                if (timedOut.getCause() != null) {
                    throw timedOut;
                }
            }
        }
    }

    /** The 503 of SPEC §8.4: the failure and its causes, on one line. */
    static HttpException.RuntimeException unavailable(SQLException failure) {
        StringBuilder reason = new StringBuilder("database unavailable");
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && reason.indexOf(t.getMessage()) < 0) {
                reason.append(": ").append(t.getMessage());
            }
        }
        return new HttpException.RuntimeException(HttpStatus.SERVICE_UNAVAILABLE_503, Routes.oneLine(reason.toString()));
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
        }
    }

    /** {@code CONCUR_DB_URL} in the JDBC driver's terms: it takes no user or password in the URL. */
    record Jdbc(String url, String user, String password) {}

    static Jdbc jdbc(String url) {
        try {
            URI uri = new URI(url);
            String[] login = uri.getRawUserInfo() == null ? new String[0] : uri.getRawUserInfo().split(":", 2);
            if (!("postgres".equals(uri.getScheme()) || "postgresql".equals(uri.getScheme()))
                    || uri.getHost() == null || login.length != 2 || uri.getPath().length() < 2) {
                throw new URISyntaxException(url, "not of the form postgres://USER:PASSWORD@HOST:PORT/DATABASE");
            }
            int port = uri.getPort() < 0 ? 5432 : uri.getPort();
            return new Jdbc("jdbc:postgresql://" + uri.getHost() + ":" + port + uri.getRawPath(), decode(login[0]), decode(login[1]));
        } catch (URISyntaxException e) {
            // The URL is not echoed: it holds a password.
            throw new IllegalArgumentException("CONCUR_DB_URL must be postgres://USER:PASSWORD@HOST:PORT/DATABASE with no query parameters: " + e.getReason());
        }
    }

    private static String decode(String part) {
        return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
