package io.gpuledger.alerts.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.alerts.ApiClients;
import io.gpuledger.model.GpuHour;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Json;
import io.gpuledger.model.KafkaClientSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.model.UsageTotals;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/** {@code GET /api/focus}: the FOCUS rows of a range's GPU hours, as CSV, to the read credential only. */
@QuarkusTest
@WithTestResource(BareBroker.class)
class FocusResourceTest {

    private static final Instant HOUR = Instant.parse("2026-10-05T14:00:00Z");

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void shouldAnswerTheRangesHoursAsFocusCsv() throws Exception {
        // Given two GPU hours on the topic, one in the range and one the hour after it
        TopicAdmin.ensureTopics(bootstrap, 1);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                KafkaClientSettings.producer(bootstrap, "focus-api-test", 0), new StringSerializer(),
                new ByteArraySerializer())) {
            for (Instant start : List.of(HOUR, HOUR.plusSeconds(3600))) {
                GpuHour hour = new GpuHour("GPU-api-focus", 0, "L4", new Placement("node-f", "i-api-focus",
                        "g6.xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND), start, start.plusSeconds(3600), "USD",
                        1.0, UsageTotals.builder().samples(360).sum(UsageTotals.Sum.GPU_SECONDS, 3600)
                                .sum(UsageTotals.Sum.COST, 0.8).build(),
                        List.of(new JobPart("api-focus-job", "api-focus-team", 3600, 0.8, 0.07, 0)));
                producer.send(new ProducerRecord<>(Topics.HOURS.name(), null, start.toEpochMilli(),
                        hour.gpuUuid(), Json.write(hour))).get();
            }
        }

        // When the range of the first is asked for
        String csv = ApiClients.reader().queryParam("from", HOUR.toString())
                .queryParam("to", HOUR.plusSeconds(3600).toString()).get("/api/focus").then().statusCode(200)
                .contentType(FocusResource.CSV).extract().asString();

        // Then a header and its one row
        List<String> lines = csv.lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("BilledCost,BillingAccountId,").contains("x_JobId");
        assertThat(lines.get(1)).startsWith("0.8,").contains("i-api-focus", "api-focus-job", "2026-10-05T14:00:00Z");
    }

    @Test
    void shouldRefuseARangeItCannotReadAndAnyoneWithoutTheReadCredential() {
        ApiClients.reader().queryParam("from", "yesterday").queryParam("to", HOUR.toString()).get("/api/focus")
                .then().statusCode(400);
        ApiClients.reader().queryParam("from", HOUR.toString()).queryParam("to", HOUR.plusSeconds(86400 * 40)
                .toString()).get("/api/focus").then().statusCode(400);
        io.restassured.RestAssured.given().queryParam("from", HOUR.toString())
                .queryParam("to", HOUR.plusSeconds(3600).toString()).get("/api/focus").then().statusCode(401);
    }
}
