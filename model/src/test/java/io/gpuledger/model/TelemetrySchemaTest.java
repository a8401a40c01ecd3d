package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Keeps the JSON Schema of {@code gpu.telemetry.v1}, which agent authors in other languages read, true to the
 * code: every field of {@link TelemetrySample} and of its allocations is described, the same ones are required,
 * the samples the project's writers and Python's {@code json.dumps} write pass it, and what the engine refuses
 * for a reason a schema can say fails it too.
 */
class TelemetrySchemaTest {

    private static final Path SCHEMA = Path.of("..", "docs", "schemas", "telemetry.v1.schema.json");

    /** A shared GPU's sample as Python's json.dumps writes it (a space after each colon and comma). */
    private static final String PYTHON_SHARED = "{\"gpuUuid\": \"GPU-5fd4f087-86f3-7a43-b711-4771313afc50\","
            + " \"gpuIndex\": 0, \"host\": \"node-a1\", \"instanceId\": \"i-0abc\", \"instanceType\": \"g5.xlarge\","
            + " \"provider\": \"aws\", \"region\": \"us-east-1\", \"lifecycle\": \"on-demand\", \"jobId\": \"shared\","
            + " \"team\": null, \"time\": \"2026-03-01T12:00:00Z\", \"intervalSeconds\": 10.0, \"smActive\": 0.45,"
            + " \"allocations\": [{\"jobId\": \"nb-alice\", \"team\": \"research\", \"share\": 0.3,"
            + " \"measuredBy\": \"sm\"}, {\"jobId\": \"nb-bob\", \"share\": 0.15, \"measuredBy\": \"memory\"}]}";

    @Test
    void shouldDescribeEveryFieldOfTheSampleAndItsAllocationsAndRequireWhatTheReaderRequires() throws IOException {
        JsonNode schema = Json.MAPPER.readTree(Files.readAllBytes(SCHEMA));
        JsonNode allocation = schema.path("properties").path("allocations").path("items");

        assertThat(names(schema.path("properties"))).isEqualTo(components(TelemetrySample.class, false));
        assertThat(names(schema.path("required"))).isEqualTo(components(TelemetrySample.class, true));
        assertThat(names(allocation.path("properties"))).isEqualTo(components(Allocation.class, false));
        assertThat(names(allocation.path("required"))).isEqualTo(components(Allocation.class, true));
        assertThat(names(schema.path("properties").path("lifecycle").path("enum")))
                .isEqualTo(Arrays.stream(Lifecycle.values()).map(Lifecycle::wire).collect(Collectors.toSet()));
        assertThat(names(allocation.path("properties").path("measuredBy").path("enum")))
                .isEqualTo(Arrays.stream(SharePolicy.values()).map(SharePolicy::wireName).collect(Collectors.toSet()));
        schema.path("properties").fields().forEachRemaining(field ->
                assertThat(field.getValue().path("description").asText()).as(field.getKey()).isNotBlank());
    }

    @Test
    void shouldPassTheSamplesTheWritersWriteAndThoseOfOtherLanguages() throws IOException {
        TelemetrySample shared = ContractFixtures.sample().toBuilder().jobId(TelemetrySample.SHARED_JOB)
                .allocations(List.of(new Allocation("infer-a", "serving", 0.5, SharePolicy.SM),
                        new Allocation("notebook-b", null, 0.25, SharePolicy.EVEN))).build();
        TelemetrySample slice = ContractFixtures.sample().toBuilder().migProfile("3g.40gb").gpuFraction(3.0 / 7)
                .build();
        List<String> samples = new ArrayList<>();
        for (TelemetrySample sample : List.of(ContractFixtures.sample(), shared, slice)) {
            samples.add(new String(Json.write(sample), StandardCharsets.UTF_8));
        }
        samples.add(PYTHON_SHARED);

        for (String sample : samples) {
            assertThat(problems(sample)).as(sample).isEmpty();
            assertThat(TelemetryJson.read(sample.getBytes(StandardCharsets.UTF_8))).isNotNull();
        }
    }

