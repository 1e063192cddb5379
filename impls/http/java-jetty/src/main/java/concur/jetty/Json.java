package concur.jetty;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpStatus;

/**
 * Request bodies into Jackson's tree ({@link JsonNode}) and values back into
 * bytes, with the refusals of SPEC §3.6.
 *
 * <p>The body is decoded with the JDK's strict UTF-8 decoder before Jackson
 * reads it: Jackson's byte parser refuses a stray {@code 0xFF} and an encoded
 * UTF-16 surrogate, but reads the overlong {@code C0 80} as U+0000, and
 * RFC 8259 §8.1 says that is not UTF-8 (JsonTest pins this).
 */
final class Json {

    /** Thread-safe once configured; one for the process, as Jackson intends. */
    static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** bcrypt reads at most 72 bytes of key (SPEC §3.6). */
    static final int MAX_PASSWORD_BYTES = 72;

    private Json() {}

    /** Any JSON value, or 400. */
    static JsonNode parse(byte[] body) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            throw badRequest("body is not valid UTF-8");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (JacksonException e) {
            throw badRequest("body is not valid JSON: " + Routes.oneLine(e.getOriginalMessage()));
        }
        if (node == null || node.isMissingNode()) {
            throw badRequest("body is not valid JSON: it is empty");
        }
        return node;
    }

    /** A JSON object, or 400 (for {@code /user/set}). */
    static ObjectNode object(byte[] body) {
        if (parse(body) instanceof ObjectNode object) {
            return object;
        }
        throw badRequest("body must be a JSON object");
    }

    /** The string member {@code password} of a JSON object, within bcrypt's limits, or 400. */
    static String password(byte[] body) {
        JsonNode password = parse(body).get("password");
        if (password == null || !password.isTextual()) {
            throw badRequest("body must be a JSON object with a string member \"password\"");
        }
        String text = password.textValue();
        if (text.getBytes(StandardCharsets.UTF_8).length > MAX_PASSWORD_BYTES) {
            throw badRequest("password is longer than 72 bytes of UTF-8");
        }
        if (text.indexOf('\0') >= 0) {
            throw badRequest("password contains U+0000");
        }
        return text;
    }

    static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JacksonException e) {
            throw new IllegalStateException("serializing " + value.getClass().getSimpleName(), e);
        }
    }

    private static HttpException.RuntimeException badRequest(String reason) {
        return new HttpException.RuntimeException(HttpStatus.BAD_REQUEST_400, reason);
    }
}
