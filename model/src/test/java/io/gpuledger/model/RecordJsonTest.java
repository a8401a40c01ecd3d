package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The record reader gives databind's verdict on every input, and reads what the writers write by its short path. */
class RecordJsonTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** What a damaged byte becomes: JSON's punctuation, digits, letters of its literals, a space. */
    private static final String DAMAGE = "{}[],:\"0123456789.eE-+ntfalsu xZ";

    @Test
    void shouldReadWrittenRecordsOfEveryKindByTheShortPathAsDatabindDoes() {
        Random random = new Random(20261201);
        for (int i = 0; i < 400; i++) {
            for (Record record : records(random, i)) {
                byte[] written = Json.write(record);
                assertThat(reader(record).readWritersForm(written)).as(new String(written, StandardCharsets.UTF_8))
                        .isEqualTo(record)
                        .isEqualTo(Json.read(written, record.getClass()));
                assertThat(reader(record).read(written)).isEqualTo(record);
            }
        }
    }

    @Test
    void shouldTakeTheShortPathForUsageWindowsAsTheEngineWritesThem() {
        Random random = new Random(3);
        for (int i = 0; i < 200; i++) {
            GpuUsage usage = UsageJsonTest.usage(random, i);
            assertThat(RecordJson.of(GpuUsage.class).readWritersForm(UsageJson.write(usage))).isEqualTo(usage);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "\"gpus\":\"3\"", // a number as a string
        "\"gpus\":3.0", // a whole number written as a decimal
        "\"windowEnd\":\"2026-03-01T13:01:00+01:00\"", // an offset time
        "\"windowStart\":1772366400", // epoch seconds
        "\"jobId\":7", // a number for a string
        "\"throughputReported\":\"true\"", // a boolean as a string
        "\"workUnits\":{\"tokens\":\"5\"}", // a number in a map as a string
        "\"workUnits\":{\"tokens\":1,\"tokens\":2}", // a repeated key in a map
        "\"cost\":1e400", // out of a double's range
    })
    void shouldLeaveAnyOtherFormToDatabindAndGiveItsVerdict(String edit) {
        JobEconomics economics = economics(new Random(5), 1);
        String written = new String(Json.write(economics), StandardCharsets.UTF_8);
        String edited = replaceField(written, edit);
        assertThat(edited).isNotEqualTo(written);
        byte[] json = edited.getBytes(StandardCharsets.UTF_8);

        assertThat(RecordJson.of(JobEconomics.class).readWritersForm(json)).isNull();
        assertSameVerdict(RecordJson.of(JobEconomics.class), json, JobEconomics.class);
    }

    @Test
    void shouldReadWhiteSpaceBetweenTokensByTheShortPath() {
        JobProgress progress = progress(new Random(2), 5);
        String spaced = new String(Json.write(progress), StandardCharsets.UTF_8)
                .replace(",\"", ",\n  \"").replace("\":", "\" : ");
        byte[] json = (" " + spaced + "\n").getBytes(StandardCharsets.UTF_8);

        assertThat(RecordJson.of(JobProgress.class).readWritersForm(json)).isEqualTo(progress);
        assertThat(Json.read(json, JobProgress.class)).isEqualTo(progress);
    }

    @Test
    void shouldRefuseAValueTheConstructorRefusesNamingTheFieldAsDatabindDoes() {
        String written = new String(Json.write(UsageJsonTest.usage(new Random(1), 2)), StandardCharsets.UTF_8);
        byte[] negative = written.replaceFirst("\"gpuSeconds\":[^,]+", "\"gpuSeconds\":-1")
                .getBytes(StandardCharsets.UTF_8);
        byte[] blankHost = written.replaceFirst("\"host\":\"[^\"]+\"", "\"host\":\" \"")
                .getBytes(StandardCharsets.UTF_8);

        for (byte[] json : List.of(negative, blankHost)) {
            assertThat(RecordJson.of(GpuUsage.class).readWritersForm(json)).isNull();
            assertSameVerdict(RecordJson.of(GpuUsage.class), json, GpuUsage.class);
        }
        assertThatThrownBy(() -> RecordJson.of(GpuUsage.class).read(negative))
                .isInstanceOfSatisfying(InvalidRecordException.class,
                        refused -> assertThat(refused.field()).isEqualTo("totals.gpuSeconds"));
    }

    @Test
    void shouldGiveDatabindsVerdictOnRecordsWithFieldsChangedMissingRepeatedOrAdded() {
        Random random = new Random(42);
        int shortPath = 0;
        int refused = 0;
        int total = 0;
        for (int i = 0; i < 300; i++) {
            for (Record record : records(random, i)) {
                ObjectNode tree = Json.MAPPER.valueToTree(record);
                byte[] json = edited(tree, random).toString().getBytes(StandardCharsets.UTF_8);
                total++;
                shortPath += reader(record).readWritersForm(json) != null ? 1 : 0;
                refused += assertSameVerdict(reader(record), json, record.getClass()) ? 0 : 1;
            }
        }
        // Both outcomes and both paths are exercised, or the comparison proves little.
        assertThat(shortPath).isBetween(total / 10, total - total / 10);
        assertThat(refused).isBetween(total / 10, total - total / 10);
    }

    @Test
    void shouldGiveDatabindsVerdictOnEveryTruncationAndOnRandomlyDamagedBytes() {
        Random random = new Random(9);
        byte[] written = Json.write(progress(random, 3));
        for (int length = 0; length < written.length; length++) {
            assertSameVerdict(RecordJson.of(JobProgress.class), java.util.Arrays.copyOf(written, length),
                    JobProgress.class);
        }
        for (int i = 0; i < 2_000; i++) {
            byte[] damaged = written.clone();
            for (int hits = 1 + random.nextInt(3); hits > 0; hits--) {
                damaged[random.nextInt(damaged.length)] = (byte) DAMAGE.charAt(random.nextInt(DAMAGE.length()));
            }
            assertSameVerdict(RecordJson.of(JobProgress.class), damaged, JobProgress.class);
        }
    }

    /**
     * Databind reads the JSON literal null as no record at all, which a caller would fail on instead of refusing it.
     */
    @Test
    void shouldRefuseJsonNullAsDatabindDoes() {
        byte[] json = "null".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> Json.read(json, UsageRollup.class))
                .isInstanceOfSatisfying(InvalidRecordException.class,
                        refused -> assertThat(refused.field()).isEqualTo(Json.ROOT))
                .hasMessage("$: expected a JSON UsageRollup, found null");
        assertThatThrownBy(() -> RecordJson.of(UsageRollup.class).read(json))
                .isInstanceOfSatisfying(InvalidRecordException.class,
                        refused -> assertThat(refused.field()).isEqualTo(Json.ROOT))
                .hasMessage("$: expected a JSON UsageRollup, found null");
    }

    @Test
    void shouldRefuseARecordWithAComponentItHasNoShortPathFor() {
        record Labels(String name, Map<String, String> labels) {
        }

        assertThatThrownBy(() -> RecordJson.of(Labels.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Labels");
    }

    @Test
    void shouldRefuseARecordThatDatabindMapsByOtherNames() {
        for (Class<? extends Record> type : List.of(Renamed.class, Aliased.class, SnakeCase.class)) {
            assertThatThrownBy(() -> RecordJson.of(type)).as(type.getSimpleName())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(type.getSimpleName());
        }
        byte[] json = "{\"smActive\":0.5}".getBytes(StandardCharsets.UTF_8);
        assertThat(RecordJson.of(Required.class).readWritersForm(json)).isNull();
        assertThat(assertSameVerdict(RecordJson.of(Required.class), json, Required.class)).isFalse();
        assertThat(RecordJson.of(Required.class).read("{\"gpuUuid\":\"GPU-1\",\"smActive\":0.5}"
                .getBytes(StandardCharsets.UTF_8))).isEqualTo(new Required("GPU-1", 0.5));
    }

    record Renamed(@JsonProperty("gpu_uuid") String gpuUuid, double smActive) {
    }

    record Aliased(@JsonAlias("uuid") String gpuUuid, double smActive) {
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record SnakeCase(String gpuUuid, double smActive) {
    }

    record Required(@JsonProperty(required = true) String gpuUuid, double smActive) {
    }

    /**
     * Reads {@code json} with both readers and asserts the same record or the same refusal (field and message).
     * Returns whether it was read.
     */
    private static boolean assertSameVerdict(RecordJson<?> reader, byte[] json, Class<?> type) {
        Object expected;
        try {
            expected = Json.read(json, type);
        } catch (InvalidRecordException databind) {
            assertThatThrownBy(() -> reader.read(json)).as(new String(json, StandardCharsets.UTF_8))
                    .isInstanceOfSatisfying(InvalidRecordException.class, refused -> {
                        assertThat(refused.field()).isEqualTo(databind.field());
                        assertThat(refused.getMessage()).isEqualTo(databind.getMessage());
                    });
            return false;
        }
        if (expected == null) {
            assertThatThrownBy(() -> reader.read(json)).isInstanceOf(InvalidRecordException.class);
            return false;
        }
        assertThat(reader.read(json)).as(new String(json, StandardCharsets.UTF_8)).isEqualTo(expected);
        return true;
    }

    @SuppressWarnings("unchecked")
    private static RecordJson<Record> reader(Record record) {
        return RecordJson.of((Class<Record>) record.getClass());
    }

    private static List<Record> records(Random random, int i) {
        GpuUsage usage = UsageJsonTest.usage(random, i);
        UsageRollup rollup = new UsageRollup(UsageRollup.Dimension.values()[i % UsageRollup.Dimension.values().length],
                "id-" + i, usage.windowStart(), usage.windowEnd(), "EUR", i, i % 9 == 0 ? i * 3.0 / 7 : null,
                usage.totals());
        return List.of(usage, rollup, economics(random, i), progress(random, i));
    }

    private static JobEconomics economics(Random random, int i) {
        Map<String, Double> work = new LinkedHashMap<>();
        Map<String, Double> perMillion = new LinkedHashMap<>();
        Map<String, Double> perGpuSecond = new LinkedHashMap<>();
        if (i % 3 != 0) {
            work.put("tokens", random.nextDouble() * 1e9);
            perMillion.put("tokens", random.nextDouble() * 10);
            perGpuSecond.put("tokens", (double) random.nextInt(5_000));
        }
        if (i % 5 == 0) {
            work.put("images", (double) random.nextInt(100_000));
        }
        double cost = random.nextDouble() * 50;
        return new JobEconomics("job-" + i, T0.plusSeconds(60L * i), T0.plusSeconds(60L * i + 60), "USD",
                1 + random.nextInt(64), random.nextDouble() * 3840, i % 7 == 0 ? 12.5 : 0, cost, cost * 60, i % 3 != 0,
                work, perMillion, perGpuSecond, i % 2 == 0 ? null : random.nextDouble(), random.nextDouble() * 1e12);
    }

    private static JobProgress progress(Random random, int i) {
        List<String> gpus = new ArrayList<>();
        for (int g = 0; g < i % 9; g++) {
            gpus.add("GPU-" + i + "-" + g);
        }
        double step = 0.5 + random.nextDouble() * 10;
        return new JobProgress("job-" + i, i % 4 == 0 ? null : "team-" + i, "node-" + i, "i-" + i,
                i % 3 == 1 ? null : i % 8, i % 11 == 0 ? null : gpus,
                        T0.plusMillis(1_000L * i + (i % 3 == 0 ? 250 : 0)), 10,
                random.nextDouble() * 1e6, i % 2 == 0 ? "tokens" : "samples", random.nextInt(1_000),
                i % 5 == 0 ? null : step, i % 5 == 0 ? null : step * random.nextDouble(), i % 3 == 0 ? null : 4.2e9,
                i % 6 == 0 ? null : new JobTraits(i % 4 == 0 ? null : "llama-7b", i % 2 == 0, 1800.0, null));
    }

    /** The record's fields with one to three edits: a value changed, removed, repeated, or a field added. */
    private static JsonNode edited(ObjectNode tree, Random random) {
        for (int edits = 1 + random.nextInt(3); edits > 0; edits--) {
            ObjectNode target = random.nextInt(4) == 0 && tree.get("totals") instanceof ObjectNode totals
                    ? totals : tree;
            List<String> names = new ArrayList<>();
            target.fieldNames().forEachRemaining(names::add);
            String name = names.get(random.nextInt(names.size()));
            switch (random.nextInt(6)) {
                case 0 -> target.set(name, oddValue(random));
                case 1 -> target.remove(name);
                case 2 -> {
                    JsonNode value = target.remove(name);
                    target.set(name, value); // moved to the end: out of the record's order
                }
                case 3 -> target.set("extra" + random.nextInt(3), oddValue(random));
                case 4 -> target.put(name, target.get(name).isNumber() ? -target.get(name).asDouble() : 0);
                default -> target.set(name, target.get(name).isTextual()
                        ? NODES.textNode(target.get(name).asText().toUpperCase()) : NODES.nullNode());
            }
        }
        return tree;
    }

    private static JsonNode oddValue(Random random) {
        return switch (random.nextInt(12)) {
            case 0 -> NODES.nullNode();
            case 1 -> NODES.textNode("");
            case 2 -> NODES.textNode("2026-03-01T12:00:00Z");
            case 3 -> NODES.numberNode(random.nextInt(100) - 50);
            case 4 -> NODES.numberNode(random.nextDouble() * 1e6);
            case 5 -> NODES.numberNode(new java.math.BigInteger("123456789012345678901234567890"));
            case 6 -> NODES.numberNode(Long.MAX_VALUE);
            case 7 -> NODES.booleanNode(random.nextBoolean());
            case 8 -> NODES.arrayNode().add("GPU-1").add(2);
            case 9 -> NODES.objectNode().put("tokens", 1.5);
            case 10 -> NODES.textNode("spot");
            default -> NODES.textNode("12.5");
        };
    }

    /** {@code written} with the field that {@code edit} names given {@code edit}'s value. */
    private static String replaceField(String written, String edit) {
        String name = edit.substring(0, edit.indexOf(':') + 1);
        int start = written.indexOf(name);
        int end = start + name.length();
        int depth = 0;
        for (; end < written.length(); end++) {
            char c = written.charAt(end);
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (depth-- == 0) {
                    break;
                }
            } else if (c == ',' && depth == 0) {
                break;
            }
        }
        return written.substring(0, start) + edit + written.substring(end);
    }

}
