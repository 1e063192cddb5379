package concur.jetty;

import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;

/**
 * The route table of SPEC §2 and the order of SPEC §3: an unknown path is 404,
 * then a wrong method 405 (with {@code Allow}), then a bad {@code {user}} 400.
 * The name is checked on the raw path Jetty received, before any decoding, so
 * {@code %41} and {@code a/b} are not names.
 */
final class Routes {

    enum Route {
        ROOT("/", false),
        JSON("/json", false),
        PAGE("/page", false),
        LONG_POLL("/longPoll", false),
        PASSWORD_SET("/password/set/", true),
        PASSWORD_VERIFY("/password/verify/", true),
        USER_SET("/user/set/", true),
        USER_GET("/user/get/", false),
        // The database routes (SPEC §8.3), answered by DbRoutes.
        DB("/db", false),
        QUERIES("/queries", false),
        UPDATES("/updates", false),
        FORTUNES("/fortunes", false),
        SLOWDB("/slowdb", false),
        // The fault routes (SPEC §9), only with CONCUR_FAULTS=1.
        FAULT_PANIC("/fault/panic", false),
        FAULT_SPIN("/fault/spin", false);

        final String path;
        /** POST routes take a JSON body; the others are GET (and HEAD) routes. */
        final boolean post;

        Route(String path, boolean post) {
            this.path = path;
            this.post = post;
        }

        /** {@code /password/set/} and the like are prefixes followed by {@code {user}}. */
        boolean hasUser() {
            return path.endsWith("/") && path.length() > 1;
        }

        boolean isFault() {
            return this == FAULT_PANIC || this == FAULT_SPIN;
        }

        String allow() {
            return post ? "POST" : "GET, HEAD";
        }

        boolean accepts(String method) {
            return post ? HttpMethod.POST.is(method) : HttpMethod.GET.is(method) || HttpMethod.HEAD.is(method);
        }
    }

    /** A request that found its route; {@code user} is null on routes without one. */
    record Match(Route route, String user) {}

    /** Thrown with the response's {@code Allow} value, which the handler sets before writing the 405. */
    static final class WrongMethod extends HttpException.RuntimeException {
        final String allow;

        WrongMethod(String method, Route route) {
            super(HttpStatus.METHOD_NOT_ALLOWED_405, method + " is not allowed on " + route.path + ", only " + route.allow());
            this.allow = route.allow();
        }
    }

    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final Route[] ROUTES = Route.values();

    private Routes() {}

    /**
     * Resolves {@code rawPath} (undecoded, without the query) to a route, or
     * throws the 404, 405 or 400 that SPEC §3 puts first. Without
     * {@code faults} the fault routes are unknown paths.
     */
    static Match match(String method, String rawPath, boolean faults) {
        for (Route route : ROUTES) {
            if (route.isFault() && !faults) {
                continue;
            }
            String user = null;
            if (route.hasUser()) {
                if (!rawPath.startsWith(route.path)) {
                    continue;
                }
                user = rawPath.substring(route.path.length());
            } else if (!rawPath.equals(route.path)) {
                continue;
            }
            if (!route.accepts(method)) {
                throw new WrongMethod(method, route);
            }
            if (user != null && !USER.matcher(user).matches()) {
                throw new HttpException.RuntimeException(HttpStatus.BAD_REQUEST_400,
                        "invalid user name: must match [A-Za-z0-9_.-]{1,64}");
            }
            return new Match(route, user);
        }
        throw new HttpException.RuntimeException(HttpStatus.NOT_FOUND_404, "no route for " + oneLine(rawPath));
    }

    /** A path echoed in a reason must not break the one-line body. */
    static String oneLine(String text) {
        return text == null ? "" : text.replaceAll("[\\r\\n]", " ");
    }
}
