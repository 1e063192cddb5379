package concur.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import at.favre.lib.crypto.bcrypt.BCrypt;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** SPEC §7: the shared vectors verify with this library, so a hash made by any runtime verifies here. */
class BcryptVectorsTest {

    private static final Path VECTORS = Path.of("../../../spec/bcrypt-vectors.json");

    private static Stream<JsonNode> vectors() throws Exception {
        JsonNode root = Json.MAPPER.readTree(VECTORS.toFile());
        return StreamSupport.stream(root.get("vectors").spliterator(), false);
    }

    @Test
    void the_vectors_include_2a_and_2b_hashes() throws Exception {
        assertTrue(vectors().anyMatch(v -> v.get("hash").textValue().startsWith("$2a$")));
        assertTrue(vectors().anyMatch(v -> v.get("hash").textValue().startsWith("$2b$")));
    }

    @TestFactory
    Stream<DynamicTest> every_vector_verifies_as_it_says() throws Exception {
        return vectors().map(v -> {
            String password = v.get("password").textValue();
            String hash = v.get("hash").textValue();
            boolean matches = v.get("matches").booleanValue();
            return DynamicTest.dynamicTest(hash.substring(0, 7) + " " + password + " -> " + matches, () ->
                    assertEquals(matches, BCrypt.verifyer().verify(password.getBytes(StandardCharsets.UTF_8),
                            hash.getBytes(StandardCharsets.US_ASCII)).verified));
        });
    }

    @Test
    void a_new_hash_is_2b_at_the_cost_given_and_verifies() {
        byte[] hash = BCrypt.with(BCrypt.Version.VERSION_2B).hash(5, "correct horse".getBytes(StandardCharsets.UTF_8));
        assertTrue(new String(hash, StandardCharsets.US_ASCII).startsWith("$2b$05$"));
        assertTrue(BCrypt.verifyer().verify("correct horse".getBytes(StandardCharsets.UTF_8), hash).verified);
        assertFalse(BCrypt.verifyer().verify("correct horsf".getBytes(StandardCharsets.UTF_8), hash).verified);
    }

    @Test
    void a_72_byte_password_is_hashed_whole() {
        byte[] password = "é".repeat(36).getBytes(StandardCharsets.UTF_8);
        byte[] hash = BCrypt.with(BCrypt.Version.VERSION_2B).hash(4, password);
        assertTrue(BCrypt.verifyer().verify(password, hash).verified);
    }
}
