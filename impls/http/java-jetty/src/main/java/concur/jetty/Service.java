package concur.jetty;

import at.favre.lib.crypto.bcrypt.BCrypt;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;

/**
 * What each route does once its request is in hand, written as plain
 * synchronous calls that both handlers share: the two stores, bcrypt (at
 * most {@code CONCUR_CORES} hashes at once, {@link HashSlots}), the page file
 * and the JSON values. Where the work blocks (bcrypt, reading the
 * page) it blocks the calling thread: a {@code QueuedThreadPool} thread for
 * {@link AsyncHandler}, a virtual thread for {@link BlockingHandler}. Waiting
 * (the long poll, the page delay) and reading the body are left to the
 * handlers, because that is where the two thread models differ.
 */
final class Service {

    /** The object {@code /json} serializes on each request. */
    record Message(String message) {}

    private final Config config;
    /** user → bcrypt hash ({@code $2b$}). */
    private final ConcurrentHashMap<String, String> passwords = new ConcurrentHashMap<>();
    /** user → the JSON object that was posted, as Jackson's tree. */
    private final ConcurrentHashMap<String, JsonNode> users = new ConcurrentHashMap<>();
    private final AtomicLong pageRequests = new AtomicLong();
    private final BCrypt.Hasher hasher = BCrypt.with(BCrypt.Version.VERSION_2B);
    private final BCrypt.Verifyer verifyer = BCrypt.verifyer();
    private final HashSlots hashSlots;

    Service(Config config) {
        this.config = config;
        this.hashSlots = new HashSlots(config.cores());
    }

    /** The most bcrypt hashes that were in progress at once (at most {@code CONCUR_CORES}). */
    int hashesAtOnceMost() {
        return hashSlots.peak();
    }

    Reply hello() {
        return Reply.text("Hello, World!");
    }

    Reply json() {
        return Reply.json(Json.bytes(new Message("Hello, World!")));
    }

    Reply ok() {
        return Reply.text("OK");
    }

    /**
     * {@code /fault/spin} (SPEC §9): computes until {@code ms} of wall-clock
     * time have passed, on the calling thread, never giving it up (no sleep,
     * no park), as a runaway regular expression would; then {@code OK}.
     */
    Reply spin(int ms) {
        long end = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() - end < 0) {
            // reading the clock is the work
        }
        return ok();
    }

    /** SPEC §9's N, read as {@code /queries} reads its own: missing, empty, not an integer or below 0 is 0; above 10000 is 10000. */
    static int spinMillis(Request request) {
        String raw = Request.extractQueryParameters(request).getValue("ms");
        try {
            return Math.clamp(Integer.parseInt(raw), 0, 10_000);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Counts a {@code /page} request (from 1) and tells whether it is an Nth one, to be delayed. */
    boolean nextPageIsDelayed() {
        return pageRequests.incrementAndGet() % config.pageDelayEvery() == 0;
    }

    /** The page file, read from disk on every request as the blog series did. */
    Reply page() {
        try {
            return Reply.html(Files.readAllBytes(config.pageFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("reading CONCUR_PAGE_FILE " + config.pageFile(), e);
        }
    }

    /** The three POST routes, given the whole body. */
    Reply post(Routes.Match match, byte[] body) {
        return switch (match.route()) {
            case PASSWORD_SET -> setPassword(match.user(), body);
            case PASSWORD_VERIFY -> verifyPassword(match.user(), body);
            case USER_SET -> setUser(match.user(), body);
            default -> throw new IllegalArgumentException(match.route() + " takes no body");
        };
    }

    Reply getUser(String user) {
        JsonNode value = users.get(user);
        if (value == null) {
            throw new HttpException.RuntimeException(HttpStatus.NOT_FOUND_404, "no user info for " + user);
        }
        return Reply.json(Json.bytes(value));
    }

    private Reply setPassword(String user, byte[] body) {
        byte[] password = Json.password(body).getBytes(StandardCharsets.UTF_8);
        byte[] hash = hashSlots.run(() -> hasher.hash(config.bcryptCost(), password));
        passwords.put(user, new String(hash, StandardCharsets.US_ASCII));
        return ok();
    }

    private Reply verifyPassword(String user, byte[] body) {
        byte[] password = Json.password(body).getBytes(StandardCharsets.UTF_8);
        String stored = passwords.get(user);
        if (stored == null) {
            // Hash once anyway, so an unknown user takes as long as a wrong password (thesis, Listing 24).
            hashSlots.run(() -> hasher.hash(config.bcryptCost(), password));
            throw new HttpException.RuntimeException(HttpStatus.NOT_FOUND_404, "no password set for " + user);
        }
        if (!hashSlots.run(() -> verifyer.verify(password, stored.getBytes(StandardCharsets.US_ASCII))).verified) {
            throw new HttpException.RuntimeException(HttpStatus.FORBIDDEN_403, "wrong password for " + user);
        }
        return ok();
    }

    private Reply setUser(String user, byte[] body) {
        users.put(user, Json.object(body));
        return ok();
    }
}
