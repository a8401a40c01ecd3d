package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bodies from outside the pipeline are read without converting between JSON types. */
class JsonStrictTest {

    record Body(String name, Integer count, Double amount, Boolean flag, Instant at) {
    }

    @Test
    void shouldReadWhatTheContractWritesAsTheLenientReaderDoes() {
        String json = "{\"name\": \"a\", \"count\": 3, \"amount\": 2, \"flag\": true, \"at\": "
                + "\"2026-03-01T12:00:00Z\"}";

        Body strict = Json.readStrict(bytes(json), Body.class);

        // an integral number is a valid double: 2 reads as 2.0
        assertThat(strict).isEqualTo(new Body("a", 3, 2.0, true, Instant.parse("2026-03-01T12:00:00Z")))
                .isEqualTo(Json.read(bytes(json), Body.class));
    }

    @Test
    void shouldRefuseValuesOfAnotherTypeThatTheLenientReaderConverts() {
        // Each body, with the field the refusal must name
        Map<String, String> converted = Map.of(
                "{\"name\": 7}", "name",
                "{\"name\": 1.5}", "name",
                "{\"name\": false}", "name",
                "{\"count\": 1.5}", "count",
                "{\"count\": \"3\"}", "count",
                "{\"amount\": \"2.5\"}", "amount",
                "{\"flag\": 1}", "flag",
                "{\"flag\": \"true\"}", "flag",
                "{\"name\": \"a\", \"name\": \"b\"}", "name");

        converted.forEach((json, field) -> {
            // the lenient reader takes each
            Json.read(bytes(json), Body.class);
            assertThatThrownBy(() -> Json.readStrict(bytes(json), Body.class)).as(json)
                    .isInstanceOf(InvalidRecordException.class)
                    .satisfies(e -> assertThat(((InvalidRecordException) e).field()).as(json).isEqualTo(field));
        });
    }

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }
}
