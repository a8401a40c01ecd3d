package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.model.CloudEvent;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.Topics;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * Keeps what hook authors read true to the code: the JSON Schema of {@code gpu.recommendations.v1}
 * and docs/recommendations.md fail this test when a field, a kind or a status changes without them.
 */
class RecommendationSchemaTest {

    private static final Path DOCS = Path.of("..", "docs");
    private static final Path SCHEMA = DOCS.resolve("schemas").resolve("recommendation.v1.schema.json");
    private static final Path PAGE = DOCS.resolve("recommendations.md");

    /** An example record on the page: its key, its header and its value, each in its own block. */
    private static final Pattern EXAMPLE = Pattern.compile(
            "```\\nkey: +(\\S+)\\nheader: +([^\\n]+)\\n```\\n\\n```json\\n(.*?)\\n```", Pattern.DOTALL);

    private static final Instant NOW = Instant.parse("2026-03-02T14:07:31.412Z");

    @Test
    void shouldDescribeEveryFieldOfTheRecommendationAndRequireWhatTheRecordRequires() throws IOException {
        JsonNode data = schema().path("properties").path("data");
        JsonNode target = schema().path("$defs").path("target");

        assertThat(names(data.path("properties")))
                .containsExactlyInAnyOrderElementsOf(components(Recommendation.class));
        assertThat(texts(data.path("required")))
                .containsExactlyInAnyOrderElementsOf(requiredComponents(Recommendation.class));
        assertThat(names(target.path("properties")))
                .containsExactlyInAnyOrderElementsOf(components(Recommendation.Target.class));
        assertThat(texts(target.path("required")))
                .containsExactlyInAnyOrderElementsOf(requiredComponents(Recommendation.Target.class));
    }

    @Test
    void shouldEnumerateTheKindsStatusesAndLifecyclesOfTheCode() throws IOException {
        JsonNode data = schema().path("properties").path("data").path("properties");

        assertThat(texts(data.path("kind").path("enum"))).containsExactlyInAnyOrderElementsOf(
                Arrays.stream(RecommendationKind.values()).map(Enum::name).toList());
        assertThat(texts(data.path("status").path("enum"))).containsExactlyInAnyOrderElementsOf(
                Arrays.stream(RecommendationStatus.values()).map(RecommendationStatus::wire).toList());
        JsonNode lifecycles = schema().path("$defs").path("target").path("properties").path("lifecycle").path("enum");
        assertThat(texts(lifecycles)).containsExactlyInAnyOrderElementsOf(
                Arrays.stream(Lifecycle.values()).map(Lifecycle::wire).toList());
    }

    @Test
    void shouldGiveEveryKindASectionOnThePage() throws IOException {
        List<String> headings = page().lines().filter(line -> line.startsWith("#")).toList();

        for (RecommendationKind kind : RecommendationKind.values()) {
            assertThat(headings).as("a heading naming `%s` in %s", kind, PAGE)
                    .anyMatch(heading -> heading.matches("#{2,4} `" + kind.name() + "`"));
        }
    }

    @Test
    void shouldListExactlyTheAttributesAndFieldsARealRecordCarries() throws IOException {
        // Given a recommendation as a rule makes it, in the envelope the desk publishes
        Recommendation.Target target = Recommendation.Target.instance(new Placement("ip-10-0-12-34",
                "i-0a1b2c3d4e5f60718", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.SPOT));
        Recommendation recommendation = Recommendation.open(RecommendationKind.EVACUATE, target, "move its jobs",
                new RecommendationAction.Evacuate("i-0a1b2c3d4e5f60718", NOW.plusSeconds(120), true, List.of(), null),
                NOW.plusSeconds(120), 0, "USD", 0.95, NOW,
                NOW.plusSeconds(120), new RecommendationEvidence.Evacuate("aws:i-0a1b2c3d4e5f60718",
                        "SPOT_INTERRUPTION", "terminate", NOW, NOW.plusSeconds(120), 120.0, "CURRENT", List.of(), null,
                        null, 0, "USD", 0, 0, "A100-40GB", 8, 0));

        // When it is written as it goes on the topic
        JsonNode written = Json.MAPPER.readTree(Json.write(RecommendationEvents.envelope(recommendation)));

        // Then the schema names exactly what is there, at each level, and the fixed attributes agree
        JsonNode properties = schema().path("properties");
        assertThat(names(written)).containsExactlyInAnyOrderElementsOf(names(properties));
        assertThat(names(written.path("data")))
                .containsExactlyInAnyOrderElementsOf(names(properties.path("data").path("properties")));
        assertThat(names(written.path("data").path("target")))
                .containsExactlyInAnyOrderElementsOf(names(schema().path("$defs").path("target").path("properties")));
        for (String attribute : List.of("specversion", "source", "type", "datacontenttype", "dataschema")) {
            assertThat(written.path(attribute).asText()).as(attribute)
                    .isEqualTo(properties.path(attribute).path("const").asText());
        }
        assertThat(texts(schema().path("required")))
                .containsExactlyInAnyOrderElementsOf(requiredComponents(CloudEvent.class));
    }

    @Test
    void shouldShowOneExampleRecordPerKindThatTheTopicReadsBack() throws IOException {
        List<RecommendationKind> shown = new ArrayList<>();
        Matcher example = EXAMPLE.matcher(page());
        while (example.find()) {
            CloudEvent<Recommendation> event = Topics.RECOMMENDATIONS.valueSerde().deserializer()
                    .deserialize(Topics.RECOMMENDATIONS.name(), example.group(3).getBytes(StandardCharsets.UTF_8));
            Recommendation recommendation = event.data();
            shown.add(recommendation.kind());

            assertThat(example.group(1)).as("key").isEqualTo(recommendation.target().id());
            assertThat(example.group(2)).as("header")
                    .isEqualTo(CloudEvent.CONTENT_TYPE_HEADER + ": " + CloudEvent.STRUCTURED_CONTENT_TYPE);
            assertThat(recommendation.id()).isEqualTo(Recommendation.idFor(recommendation.kind(),
                    recommendation.target()));
            // The example's envelope is the one the desk would write for its data
            assertThat(Json.MAPPER.readTree(example.group(3)))
                    .isEqualTo(Json.MAPPER.readTree(Json.write(RecommendationEvents.envelope(recommendation))));
        }

        assertThat(shown).containsExactlyInAnyOrder(RecommendationKind.values());
    }

    private static JsonNode schema() throws IOException {
        return Json.MAPPER.readTree(SCHEMA.toFile());
    }

    private static String page() throws IOException {
        return Files.readString(PAGE);
    }

    private static List<String> names(JsonNode object) {
        assertThat(object.isObject()).as("a JSON object: %s", object).isTrue();
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** The strings of a JSON array; a null member (an optional enum value) is left out. */
    private static List<String> texts(JsonNode array) {
        assertThat(array.isArray()).as("a JSON array: %s", array).isTrue();
        return StreamSupport.stream(array.spliterator(), false).filter(node -> !node.isNull())
                .map(JsonNode::asText).toList();
    }

    private static List<String> components(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
    }

    /** Components marked {@code @JsonProperty(required = true)}; the annotation lands on the accessor. */
    private static List<String> requiredComponents(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents())
                .filter(component -> {
                    JsonProperty property = component.getAccessor().getAnnotation(JsonProperty.class);
                    return property != null && property.required();
                })
                .map(RecordComponent::getName)
                .collect(Collectors.toList());
    }
}
