package concur.jetty;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * A successful answer as a value, and the one place that writes answers:
 * {@link #send} for a {@code Reply}, {@link #fail} for an error, which goes
 * through Jetty's {@code Response.writeError} to {@link PlainErrorHandler}.
 */
record Reply(String contentType, byte[] body) {

    static Reply text(String text) {
        return new Reply("text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }

    static Reply json(byte[] json) {
        return new Reply("application/json", json);
    }

    static Reply html(byte[] html) {
        return new Reply("text/html; charset=utf-8", html);
    }

    /** Writes a 200 with an explicit {@code Content-Length}, completing {@code callback} when written. */
    void send(Response response, Callback callback) {
        response.setStatus(HttpStatus.OK_200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /**
     * Answers {@code failure}: an {@link HttpException} (ours or Jetty's, such
     * as a bad chunk) with its status and reason, anything else as a 500. A
     * client that has gone away gets nothing.
     */
    static void fail(Request request, Response response, Callback callback, Throwable failure) {
        if (failure instanceof Routes.WrongMethod wrong) {
            response.getHeaders().put(HttpHeader.ALLOW, wrong.allow);
        }
        if (failure instanceof EofException) {
            callback.failed(failure);
            return;
        }
        Response.writeError(request, response, callback, failure);
    }
}
