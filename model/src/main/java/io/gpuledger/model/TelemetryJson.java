package io.gpuledger.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuledger.model.TelemetrySample.Builder;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Reads a {@link TelemetrySample} as {@code Json.read(json, TelemetrySample.class)} does: the same sample, or a
 * refusal naming the same field. A sample in the writers' own form is read from its bytes
 * ({@link CanonicalTelemetry}, through its GPU's {@link GpuSampleReader}); any other goes to databind.
 *
 * <p>Measured: a token walk of our own for the other forms made {@code bench engine} on spaced samples 3% faster
 * than databind, under the 5% a piece of our own must show, and was removed (docs/benchmarks.md).
 */
public final class TelemetryJson {

    /** Null: samples are read here; else, in the benchmark that weighs this class, by databind alone. */
    private static final ObjectMapper INSTEAD = Json.instead("gpuledger.compare.telemetry");

    /**
     * In the record's component order, the order in which databind reports the first missing field: the readings
     * as {@link Reading} lists them, between the interval and the MIG profile.
     */
    static final List<Field<?>> FIELDS = fields();

    private static final Map<String, Integer> POSITIONS = positions();

    /** The position of the sample's time: the fields before it say which GPU, where and for whom. */
    static final int TIME = POSITIONS.get("time");
    /** The last field, which the writers leave out when it is empty: the jobs sharing a GPU. */
    static final int ALLOCATIONS = POSITIONS.get("allocations");
    /** The one identity string no other GPU shares. */
    static final int UUID = POSITIONS.get("gpuUuid");

    private TelemetryJson() {
    }

    /**
     * Parses and validates one sample.
     *
     * @throws InvalidRecordException naming the field that is malformed, missing or out of range
     */
    public static TelemetrySample read(byte[] json) {
        return read(json, null);
    }

    /** Reads a sample, through its GPU's reader {@code gpu} when there is one. */
    static TelemetrySample read(byte[] json, GpuSampleReader gpu) {
        if (json == null || json.length == 0) {
            throw new InvalidRecordException(Json.ROOT, "empty record, expected a JSON TelemetrySample");
        }
        if (INSTEAD != null) {
            return Json.read(json, INSTEAD.constructType(TelemetrySample.class), INSTEAD);
        }
        TelemetrySample canonical = CanonicalTelemetry.read(json, gpu);
        return canonical != null ? canonical : Json.read(json, TelemetrySample.class);
    }

    private static List<Field<?>> fields() {
        List<Field<?>> fields = new ArrayList<>(List.of(
                new Field<>("gpuUuid", String.class, Builder::gpuUuid),
                new Field<>("gpuIndex", int.class, Builder::gpuIndex),
                new Field<>("gpuModel", String.class, Builder::gpuModel),
                new Field<>("host", String.class, Builder::host),
                new Field<>("instanceId", String.class, Builder::instanceId),
                new Field<>("instanceType", String.class, Builder::instanceType),
                new Field<>("provider", String.class, Builder::provider),
                new Field<>("region", String.class, Builder::region),
                new Field<>("lifecycle", Lifecycle.class, Builder::lifecycle),
                new Field<>("jobId", String.class, Builder::jobId),
                new Field<>("team", String.class, Builder::team),
                new Field<>("time", Instant.class, Builder::time),
                new Field<>("intervalSeconds", double.class, Builder::intervalSeconds)));
        for (Reading reading : Reading.values()) {
            BiConsumer<Builder, Double> setter = (builder, value) -> builder.reading(reading, value);
            fields.add(new Field<>(reading.wireName(), Double.class, setter));
        }
        fields.add(new Field<>("migProfile", String.class, Builder::migProfile));
        fields.add(new Field<>("gpuFraction", Double.class, Builder::gpuFraction));
        fields.add(new Field<>("allocations", List.class, Builder::allocations));
        return List.copyOf(fields);
    }

    private static Map<String, Integer> positions() {
        RecordComponent[] components = TelemetrySample.class.getRecordComponents();
        Map<String, Integer> positions = new HashMap<>();
        for (int i = 0; i < FIELDS.size(); i++) {
            Field<?> field = FIELDS.get(i);
            if (i >= components.length || !components[i].getName().equals(field.name())
                    || components[i].getType() != field.type()) {
                throw new IllegalStateException("field " + i + " of " + TelemetrySample.class.getSimpleName()
                        + " is not " + field.type().getSimpleName() + " " + field.name() + ": update the reader");
            }
            positions.put(field.name(), i);
        }
        if (components.length != FIELDS.size()) {
            throw new IllegalStateException(TelemetrySample.class.getSimpleName() + " has " + components.length
                    + " fields, the reader knows " + FIELDS.size() + ": update the reader");
        }
        return Map.copyOf(positions);
    }

    /** One field of the sample: its name and type in the record, and where it goes in the builder. */
    record Field<T>(String name, Class<T> type, BiConsumer<Builder, T> setter) {
    }
}
