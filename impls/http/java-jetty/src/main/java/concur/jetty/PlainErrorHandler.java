package concur.jetty;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Every error as one line of {@code text/plain} (SPEC §3), whatever the
 * method or the {@code Accept} header. Jetty's own {@code ErrorHandler}
 * writes an HTML page, or plain text or JSON depending on {@code Accept}, and
 * nothing at all for methods outside GET/POST/HEAD. It answers our errors
 * ({@code Response.writeError}) and Jetty's (a request it cannot parse, a
 * handler that throws), so one override covers both.
 */
final class PlainErrorHandler extends ErrorHandler {

    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        byte[] body = Routes.oneLine(message).getBytes(StandardCharsets.UTF_8);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
