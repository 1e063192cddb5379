package concur.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** SPEC §8: the database routes against a real PostgreSQL ({@link TestDatabase}). */
class DatabaseTest {

    static final Duration SLOW = Duration.ofMillis(100);
    /** One thread per client (the common pool has one thread on two cores). */
    static final ExecutorService CLIENTS = Executors.newVirtualThreadPerTaskExecutor();
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(new Database.Settings(TestDatabase.url(), 4, SLOW));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** The rows of a 200 {@code application/json} answer, each checked to be {@code {"id","randomNumber"}} in range. */
    static List<int[]> rows(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("application/json", r.headers().firstValue("content-type").orElse(null));
        JsonNode json = Json.MAPPER.readTree(r.body());
        List<int[]> rows = new ArrayList<>();
        for (JsonNode row : json.isArray() ? json : List.of(json)) {
            assertEquals(2, row.size(), r.body());
            int id = row.get("id").intValue();
            int n = row.get("randomNumber").intValue();
            assertTrue(id >= 1 && id <= 10_000 && n >= 1 && n <= 10_000, r.body());
            rows.add(new int[] {id, n});
        }
        return rows;
    }

    @Test
    void db_answers_one_row_as_stored() throws Exception {
        HttpResponse<String> r = server.get("/db");
        assertTrue(r.body().startsWith("{"), r.body());
        int[] row = rows(r).getFirst();
        assertEquals(TestDatabase.stored(row[0]), row[1]);
    }

    @Test
    void queries_clamps_n_and_reads_the_stored_rows() throws Exception {
        Map<String, Integer> want = Map.of("", 1, "?queries=", 1, "?queries=foo", 1, "?queries=0", 1, "?queries=-3", 1,
                "?queries=1", 1, "?queries=20", 20, "?queries=500", 500, "?queries=501", 500, "?queries=99999999999", 1);
        for (var e : want.entrySet()) {
            HttpResponse<String> r = server.get("/queries" + e.getKey());
            assertTrue(r.body().startsWith("["), r.body());
            assertEquals(e.getValue(), rows(r).size(), "/queries" + e.getKey());
        }
        for (int[] row : rows(server.get("/queries?queries=3"))) {
            assertEquals(TestDatabase.stored(row[0]), row[1], "row " + row[0]);
        }
    }

    @Test
    void updates_write_the_numbers_they_return() throws Exception {
        List<int[]> rows = rows(server.get("/updates?queries=20"));
        assertEquals(20, rows.size());
        for (int[] row : rows) {
            int id = row[0];
            int now = TestDatabase.stored(id);
            // A row drawn twice keeps one of its two new numbers.
            assertTrue(rows.stream().anyMatch(r -> r[0] == id && r[1] == now), "row " + id + " holds " + now);
        }
    }

