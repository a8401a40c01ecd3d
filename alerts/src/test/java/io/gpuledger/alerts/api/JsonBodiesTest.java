package io.gpuledger.alerts.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.alerts.fleet.FleetSummary;
import io.gpuledger.model.Json;
import jakarta.ws.rs.core.MediaType;
import java.io.ByteArrayOutputStream;
import java.lang.annotation.Annotation;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The API's JSON is the contract's: the same bytes the topics carry, UTC instants as ISO text. */
class JsonBodiesTest {

    private final JsonBodies bodies = new JsonBodies();

    @Test
    void shouldWriteAValueAsTheContractsMapperDoes() throws Exception {
        FleetSummary summary = new FleetSummary(Instant.parse("2026-12-05T10:15:30Z"), null, List.of(), List.of(),
                List.of(), List.of());
        ByteArrayOutputStream body = new ByteArrayOutputStream();

        bodies.writeTo(summary, FleetSummary.class, FleetSummary.class, new Annotation[0],
                MediaType.APPLICATION_JSON_TYPE, null, body);

        String written = body.toString(StandardCharsets.UTF_8);
        assertThat(written).contains("\"asOf\":\"2026-12-05T10:15:30Z\"");
        assertThat(Json.read(body.toByteArray(), FleetSummary.class)).isEqualTo(summary);
    }

    @Test
    void shouldLeaveStringsAndOtherMediaTypesToTheirOwnWriters() {
        assertThat(bodies.isWriteable(FleetSummary.class, FleetSummary.class, new Annotation[0],
                MediaType.APPLICATION_JSON_TYPE)).isTrue();
        assertThat(bodies.isWriteable(String.class, String.class, new Annotation[0],
                MediaType.APPLICATION_JSON_TYPE)).isFalse();
        assertThat(bodies.isWriteable(FleetSummary.class, FleetSummary.class, new Annotation[0],
                MediaType.TEXT_PLAIN_TYPE)).isFalse();
    }
}
