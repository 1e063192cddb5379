package concur.jetty;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;

/**
 * Request bodies up to 1 MiB (SPEC §3.5), read the two ways the handlers
 * need: without blocking ({@link #readAsync}) or blocking ({@link #read}).
 * A {@code Content-Length} over the limit is refused before anything is read,
 * so {@code Expect: 100-continue} gets the 413 and no {@code 100}; a chunked
 * body is refused at the chunk that crosses the limit.
 */
final class Bodies {

    static final int LIMIT = 1024 * 1024;

    private Bodies() {}

    /**
     * Reads the whole body without blocking, with Jetty's read/demand loop,
     * and hands it to {@code then}, or a failure to {@code otherwise}. When
     * bytes are missing the loop returns and Jetty calls it again once they
     * arrive, on a pool thread (a plain {@code Runnable} is a blocking task,
     * which Jetty keeps off its selector thread), so bcrypt can run there.
     */
    static void readAsync(Request request, Response response, Consumer<byte[]> then, Consumer<Throwable> otherwise) {
        refuseDeclaredOverLimit(request, response);
        new AsyncRead(request, response, then, otherwise).run();
    }

    private record AsyncRead(Request request, Response response, ByteArrayOutputStream body,
                             Consumer<byte[]> then, Consumer<Throwable> otherwise) implements Runnable {

        AsyncRead(Request request, Response response, Consumer<byte[]> then, Consumer<Throwable> otherwise) {
            this(request, response, new ByteArrayOutputStream(), then, otherwise);
        }

        @Override
        public void run() {
            try {
                readAvailable();
            } catch (IOException e) {
                otherwise.accept(e);
            }
        }

        private void readAvailable() throws IOException {
            while (true) {
                Content.Chunk chunk = request.read();
                if (chunk == null) {
                    request.demand(this);
                    return;
                }
                if (Content.Chunk.isFailure(chunk)) {
                    otherwise.accept(chunk.getFailure());
                    return;
                }
                ByteBuffer bytes = chunk.getByteBuffer();
                boolean fits = body.size() + bytes.remaining() <= LIMIT;
                if (fits) {
                    BufferUtil.writeTo(bytes, body); // Jetty reads into direct buffers
                }
                chunk.release();
                if (!fits) {
                    otherwise.accept(tooLarge(response));
                    return;
                }
                if (chunk.isLast()) {
                    then.accept(body.toByteArray());
                    return;
                }
            }
        }
    }

    /** Reads the whole body, blocking the calling (virtual) thread while it arrives. */
    static byte[] read(Request request, Response response) throws IOException {
        refuseDeclaredOverLimit(request, response);
        try (InputStream in = Content.Source.asInputStream(request)) {
            byte[] body = in.readNBytes(LIMIT + 1);
            if (body.length > LIMIT) {
                throw tooLarge(response);
            }
            return body;
        }
    }

    private static void refuseDeclaredOverLimit(Request request, Response response) {
        if (request.getLength() > LIMIT) {
            throw tooLarge(response);
        }
    }

    /** The rest of the body stays unread, so the connection cannot carry another request. */
    private static HttpException.RuntimeException tooLarge(Response response) {
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        return new HttpException.RuntimeException(HttpStatus.PAYLOAD_TOO_LARGE_413, "request body is larger than 1 MiB (1048576 bytes)");
    }
}
