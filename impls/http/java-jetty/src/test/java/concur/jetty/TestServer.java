package concur.jetty;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A real server on a port the OS chooses, in the thread model named by the
 * {@code concur.threads} system property (the manifests' test commands set
 * it), with fast bcrypt and short waits; and two clients: the JDK's
 * {@code HttpClient} for ordinary requests and raw sockets for the framings
 * it will not send.
 */
final class TestServer implements AutoCloseable {

    static final Duration LONG_POLL = Duration.ofMillis(300);
    static final Duration PAGE_DELAY = Duration.ofMillis(400);
    static final int PAGE_DELAY_EVERY = 3;
    static final Path PAGE_FILE = Path.of("../../../spec/static/hello.html").toAbsolutePath().normalize();

    final ConcurServer server;
    final int port;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    TestServer() throws Exception {
        this(Database.Settings.NONE, false);
    }

    /** A server on the database of {@code db} (DatabaseTest). */
    TestServer(Database.Settings db) throws Exception {
        this(db, false);
    }

    /** A server with the fault routes of SPEC §9 ({@code CONCUR_FAULTS=1}). */
    static TestServer withFaults() throws Exception {
        return new TestServer(Database.Settings.NONE, true);
    }

    private TestServer(Database.Settings db, boolean faults) throws Exception {
        Config config = new Config(0, 1, 4, PAGE_FILE, PAGE_DELAY_EVERY, PAGE_DELAY, LONG_POLL, faults);
        server = new ConcurServer(config, threads(), db).start();
        port = server.port();
    }

    static ConcurServer.Threads threads() {
        return ConcurServer.Threads.valueOf(System.getProperty("concur.threads", "platform").toUpperCase(Locale.ROOT));
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }

    HttpResponse<String> get(String path) throws Exception {
        return send("GET", path, null);
    }

    HttpResponse<String> post(String path, String body) throws Exception {
        return send("POST", path, body.getBytes(StandardCharsets.UTF_8));
    }

    HttpResponse<String> send(String method, String path, byte[] body) throws Exception {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body);
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, publisher)
                .timeout(Duration.ofSeconds(20))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** One parsed response from a raw exchange. */
    record Raw(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** What a raw connection got back: the responses, and whether the server closed it. */
    record Exchange(List<Raw> responses, boolean closed) {
        Raw first() {
            return responses.getFirst();
        }
    }

    /**
     * Writes {@code parts} one after another (each flushed on its own), then
     * reads until {@code expected} responses arrived and, when
     * {@code untilClose}, until the server closes (or 5 s pass).
     */
    Exchange raw(int expected, boolean untilClose, byte[]... parts) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            for (byte[] part : parts) {
                out.write(part);
                out.flush();
            }
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            boolean closed = false;
            byte[] buffer = new byte[64 * 1024];
            while (true) {
                List<Raw> parsed = parse(got.toByteArray());
                if (parsed.size() >= expected && !untilClose) {
                    return new Exchange(parsed, false);
                }
                int n;
                try {
                    n = in.read(buffer);
                } catch (SocketTimeoutException | java.net.SocketException e) {
                    n = -1;
                }
                if (n < 0) {
                    closed = true;
                    return new Exchange(parse(got.toByteArray()), closed);
                }
                got.write(buffer, 0, n);
            }
        }
    }

    Exchange raw(String... parts) throws IOException {
        byte[][] bytes = new byte[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            bytes[i] = parts[i].getBytes(StandardCharsets.ISO_8859_1);
        }
        return raw(1, false, bytes);
    }

    /** Everything the server sends back to {@code request} until it closes the connection. */
    String rawText(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /** Complete responses in {@code bytes}, framed by Content-Length or chunked; interim 1xx included. */
    static List<Raw> parse(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        List<Raw> responses = new ArrayList<>();
        int at = 0;
        while (true) {
            int end = text.indexOf("\r\n\r\n", at);
            if (end < 0) {
                return responses;
            }
            String[] lines = text.substring(at, end).split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            Map<String, String> headers = new TreeMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
            int bodyStart = end + 4;
            String body;
            if (status / 100 == 1) {
                body = "";
                at = bodyStart;
            } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                StringBuilder sb = new StringBuilder();
                int p = bodyStart;
                while (true) {
                    int lineEnd = text.indexOf("\r\n", p);
                    if (lineEnd < 0) {
                        return responses;
                    }
                    int size = Integer.parseInt(text.substring(p, lineEnd).split(";")[0].trim(), 16);
                    if (size == 0) {
                        int trailerEnd = text.indexOf("\r\n", lineEnd + 2);
                        if (trailerEnd < 0) {
                            return responses;
                        }
                        at = trailerEnd + 2;
                        break;
                    }
                    if (text.length() < lineEnd + 2 + size + 2) {
                        return responses;
                    }
                    sb.append(text, lineEnd + 2, lineEnd + 2 + size);
                    p = lineEnd + 2 + size + 2;
                }
                body = sb.toString();
            } else {
                int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
                if (text.length() < bodyStart + length) {
                    return responses;
                }
                body = text.substring(bodyStart, bodyStart + length);
                at = bodyStart + length;
            }
            responses.add(new Raw(status, headers, body));
        }
    }
}
