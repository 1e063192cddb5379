package concur.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SPEC §2 and §5 under concurrency: waits hold no pool thread, and writes on
 * one connection are seen on the next.
 */
class ConcurrencyTest {

    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @Test
    void three_hundred_long_polls_wait_together_on_fewer_than_100_pool_threads() throws Exception {
        int clients = 300;
        try (ExecutorService clientThreads = Executors.newVirtualThreadPerTaskExecutor()) {
            long start = System.nanoTime();
            List<Future<?>> polls = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                // Each on its own connection: the raw client never reuses one.
                polls.add(clientThreads.submit(() -> {
                    TestServer.Raw r = server.raw("GET /longPoll HTTP/1.1\r\nHost: x\r\n\r\n").first();
                    assertEquals(200, r.status());
                    assertEquals("OK", r.body());
                    return null;
                }));
            }
            for (Future<?> poll : polls) {
                poll.get();
            }
            long ms = (System.nanoTime() - start) / 1_000_000;
            // Waits in a row (a lock held while waiting) would take 90 s.
            assertTrue(ms < TestServer.LONG_POLL.toMillis() + 3_000, clients + " long polls took " + ms + " ms");
        }
        assertTrue(server.server.poolThreads() < 100, "pool grew to " + server.server.poolThreads() + " threads");
    }

    @Test
    void at_most_cores_bcrypt_hashes_run_at_once() throws Exception {
        // Jetty's pool let up to ~198 hashes time-slice the cores (spec/POLICIES.md §2).
        int cores = 2;
        Config config = new Config(0, cores, 8, TestServer.PAGE_FILE, TestServer.PAGE_DELAY_EVERY, TestServer.PAGE_DELAY, TestServer.LONG_POLL, false);
        ConcurServer two = new ConcurServer(config, TestServer.threads()).start();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (ExecutorService clientThreads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> sets = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                HttpRequest set = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + two.port() + "/password/set/slots_" + i))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"password\":\"p" + i + "\"}"))
                        .build();
                sets.add(clientThreads.submit(() -> client.send(set, HttpResponse.BodyHandlers.ofString()).statusCode()));
            }
            for (Future<Integer> set : sets) {
                assertEquals(200, set.get());
            }
        } finally {
            two.stop();
        }
        assertTrue(two.hashesAtOnceMost() <= cores, two.hashesAtOnceMost() + " hashes ran at once on " + cores + " cores");
        assertTrue(two.hashesAtOnceMost() >= 1);
    }

    @Test
    void the_thread_model_is_the_one_asked_for() {
        assertEquals(TestServer.threads() == ConcurServer.Threads.VIRTUAL, server.server.usesVirtualThreads());
    }

    @Test
    void the_page_delay_blocks_no_other_request() throws Exception {
        // Find the next delayed /page by counting: RoutesTest uses its own server.
        CompletableFuture<Long> slow = null;
        for (int i = 1; i <= TestServer.PAGE_DELAY_EVERY; i++) {
            if (i < TestServer.PAGE_DELAY_EVERY) {
                assertEquals(200, server.get("/page").statusCode());
            } else {
                slow = CompletableFuture.supplyAsync(() -> timed("/page"));
            }
        }
        Thread.sleep(50);
        long quick = timed("/");
        assertTrue(quick < TestServer.PAGE_DELAY.toMillis(), "/ took " + quick + " ms while a /page was delayed");
        assertTrue(slow.get() >= TestServer.PAGE_DELAY.toMillis());
    }

    private static long timed(String path) {
        try {
            long start = System.nanoTime();
            assertEquals(200, server.get(path).statusCode());
            return (System.nanoTime() - start) / 1_000_000;
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    @Test
    void concurrent_writes_to_distinct_users_are_all_seen_on_new_connections() throws Exception {
        try (ExecutorService clientThreads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> writes = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String user = "cw_" + i;
                writes.add(clientThreads.submit(() -> {
                    assertEquals(200, server.raw("POST /user/set/" + user + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
                            + ("{\"u\":\"" + user + "\"}").length() + "\r\n\r\n{\"u\":\"" + user + "\"}").first().status());
                    assertEquals("{\"u\":\"" + user + "\"}", server.raw("GET /user/get/" + user + " HTTP/1.1\r\nHost: x\r\n\r\n").first().body());
                    return null;
                }));
            }
            for (Future<?> write : writes) {
                write.get();
            }
        }
    }

    @Test
    void concurrent_passwords_verify_on_new_connections() throws Exception {
        try (ExecutorService clientThreads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> users = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String user = "pw_" + i;
                String body = "{\"password\":\"" + user + "\"}";
                users.add(clientThreads.submit(() -> {
                    assertEquals(200, server.post("/password/set/" + user, body).statusCode());
                    assertEquals(200, server.post("/password/verify/" + user, body).statusCode());
                    return null;
                }));
            }
            for (Future<?> user : users) {
                user.get();
            }
        }
    }
}
