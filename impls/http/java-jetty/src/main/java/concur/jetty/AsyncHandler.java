package concur.jetty;

import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The routes on Jetty's {@code QueuedThreadPool} of platform threads, in the
 * asynchronous style of Jetty's core API: {@code handle} returns {@code true}
 * at once and the {@link Callback} is completed when the answer is written,
 * which may be later. Nothing here waits on a pool thread: the long poll and
 * the {@code /page} delay are timers on the server's {@code Scheduler}, and
 * bodies are read as their bytes arrive. bcrypt is CPU work and runs on the
 * pool thread that has the body, as a Jetty service does. The database
 * routes block the pool thread on JDBC ({@link DbRoutes}), as a Jetty service
 * on a blocking driver does; the handler's {@code InvocationType} is Jetty's
 * default, {@code BLOCKING}, which allows it.
 */
final class AsyncHandler extends Handler.Abstract {

    private final Service service;
    private final Config config;
    private final DbRoutes database;

    AsyncHandler(Service service, Config config, DbRoutes database) {
        this.service = service;
        this.config = config;
        this.database = database;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        try {
            Routes.Match match = Routes.match(request.getMethod(), request.getHttpURI().getPath(), config.faults());
            switch (match.route()) {
                case ROOT -> service.hello().send(response, callback);
                case JSON -> service.json().send(response, callback);
                case PAGE -> page(response, callback);
                case LONG_POLL -> later(config.longPoll(), () -> service.ok().send(response, callback));
                case USER_GET -> service.getUser(match.user()).send(response, callback);
                // JDBC blocks: this pool thread waits for a connection and for each query.
                case DB, QUERIES, UPDATES, FORTUNES, SLOWDB -> database.answer(match.route(), request).send(response, callback);
                // SPEC §9: a bug in a handler, and a handler that computes on this pool thread without letting go of it.
                case FAULT_PANIC -> throw new IllegalStateException("fault: panic");
                case FAULT_SPIN -> service.spin(Service.spinMillis(request)).send(response, callback);
                case PASSWORD_SET, PASSWORD_VERIFY, USER_SET -> Bodies.readAsync(request, response,
                        body -> answer(request, response, callback, match, body),
                        failure -> Reply.fail(request, response, callback, failure));
            }
        } catch (Throwable failure) {
            Reply.fail(request, response, callback, failure);
        }
        return true;
    }

    private void page(Response response, Callback callback) {
        boolean delayed = service.nextPageIsDelayed();
        Reply page = service.page();
        if (delayed) {
            later(config.pageDelay(), () -> page.send(response, callback));
        } else {
            page.send(response, callback);
        }
    }

    private void answer(Request request, Response response, Callback callback, Routes.Match match, byte[] body) {
        try {
            service.post(match, body).send(response, callback);
        } catch (Throwable failure) {
            Reply.fail(request, response, callback, failure);
        }
    }

    /** Runs {@code write} on the server's scheduler thread after {@code delay}; it only starts a non-blocking write. */
    private void later(Duration delay, Runnable write) {
        getServer().getScheduler().schedule(write, delay);
    }
}