    @Test
    void shouldReadWhatTheSchemaPassesOfIdentitiesAndAGpuIndexLeftOut() throws IOException {
        // Given samples the schema passes: a job named by 200 emoji (200 characters, 400 UTF-16 units), a host of 256
        // accented letters, and one with no gpuIndex
        String emoji = "\uD83E\uDD16".repeat(200);
        String sample = new String(Json.write(ContractFixtures.sample()), StandardCharsets.UTF_8);
        String withEmoji = sample.replaceFirst("\"jobId\":\"[^\"]*\"", "\"jobId\":\"" + emoji + "\"");
        String withLongHost = sample.replaceFirst("\"host\":\"[^\"]*\"", "\"host\":\"" + "é".repeat(256) + "\"");
        String withoutIndex = sample.replaceFirst("\"gpuIndex\":\\d+,", "");
        for (String passed : List.of(withEmoji, withLongHost, withoutIndex)) {
            assertThat(passed).isNotEqualTo(sample);
            assertThat(problems(passed)).as(passed).isEmpty();

            // Then the reader takes them too, as the contract says
            assertThat(TelemetryJson.read(passed.getBytes(StandardCharsets.UTF_8))).isNotNull();
        }
        assertThat(TelemetryJson.read(withEmoji.getBytes(StandardCharsets.UTF_8)).jobId()).isEqualTo(emoji);
        // And one character more is refused by both
        String tooLong = sample.replaceFirst("\"host\":\"[^\"]*\"", "\"host\":\"" + "é".repeat(257) + "\"");
        assertThat(problems(tooLong)).isNotEmpty();
        assertThatThrownBy(() -> TelemetryJson.read(tooLong.getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("longer than 256 characters");
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "\"share\": 0.3,; \"share\": 1.5,",
            "\"measuredBy\": \"sm\"}, {; \"measuredBy\": \"requests\"}, {",
            "{\"jobId\": \"nb-alice\", ; {",
            "\"jobId\": \"nb-bob\"; \"jobId\": \"nb|bob\"",
            "\"jobId\": \"nb-bob\"; \"jobId\": \"shared\"",
            "\"jobId\": \"nb-bob\"; \"jobId\": \"unknown\"",
            "\"jobId\": \"nb-bob\"; \"jobId\": \"unlisted\"",
            "\"on-demand\"; \"preemptible\"",
            "\"2026-03-01T12:00:00Z\"; \"2026-03-01 12:00:00\"",
            "\"intervalSeconds\": 10.0; \"intervalSeconds\": 0",
            "\"smActive\": 0.45; \"smActive\": 1.45"})
    void shouldFailWhatTheEngineRefusesWhereASchemaCanSayIt(String from, String to) throws IOException {
        String broken = PYTHON_SHARED.replace(from, to);
        assertThat(broken).isNotEqualTo(PYTHON_SHARED);

        assertThat(problems(broken)).as(broken).isNotEmpty();
        assertThatThrownBy(() -> TelemetryJson.read(broken.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRecordException.class);
    }

    private static Set<ValidationMessage> problems(String sample) throws IOException {
        JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                .getSchema(Json.MAPPER.readTree(Files.readAllBytes(SCHEMA)));
        return schema.validate(Json.MAPPER.readTree(sample));
    }

    private static Set<String> names(JsonNode node) {
        Set<String> names = new TreeSet<>();
        if (node.isArray()) {
            node.forEach(element -> names.add(element.asText()));
        } else {
            node.fieldNames().forEachRemaining(names::add);
        }
        return names;
    }

    /** The record's fields as JSON names them; only the required ones if {@code required}. */
    private static Set<String> components(Class<? extends Record> type, boolean required) {
        Set<String> names = new TreeSet<>();
        for (RecordComponent component : type.getRecordComponents()) {
            // JsonProperty is not a record-component annotation: Java puts it on the record's field.
            JsonProperty property;
            try {
                property = type.getDeclaredField(component.getName()).getAnnotation(JsonProperty.class);
            } catch (NoSuchFieldException e) {
                throw new AssertionError(e);
            }
            if (!required || property != null && property.required()) {
                names.add(component.getName());
            }
        }
        return names;
    }
}
