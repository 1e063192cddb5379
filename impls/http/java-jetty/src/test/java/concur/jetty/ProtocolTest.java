package concur.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** SPEC §4: framings a conforming client may choose, over raw sockets. */
class ProtocolTest {

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
    void keep_alive_serves_many_requests_on_one_connection() throws Exception {
        byte[][] parts = new byte[50][];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = "GET /json HTTP/1.1\r\nHost: x\r\n\r\n".getBytes();
        }
        List<TestServer.Raw> responses = server.raw(50, false, parts).responses();
        assertEquals(50, responses.size());
        responses.forEach(r -> assertEquals("{\"message\":\"Hello, World!\"}", r.body()));
    }

    @Test
    void connection_close_is_answered_then_closed() throws Exception {
        TestServer.Exchange e = server.raw(1, true, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes());
        assertEquals(200, e.first().status());
        assertTrue(e.closed());
    }

    @Test
    void http10_is_answered_with_content_length_then_closed() throws Exception {
        TestServer.Exchange e = server.raw(1, true, "GET /json HTTP/1.0\r\n\r\n".getBytes());
        assertEquals(200, e.first().status());
        assertEquals("27", e.first().header("content-length"));
        assertNull(e.first().header("transfer-encoding"));
        assertTrue(e.closed());
    }

    @Test
    void a_chunked_body_with_extensions_and_trailers() throws Exception {
        TestServer.Raw r = server.raw("POST /user/set/chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4;ext=1\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\nTrailer: yes\r\n\r\n").first();
        assertEquals(200, r.status(), r.body());
        assertEquals("{\"a\":1}", server.get("/user/get/chunked").body());
    }

    @Test
    void expect_100_continue_gets_100_then_the_answer() throws Exception {
        String body = "{\"e\":1}";
        TestServer.Exchange e = server.raw(2, false,
                ("POST /user/set/expect HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " + body.length() + "\r\n\r\n").getBytes(),
                body.getBytes());
        TestServer.Raw last = e.responses().getLast();
        assertEquals(200, last.status());
        assertEquals("{\"e\":1}", server.get("/user/get/expect").body());
    }

    @Test
    void pipelined_requests_are_answered_in_order_and_see_each_other() throws Exception {
        String body = "{\"p\":1}";
        String pipelined = "POST /user/set/piped HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length() + "\r\n\r\n" + body
                + "GET /user/get/piped HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /json HTTP/1.1\r\nHost: x\r\n\r\n";
        List<TestServer.Raw> r = server.raw(3, false, pipelined.getBytes()).responses();
        assertEquals(List.of("OK", body, "{\"message\":\"Hello, World!\"}"), r.stream().map(TestServer.Raw::body).toList());
    }

    @Test
    void a_request_sent_one_byte_at_a_time() throws Exception {
        byte[] request = "POST /user/set/split HTTP/1.1\r\nhost: x\r\ncontent-LENGTH: 7\r\n\r\n{\"s\":1}".getBytes();
        byte[][] parts = new byte[request.length][];
        for (int i = 0; i < request.length; i++) {
            parts[i] = new byte[] {request[i]};
        }
        assertEquals(200, server.raw(1, false, parts).first().status());
        assertEquals("{\"s\":1}", server.get("/user/get/split").body());
    }

    @Test
    void head_is_200_without_a_body_and_the_connection_stays_usable() throws Exception {
        String text = server.rawText("HEAD /json HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        int second = text.indexOf("HTTP/1.1", 1);
        String head = text.substring(0, second);
        assertTrue(head.startsWith("HTTP/1.1 200"), head);
        assertTrue(head.endsWith("\r\n\r\n"), "HEAD answered with a body: " + head);
        assertTrue(text.endsWith("Hello, World!"), text);
    }

    @Test
    void every_response_has_the_four_headers() throws Exception {
        for (String request : new String[] {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n",
            "DELETE /json HTTP/1.1\r\nHost: x\r\n\r\n", "GET /user/get/%41 HTTP/1.1\r\nHost: x\r\n\r\n"}) {
            TestServer.Raw r = server.raw(request).first();
            for (String name : new String[] {"content-length", "content-type", "date", "server"}) {
                assertNotNull(r.header(name), name + " on " + request);
            }
            assertFalse(r.body().isEmpty());
        }
    }
}
