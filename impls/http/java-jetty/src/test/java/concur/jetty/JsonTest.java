package concur.jetty;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JacksonException;
import org.eclipse.jetty.http.HttpException;
import org.junit.jupiter.api.Test;

/** SPEC §2 and §3.6 on the JSON layer alone. */
class JsonTest {

    private static final byte[][] NOT_UTF8 = {
        {'{', '"', 'n', '"', ':', '"', (byte) 0xFF, '"', '}'},
        {'{', '"', 'n', '"', ':', '"', 'a', (byte) 0xC3, '"', '}'},
        {'{', '"', 'n', '"', ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'},
        {'{', '"', 'n', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'},
        {'{', '"', (byte) 0xFE, '"', ':', '1', '}'},
    };

    @Test
    void jacksons_byte_parser_takes_an_overlong_nul_which_is_why_the_body_is_decoded_first() {
        // If a Jackson upgrade starts refusing it, the JDK decoder in Json.parse can go.
        assertDoesNotThrow(() -> Json.MAPPER.readTree(NOT_UTF8[2]));
        for (int i : new int[] {0, 1, 3, 4}) {
            assertThrows(JacksonException.class, () -> Json.MAPPER.readTree(NOT_UTF8[i]), "case " + i);
        }
    }

    @Test
    void bytes_that_are_not_utf8_are_400() {
        for (byte[] body : NOT_UTF8) {
            var e = assertThrows(HttpException.RuntimeException.class, () -> Json.object(body));
            assertEquals(400, e.getCode());
        }
    }

    @Test
    void a_value_comes_back_the_same_after_a_round_trip() throws Exception {
        String json = "{\"name\":\"Ada\",\"tags\":[\"x\",1,2.5,true,null],\"u\":\"héllo ✓ 🚀\",\"big\":9007199254740991}";
        assertEquals(Json.MAPPER.readTree(json), Json.MAPPER.readTree(Json.bytes(Json.object(json.getBytes("UTF-8")))));
    }

    @Test
    void trailing_content_and_an_empty_body_are_not_json() {
        for (String body : new String[] {"{} x", "{}{}", "", "   "}) {
            assertThrows(HttpException.RuntimeException.class, () -> Json.parse(body.getBytes()), body);
        }
    }
}
