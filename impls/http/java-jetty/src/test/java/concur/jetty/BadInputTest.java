package concur.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** SPEC §3: each kind of bad input, in order, answered with one line of text/plain. */
class BadInputTest {

    private static final int MIB = 1024 * 1024;
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static void assertError(int status, HttpResponse<String> r) {
        assertEquals(status, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("text/plain"));
        assertFalse(r.body().isBlank());
        assertFalse(r.body().contains("\n"), r.body());
    }

    /** A JSON object of exactly {@code length} bytes. */
    private static String objectOf(int length) {
        return "{\"pad\":\"" + "a".repeat(length - 10) + "\"}";
    }

    @Test
    void unknown_paths_are_404() throws Exception {
        for (String path : new String[] {"/nope", "/JSON", "/user/delete/x", "/json/extra", "/user/get", "/index.html", "/password/set"}) {
            assertError(404, server.get(path));
        }
        assertError(404, server.post("/password/reset/x", "{}"));
    }

    @Test
    void a_known_path_with_another_method_is_405_with_allow() throws Exception {
        String[][] cases = {{"POST", "/", "GET, HEAD"}, {"DELETE", "/json", "GET, HEAD"}, {"PUT", "/page", "GET, HEAD"},
            {"GET", "/password/set/alice", "POST"}, {"GET", "/user/set/bob", "POST"}, {"PATCH", "/user/get/bob", "GET, HEAD"}};
        for (String[] c : cases) {
            HttpResponse<String> r = server.send(c[0], c[1], c[0].equals("GET") ? null : "{}".getBytes());
            assertError(405, r);
            assertEquals(c[2], r.headers().firstValue("allow").orElse(null), c[0] + " " + c[1]);
        }
        assertError(405, server.send("GET", "/password/set/a%20b", null));
    }

    @Test
    void a_bad_user_is_400_on_every_route_checked_on_the_raw_path() throws Exception {
        for (String name : new String[] {"", "a/b", "%41", "a%20b", "%C3%BC", "a:b", "a@b", "a+b", "a~b", "x".repeat(65)}) {
            assertError(400, server.post("/password/set/" + name, "{\"password\":\"pw\"}"));
            assertError(400, server.post("/password/verify/" + name, "{\"password\":\"pw\"}"));
            assertError(400, server.post("/user/set/" + name, "{}"));
            assertError(400, server.get("/user/get/" + name));
        }
    }

    @Test
    void exactly_1_mib_is_accepted() throws Exception {
        assertEquals(200, server.post("/user/set/big", objectOf(MIB)).statusCode());
        assertEquals(MIB, server.get("/user/get/big").body().length());
    }

    @Test
    void a_content_length_over_1_mib_is_413_before_the_body_and_closes() throws Exception {
        TestServer.Exchange e = server.raw(1, true,
                ("POST /user/set/big HTTP/1.1\r\nHost: x\r\nContent-Length: " + (MIB + 1) + "\r\n\r\n").getBytes());
        assertEquals(413, e.first().status());
        assertEquals("close", e.first().header("connection"));
        assertTrue(e.closed());
    }

    @Test
    void expect_100_continue_over_the_limit_gets_the_413_and_no_100() throws Exception {
        TestServer.Exchange e = server.raw(1, true,
                ("POST /user/set/big HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " + (MIB + 1) + "\r\n\r\n").getBytes());
        assertEquals(413, e.first().status());
    }

    @Test
    void a_chunked_body_over_1_mib_is_413() throws Exception {
        String piece = "a".repeat(64 * 1024);
        byte[][] parts = new byte[19][];
        parts[0] = "POST /password/set/big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes();
        for (int i = 1; i <= 17; i++) {
            parts[i] = (Integer.toHexString(piece.length()) + "\r\n" + piece + "\r\n").getBytes();
        }
        parts[18] = "0\r\n\r\n".getBytes();
        assertEquals(413, server.raw(1, false, parts).first().status());
        assertEquals(200, server.get("/").statusCode());
    }

    @Test
    void a_body_that_is_not_json_is_400() throws Exception {
        byte[][] bodies = {"not json".getBytes(), "{\"password\":".getBytes(), "{'password':'x'}".getBytes(),
            "{\"password\":\"x\"} trailing".getBytes(), new byte[0], {'"', (byte) 0xFF, '"'}};
        for (byte[] body : bodies) {
            for (String route : new String[] {"password/set", "password/verify", "user/set"}) {
                assertError(400, server.send("POST", "/" + route + "/badjson", body));
            }
        }
    }

    @Test
    void bytes_that_are_not_utf8_are_400_and_nothing_is_stored() throws Exception {
        byte[][] bodies = {{'{', '"', 'n', '"', ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'},
            {'{', '"', 'n', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'},
            {'{', '"', (byte) 0xFE, '"', ':', '1', '}'}};
        for (byte[] body : bodies) {
            assertError(400, server.send("POST", "/user/set/notutf8", body));
        }
        assertError(404, server.get("/user/get/notutf8"));
        assertError(400, server.send("POST", "/password/set/notutf8", new byte[] {'{', '"', 'p', 'a', 's', 's', 'w', 'o', 'r', 'd', '"', ':', '"', (byte) 0xFF, '"', '}'}));
    }

    @Test
    void no_string_password_one_over_72_bytes_or_with_a_nul_is_400() throws Exception {
        String tooLong = "{\"password\":\"" + "é".repeat(36) + "x\"}";
        assertEquals(73, ("é".repeat(36) + "x").getBytes(StandardCharsets.UTF_8).length);
        for (String body : new String[] {"{}", "{\"password\":5}", "{\"password\":null}", "{\"password\":[\"x\"]}", "[\"password\"]",
            "\"password\"", "{\"password\":\"a\\u0000b\"}", tooLong}) {
            assertError(400, server.post("/password/set/badpw", body));
            assertError(400, server.post("/password/verify/badpw", body));
        }
    }

    @Test
    void user_set_with_json_that_is_not_an_object_is_400() throws Exception {
        for (String body : new String[] {"[1,2]", "\"str\"", "42", "null", "true"}) {
            assertError(400, server.post("/user/set/badbody", body));
        }
        assertError(404, server.get("/user/get/badbody"));
    }

    @Test
    void malformed_requests_are_400_in_plain_text_and_the_server_keeps_serving() throws Exception {
        String[] requests = {
            "GARBAGE\r\n\r\n",
            "GET / EXTRA JUNK HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
            "POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
            "GET / HTTP/1.1\r\n\r\n",
        };
        for (String request : requests) {
            TestServer.Raw r = server.raw(request).first();
            assertEquals(400, r.status(), request);
            assertTrue(r.header("content-type").startsWith("text/plain"), request);
            for (String name : new String[] {"date", "server", "content-length"}) {
                assertTrue(r.header(name) != null, name + " on the answer to " + request);
            }
            assertFalse(r.body().isBlank() || r.body().contains("\n"), r.body());
            assertEquals(200, server.get("/").statusCode());
        }
    }
}