    @Test
    void concurrent_updates_of_shared_rows_do_not_deadlock() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            answers.add(CompletableFuture.supplyAsync(() -> call("/updates?queries=500"), CLIENTS));
        }
        for (var answer : answers) {
            assertEquals(500, rows(answer.get()).size());
        }
    }

    static final String FORTUNES = """
            <!DOCTYPE html>
            <html>
            <head><title>Fortunes</title></head>
            <body>
            <table>
            <tr><th>id</th><th>message</th></tr>
            <tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>
            <tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>
            <tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>
            <tr><td>2</td><td>A computer scientist is someone who fixes things that aren&#39;t broken.</td></tr>
            <tr><td>8</td><td>A list is only as strong as its weakest link. — Donald Knuth</td></tr>
            <tr><td>0</td><td>Additional fortune added at request time.</td></tr>
            <tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>
            <tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>
            <tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>
            <tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen</td></tr>
            <tr><td>9</td><td>Feature: A bug with seniority.</td></tr>
            <tr><td>1</td><td>fortune: No such file or directory</td></tr>
            <tr><td>12</td><td>フレームワークのベンチマーク</td></tr>
            </table>
            </body>
            </html>
            """;

    @Test
    void fortunes_is_the_escaped_sorted_page() throws Exception {
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> r = server.get("/fortunes");
            assertEquals(200, r.statusCode(), r.body());
            assertEquals("text/html; charset=utf-8", r.headers().firstValue("content-type").orElse(null));
            assertEquals(FORTUNES, r.body());
        }
    }

    @Test
    void slowdb_waits_in_the_query() throws Exception {
        long start = System.nanoTime();
        int[] row = rows(server.get("/slowdb")).getFirst();
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms >= SLOW.toMillis(), "GET /slowdb took " + ms + " ms, want at least CONCUR_DB_SLOW_MS=" + SLOW.toMillis());
        assertEquals(TestDatabase.stored(row[0]), row[1]);
    }

    /** Pool of 2, eight 100 ms queries at once: they run two at a time, the others wait for a connection, none fails. */
    @Test
    void requests_wait_for_a_pooled_connection() throws Exception {
        try (TestServer small = new TestServer(new Database.Settings(TestDatabase.url(), 2, SLOW))) {
            rows(small.get("/db")); // the pool has opened a connection
            long start = System.nanoTime();
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                answers.add(CompletableFuture.supplyAsync(() -> call(small, "/slowdb"), CLIENTS));
            }
            for (var answer : answers) {
                assertEquals(1, rows(answer.get()).size());
            }
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms >= 4 * SLOW.toMillis(), "8 slow queries on 2 connections took " + ms + " ms, want at least 4 × " + SLOW.toMillis());
        }
    }

    @Test
    void no_database_is_a_prompt_503_and_the_other_routes_serve() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        for (String url : new String[] {null, "postgres://u:p@127.0.0.1:" + closed + "/db"}) {
            try (TestServer down = new TestServer(new Database.Settings(url, 2, SLOW))) {
                for (String path : List.of("/db", "/queries?queries=2", "/updates", "/fortunes", "/slowdb")) {
                    long start = System.nanoTime();
                    HttpResponse<String> r = down.get(path);
                    long ms = (System.nanoTime() - start) / 1_000_000;
                    assertEquals(503, r.statusCode(), url + " " + path + ": " + r.body());
                    assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("text/plain"));
                    assertTrue(r.body().startsWith("database unavailable: ") && !r.body().contains("\n"), r.body());
                    assertTrue(ms < 5_000, path + " took " + ms + " ms to say the database is gone");
                }
                assertEquals("Hello, World!", down.get("/").body());
            }
        }
    }

    @Test
    void database_routes_refuse_other_methods_and_longer_paths() throws Exception {
        for (String path : List.of("/db", "/queries", "/updates", "/fortunes", "/slowdb")) {
            HttpResponse<String> r = server.send("POST", path, new byte[0]);
            assertEquals(405, r.statusCode(), path);
            assertEquals("GET, HEAD", r.headers().firstValue("allow").orElse(null));
        }
        assertEquals(404, server.get("/db/1").statusCode());
        assertEquals(404, server.get("/slowdb/").statusCode());
    }

    @Test
    void the_database_url_becomes_a_jdbc_url_and_login() {
        Database.Jdbc jdbc = Database.jdbc("postgres://concur:p%40ss@127.0.0.1:5433/concur");
        assertEquals(new Database.Jdbc("jdbc:postgresql://127.0.0.1:5433/concur", "concur", "p@ss"), jdbc);
        var bad = assertThrows(IllegalArgumentException.class, () -> Database.Settings.fromEnv(Map.of("CONCUR_DB_URL", "mysql://a:b@h/db")));
        assertTrue(bad.getMessage().startsWith("CONCUR_DB_URL must be"), bad.getMessage());
        var pool = assertThrows(IllegalArgumentException.class, () -> Database.Settings.fromEnv(Map.of("CONCUR_DB_POOL", "0")));
        assertTrue(pool.getMessage().startsWith("CONCUR_DB_POOL must be"), pool.getMessage());
    }

    private static HttpResponse<String> call(String path) {
        return call(server, path);
    }

    private static HttpResponse<String> call(TestServer on, String path) {
        try {
            return on.get(path);
        } catch (Exception e) {
            throw new IllegalStateException(path, e);
        }
    }
}
