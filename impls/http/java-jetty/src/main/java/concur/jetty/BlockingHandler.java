package concur.jetty;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The routes in plain blocking style, for Jetty on virtual threads: one
 * request, one virtual thread, top to bottom. {@code Thread.sleep} for the
 * long poll and the {@code /page} delay, a blocking {@code InputStream} for
 * the body, bcrypt inline. Each blocking call parks the virtual thread and
 * frees its carrier, so nothing here holds an OS thread while it waits.
 */
final class BlockingHandler extends Handler.Abstract {

    private final Service service;
    private final Config config;
    private final DbRoutes database;

    BlockingHandler(Service service, Config config, DbRoutes database) {
        this.service = service;
        this.config = config;
        this.database = database;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        try {
            Routes.Match match = Routes.match(request.getMethod(), request.getHttpURI().getPath(), config.faults());
            Reply reply = switch (match.route()) {
                case ROOT -> service.hello();
                case JSON -> service.json();
                case PAGE -> {
                    if (service.nextPageIsDelayed()) {
                        Thread.sleep(config.pageDelay());
                    }
                    yield service.page();
                }
                case LONG_POLL -> {
                    Thread.sleep(config.longPoll());
                    yield service.ok();
                }
                case USER_GET -> service.getUser(match.user());
                // JDBC's socket reads and HikariCP's wait park the virtual thread.
                case DB, QUERIES, UPDATES, FORTUNES, SLOWDB -> database.answer(match.route(), request);
                // SPEC §9: a bug in a handler, and a handler that computes on its virtual thread (and so its carrier) without parking.
                case FAULT_PANIC -> throw new IllegalStateException("fault: panic");
                case FAULT_SPIN -> service.spin(Service.spinMillis(request));
                case PASSWORD_SET, PASSWORD_VERIFY, USER_SET -> service.post(match, Bodies.read(request, response));
            };
            reply.send(response, callback);
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt();
            callback.failed(stopping);
        } catch (Throwable failure) {
            Reply.fail(request, response, callback, failure);
        }
        return true;
    }
}
