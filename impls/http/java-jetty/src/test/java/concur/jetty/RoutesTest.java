package concur.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** SPEC §2: every route against a real server. */
class RoutesTest {

    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static void assertOk(HttpResponse<String> r, String contentType, String body) {
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(contentType, r.headers().firstValue("content-type").orElse(null));
        assertEquals(body, r.body());
        assertNotNull(r.headers().firstValue("date").orElse(null));
        assertTrue(r.headers().firstValue("server").orElse("").startsWith("Jetty"));
    }

    @Test
    void root_json_and_the_query_string() throws Exception {
        assertOk(server.get("/"), "text/plain; charset=utf-8", "Hello, World!");
        assertOk(server.get("/?x=1"), "text/plain; charset=utf-8", "Hello, World!");
        assertOk(server.get("/json"), "application/json", "{\"message\":\"Hello, World!\"}");
    }

    @Test
    void page_is_the_file_and_every_third_is_delayed() throws Exception {
        String page = Files.readString(TestServer.PAGE_FILE);
        // Other tests do not request /page, so this counts from 1.
        for (int i = 1; i <= 2 * TestServer.PAGE_DELAY_EVERY; i++) {
            long start = System.nanoTime();
            assertOk(server.get("/page"), "text/html; charset=utf-8", page);
            long ms = (System.nanoTime() - start) / 1_000_000;
            if (i % TestServer.PAGE_DELAY_EVERY == 0) {
                assertTrue(ms >= TestServer.PAGE_DELAY.toMillis(), "request " + i + " took " + ms + " ms");
            } else {
                assertTrue(ms < TestServer.PAGE_DELAY.toMillis(), "request " + i + " took " + ms + " ms");
            }
        }
    }

    @Test
    void long_poll_answers_ok_after_the_wait() throws Exception {
        long start = System.nanoTime();
        assertOk(server.get("/longPoll"), "text/plain; charset=utf-8", "OK");
        assertTrue((System.nanoTime() - start) / 1_000_000 >= TestServer.LONG_POLL.toMillis());
    }

    @Test
    void password_set_verify_and_replace() throws Exception {
        assertOk(server.post("/password/set/alice", "{\"password\":\"s3cret ✓\"}"), "text/plain; charset=utf-8", "OK");
        assertEquals(200, server.post("/password/verify/alice", "{\"password\":\"s3cret ✓\"}").statusCode());
        assertEquals(403, server.post("/password/verify/alice", "{\"password\":\"s3cret\"}").statusCode());
        assertEquals(404, server.post("/password/verify/nobody", "{\"password\":\"s3cret\"}").statusCode());
        assertEquals(200, server.post("/password/set/alice", "{\"password\":\"new\"}").statusCode());
        assertEquals(403, server.post("/password/verify/alice", "{\"password\":\"s3cret ✓\"}").statusCode());
        assertEquals(200, server.post("/password/verify/alice", "{\"password\":\"new\"}").statusCode());
        String max = "a".repeat(72);
        assertEquals(200, server.post("/password/set/max", "{\"password\":\"" + max + "\"}").statusCode());
        assertEquals(200, server.post("/password/verify/max", "{\"password\":\"" + max + "\"}").statusCode());
    }

    @Test
    void user_set_get_replace_and_unknown() throws Exception {
        String value = "{\"name\":\"Ada\",\"nested\":{\"ok\":true,\"none\":null,\"list\":[1,[2,3],{\"k\":\"v\"}]},\"ratio\":2.5,\"big\":9007199254740991}";
        assertOk(server.post("/user/set/ada", value), "text/plain; charset=utf-8", "OK");
        assertOk(server.get("/user/get/ada"), "application/json", value);
        assertEquals(200, server.post("/user/set/ada", " { \"v\" : 2 } ").statusCode());
        assertOk(server.get("/user/get/ada"), "application/json", "{\"v\":2}");
        assertEquals(404, server.get("/user/get/unknown").statusCode());
        String longName = "U".repeat(64);
        assertEquals(200, server.post("/user/set/" + longName, "{}").statusCode());
        assertOk(server.get("/user/get/" + longName), "application/json", "{}");
        assertEquals(200, server.post("/user/set/A-z_0.9", "{\"odd\":true}").statusCode());
        assertOk(server.get("/user/get/A-z_0.9"), "application/json", "{\"odd\":true}");
    }

    @Test
    void the_value_is_serialized_anew_not_stored_as_bytes() throws Exception {
        assertEquals(200, server.post("/user/set/spaced", "{ \"a\" : \"\\u0041\" , \"n\" : 1.0e0 }").statusCode());
        assertOk(server.get("/user/get/spaced"), "application/json", "{\"a\":\"A\",\"n\":1.0}");
    }

    @Test
    void the_fault_routes_are_unknown_paths_without_concur_faults() throws Exception {
        assertEquals(404, server.get("/fault/panic").statusCode());
        assertEquals(404, server.get("/fault/spin?ms=1").statusCode());
    }

    @Test
    void with_concur_faults_spin_computes_and_clamps_ms_and_panic_is_jettys_500() throws Exception {
        try (TestServer faults = TestServer.withFaults()) {
            long start = System.nanoTime();
            assertOk(faults.get("/fault/spin?ms=200"), "text/plain; charset=utf-8", "OK");
            assertTrue((System.nanoTime() - start) / 1_000_000 >= 200);
            for (String query : new String[] {"", "?ms=", "?ms=x", "?ms=-5", "?ms=1.5"}) {
                assertOk(faults.get("/fault/spin" + query), "text/plain; charset=utf-8", "OK");
            }
            assertEquals(404, faults.get("/fault/panic/x").statusCode());
            assertEquals(500, faults.get("/fault/panic").statusCode());
            assertOk(faults.get("/"), "text/plain; charset=utf-8", "Hello, World!");
        }
    }
}
