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

    BlockingHandler(Service service, Config config) {
        this.service = service;
        this.config = config;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        try {
            Routes.Match match = Routes.match(request.getMethod(), request.getHttpURI().getPath());
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
