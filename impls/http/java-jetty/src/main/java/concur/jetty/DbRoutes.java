package concur.jetty;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.jetty.server.Request;

/**
 * The five routes of SPEC §8.3 in plain blocking JDBC, shared by both
 * handlers: each request takes one connection from {@link Database} and runs
 * its statements on it one after another, so the calling thread (a
 * {@code QueuedThreadPool} thread, or a virtual thread) blocks on the pool
 * and then on each round trip. The connection goes back to the pool as soon
 * as the last statement's result is read ({@link #withConnection}); the JSON
 * and the fortunes page are rendered after. Every statement is a
 * {@code PreparedStatement}; the driver makes it a named server-side one from
 * its fifth use on a connection (pgjdbc's default {@code prepareThreshold=5}).
 */
final class DbRoutes {

    /** A row of {@code world}, serialized as {@code {"id":…,"randomNumber":…}}. */
    record World(int id, int randomNumber) {}

    /** A row of {@code fortune}; public so that the template can read it. */
    public record Fortune(int id, String message) {}

    static final int WORLD_ROWS = 10_000;
    private static final String SELECT_ROW = "SELECT id, randomnumber FROM world WHERE id = ?";
    /** One statement for all of a request's rows: the ids and new numbers as two {@code int4[]} arrays. */
    private static final String UPDATE_ROWS =
            "UPDATE world SET randomnumber = u.r FROM unnest(?::int[], ?::int[]) AS u(id, r) WHERE world.id = u.id";
    private static final String SELECT_FORTUNES = "SELECT id, message FROM fortune";
    private static final String SLOW_ROW = "SELECT id, randomnumber FROM world, pg_sleep(?) WHERE id = ?";
    /**
     * The template, compiled once on the first {@code /fortunes} (a holder
     * class: the JVM initializes it on first use, once, thread-safely); a
     * compiled Mustache is safe to run from many threads.
     */
    private static final class Template {
        static final Mustache FORTUNES = new DefaultMustacheFactory("templates").compile("fortunes.mustache");
    }
    /** SPEC §8.3 sorts by code point; {@code String.compareTo} compares UTF-16 units, which differ above U+FFFF. */
    private static final Comparator<String> CODE_POINT_ORDER = (a, b) -> Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());

    private final Database database;

    DbRoutes(Database database) {
        this.database = database;
    }

    /** Answers a database route, or throws the 503 of SPEC §8.4. */
    Reply answer(Routes.Route route, Request request) {
        return switch (route) {
            case DB -> Reply.json(Json.bytes(withConnection(connection -> row(connection, randomId()))));
            case QUERIES -> Reply.json(Json.bytes(withConnection(connection -> reads(connection, count(request)))));
            case UPDATES -> Reply.json(Json.bytes(withConnection(connection -> update(connection, reads(connection, count(request))))));
            case FORTUNES -> fortunesPage(withConnection(DbRoutes::fortunes));
            case SLOWDB -> Reply.json(Json.bytes(withConnection(connection -> slowRow(connection, randomId()))));
            default -> throw new IllegalArgumentException(route + " is not a database route");
        };
    }

    /** A request's statements on one connection, which returns what they read. */
    @FunctionalInterface
    private interface Statements<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs a request's statements on one connection from the pool and closes
     * it (back to the pool) as soon as they return, before the caller renders
     * what they read; any {@code SQLException} is the 503 of SPEC §8.4.
     */
    private <T> T withConnection(Statements<T> statements) {
        try (Connection connection = database.connection()) {
            return statements.run(connection);
        } catch (SQLException e) {
            throw Database.unavailable(e);
        }
    }

    /** SPEC §8.3's N: missing, empty, not an integer or below 1 is 1; above 500 is 500. */
    static int count(Request request) {
        String raw = Request.extractQueryParameters(request).getValue("queries");
        try {
            return Math.clamp(Integer.parseInt(raw), 1, 500);
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    private static int randomId() {
        return ThreadLocalRandom.current().nextInt(1, WORLD_ROWS + 1);
    }

    private static World row(Connection connection, int id) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(SELECT_ROW)) {
            statement.setInt(1, id);
            return one(statement, id);
        }
    }

    /** {@code /slowdb}: the wait is {@code pg_sleep}'s, in the database, with the connection held. */
    private World slowRow(Connection connection, int id) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(SLOW_ROW)) {
            statement.setDouble(1, database.settings.slow().toMillis() / 1000.0);
            statement.setInt(2, id);
            return one(statement, id);
        }
    }

    private static World one(PreparedStatement statement, int id) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("world has no row " + id);
            }
            return new World(rs.getInt(1), rs.getInt(2));
        }
    }

    /** N rows, one query each, one after another on the request's connection. */
    private List<World> reads(Connection connection, int n) throws SQLException {
        List<World> rows = new ArrayList<>(n);
        try (PreparedStatement statement = connection.prepareStatement(SELECT_ROW)) {
            for (int i = 0; i < n; i++) {
                int id = randomId();
                statement.setInt(1, id);
                rows.add(one(statement, id));
            }
        }
        return rows;
    }

    /**
     * Gives each row a new number and writes them all with one statement, on
     * the connection that read them, in auto-commit (one statement is atomic,
     * so no transaction around it). The arrays go in ascending id order, so
     * two requests that share rows lock them in the same order and cannot
     * deadlock; an id drawn twice is in them twice, and PostgreSQL keeps one
     * of its two numbers. The answer keeps the order of the reads.
     */
    private List<World> update(Connection connection, List<World> rows) throws SQLException {
        List<World> updated = rows.stream().map(row -> new World(row.id(), randomId())).toList();
        List<World> byId = updated.stream().sorted(Comparator.comparingInt(World::id)).toList();
        Integer[] ids = byId.stream().map(World::id).toArray(Integer[]::new);
        Integer[] numbers = byId.stream().map(World::randomNumber).toArray(Integer[]::new);
        try (PreparedStatement statement = connection.prepareStatement(UPDATE_ROWS)) {
            statement.setArray(1, connection.createArrayOf("int4", ids));
            statement.setArray(2, connection.createArrayOf("int4", numbers));
            statement.executeUpdate();
        }
        return updated;
    }

    private static List<Fortune> fortunes(Connection connection) throws SQLException {
        List<Fortune> fortunes = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(SELECT_FORTUNES);
                ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                fortunes.add(new Fortune(rs.getInt(1), rs.getString(2)));
            }
        }
        return fortunes;
    }

    /** The page of the stored fortunes and the one added now, rendered with the connection back in the pool. */
    private static Reply fortunesPage(List<Fortune> fortunes) {
        fortunes.add(new Fortune(0, "Additional fortune added at request time."));
        fortunes.sort(Comparator.comparing(Fortune::message, CODE_POINT_ORDER));
        StringWriter page = new StringWriter();
        Template.FORTUNES.execute(page, Map.of("fortunes", fortunes));
        return Reply.html(page.toString().getBytes(StandardCharsets.UTF_8));
    }
}
