package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.gpuledger.model.TelemetrySample.Builder;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Reads a {@link TelemetrySample} as {@code Json.read(json, TelemetrySample.class)} does: the same sample, or a
 * refusal naming the same field. The cost engine reads every sample it charges, and this reader takes about half
 * the time of the databind one.
 *
 * <p>It walks the parser's tokens and fills the sample's builder, whose {@code build()} validates. A value in
 * the form the contract writes it (a string, a number, a UTC instant such as {@code 2026-03-01T12:00:00.123Z})
 * is read here; any other form ({@code "0.5"} for a number, {@code 1.5} for an index, an offset time, epoch
 * seconds, an object where a string belongs) goes to databind's deserializer of the field's type, so that what
 * is coerced, accepted and refused stays what {@link Json#read} does.
 */
public final class TelemetryJson {

    private static final JsonFactory FACTORY = Json.MAPPER.getFactory();

    /** The reader of values this class leaves to databind; each is one value inside the sample, not a document. */
    private static final ObjectReader DATABIND = Json.MAPPER.reader()
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private static final String INVALID = "invalid " + TelemetrySample.class.getSimpleName() + ": ";

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
    /** The one identity string no other GPU shares. */
    static final int UUID = POSITIONS.get("gpuUuid");

    private static final SerializableString[] KEYS = FIELDS.stream().map(field -> new SerializedString(field.name()))
            .toArray(SerializableString[]::new);

    /** One bit a field, by position: databind builds the record as soon as it has read every field once. */
    private static final int ALL_FIELDS = (1 << FIELDS.size()) - 1;

    private static final int REQUIRED_FIELDS = requiredFields();

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
        return canonical != null ? canonical : parse(json);
    }

    /** Reads a sample in any form, as databind would. */
    private static TelemetrySample parse(byte[] json) {
        try (JsonParser parser = FACTORY.createParser(json)) {
            JsonToken first = parser.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new InvalidRecordException(Json.ROOT, INVALID + "expected a JSON object, found "
                        + (first == null ? "no content" : first));
            }
            TelemetrySample sample = readFields(parser);
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                throw new InvalidRecordException(Json.ROOT, INVALID + "trailing " + trailing + " after the object");
            }
            return sample;
        } catch (JacksonException e) {
            throw Json.translate(e, TelemetrySample.class);
        } catch (IOException e) {
            throw new InvalidRecordException(Json.ROOT, "unreadable TelemetrySample: " + e.getMessage(), e);
        }
    }

    /** Reads the fields of the object whose start the parser is on, up to and including its end. */
    private static TelemetrySample readFields(JsonParser parser) throws IOException {
        Builder builder = TelemetrySample.builder();
        TelemetrySample sample = null;
        int seen = 0;
        int next = 0;
        while (true) {
            boolean expected = advanceTo(parser, next);
            if (sample == null && seen == ALL_FIELDS) {
                // Where databind builds it, so that a complete but invalid sample fails before what follows.
                sample = builder.build();
            }
            if (parser.currentToken() == JsonToken.END_OBJECT) {
                return sample != null ? sample : build(builder, seen);
            }
            // Inside an object the parser yields a field name or the object's end, nothing else.
            int position = expected ? next : POSITIONS.getOrDefault(parser.currentName(), -1);
            parser.nextToken();
            if (position < 0) {
                parser.skipChildren();
            } else if (sample != null) {
                // Databind has no setter to apply a field to a record it already built.
                String name = FIELDS.get(position).name();
                throw new InvalidRecordException(name,
                        INVALID + "'" + name + "' repeated after all " + FIELDS.size() + " fields were read");
            } else {
                FIELDS.get(position).readInto(parser, builder);
                seen |= 1 << position;
                next = position + 1;
            }
        }
    }

    /**
     * Moves to the next field's name or the object's end; true if that is the field at {@code position}. Writers
     * send the fields in the record's order, and the parser compares the expected name byte by byte, which costs
     * less than reading the name and looking it up.
     */
    private static boolean advanceTo(JsonParser parser, int position) throws IOException {
        if (position < KEYS.length) {
            return parser.nextFieldName(KEYS[position]);
        }
        parser.nextToken();
        return false;
    }

    private static TelemetrySample build(Builder builder, int seen) {
        int missing = REQUIRED_FIELDS & ~seen;
        if (missing != 0) {
            String name = FIELDS.get(Integer.numberOfTrailingZeros(missing)).name();
            throw new InvalidRecordException(name, INVALID + "Missing required property '" + name + "'");
        }
        return builder.build();
    }

    private static String text(JsonParser parser, Field<String> field) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        return token == JsonToken.VALUE_NULL ? null : field.databind(parser);
    }

    private static int index(JsonParser parser, Field<Integer> field) throws IOException {
        if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT
                && parser.getNumberType() == JsonParser.NumberType.INT) {
            return parser.getIntValue();
        }
        return field.databind(parser);
    }

    /** A number for a {@code Double} field, where null is no reading, or for a {@code double}, which refuses null. */
    private static Double number(JsonParser parser, Field<Double> field) throws IOException {
        JsonToken token = parser.currentToken();
        if (token.isNumeric()) {
            return parser.getDoubleValue();
        }
        return token == JsonToken.VALUE_NULL && !field.type().isPrimitive() ? null : field.databind(parser);
    }

    private static Lifecycle lifecycle(JsonParser parser, Field<Lifecycle> field) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_STRING) {
            try {
                return Lifecycle.fromWire(parser.getText());
            } catch (IllegalArgumentException unknown) {
                return field.databind(parser); // refuses it too, in databind's words
            }
        }
        return token == JsonToken.VALUE_NULL ? null : field.databind(parser);
    }

    private static Instant instant(JsonParser parser, Field<Instant> field) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_STRING) {
            Instant utc = UtcInstants.parse(parser.getText());
            return utc != null ? utc : field.databind(parser);
        }
        return token == JsonToken.VALUE_NULL ? null : field.databind(parser);
    }

    private static List<Field<?>> fields() {
        List<Field<?>> fields = new ArrayList<>(List.of(
                new Field<>("gpuUuid", String.class, TelemetryJson::text, Builder::gpuUuid),
                new Field<>("gpuIndex", int.class, TelemetryJson::index, Builder::gpuIndex),
                new Field<>("gpuModel", String.class, TelemetryJson::text, Builder::gpuModel),
                new Field<>("host", String.class, TelemetryJson::text, Builder::host),
                new Field<>("instanceId", String.class, TelemetryJson::text, Builder::instanceId),
                new Field<>("instanceType", String.class, TelemetryJson::text, Builder::instanceType),
                new Field<>("provider", String.class, TelemetryJson::text, Builder::provider),
                new Field<>("region", String.class, TelemetryJson::text, Builder::region),
                new Field<>("lifecycle", Lifecycle.class, TelemetryJson::lifecycle, Builder::lifecycle),
                new Field<>("jobId", String.class, TelemetryJson::text, Builder::jobId),
                new Field<>("team", String.class, TelemetryJson::text, Builder::team),
                new Field<>("time", Instant.class, TelemetryJson::instant, Builder::time),
                new Field<>("intervalSeconds", double.class, TelemetryJson::number, Builder::intervalSeconds)));
        for (Reading reading : Reading.values()) {
            fields.add(new Field<Double>(reading.wireName(), Double.class, TelemetryJson::number,
                    (builder, value) -> builder.reading(reading, value)));
        }
        fields.add(new Field<>("migProfile", String.class, TelemetryJson::text, Builder::migProfile));
        fields.add(new Field<>("gpuFraction", Double.class, TelemetryJson::number, Builder::gpuFraction));
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

    /**
     * The fields databind refuses to miss: those the record marks required, and the primitives, which it would
     * have to fill with null and {@code FAIL_ON_NULL_FOR_PRIMITIVES} forbids that.
     */
    private static int requiredFields() {
        RecordComponent[] components = TelemetrySample.class.getRecordComponents();
        int required = 0;
        for (int i = 0; i < components.length; i++) {
            JsonProperty property = components[i].getAccessor().getAnnotation(JsonProperty.class);
            if (components[i].getType().isPrimitive() || property != null && property.required()) {
                required |= 1 << i;
            }
        }
        return required;
    }

    @FunctionalInterface
    private interface ValueReader<T> {
        T read(JsonParser parser, Field<T> field) throws IOException;
    }

    /** One field of the sample: how its value is read and where it goes in the builder. */
    record Field<T>(String name, Class<T> type, ValueReader<T> reader, BiConsumer<Builder, T> setter) {

        void readInto(JsonParser parser, Builder builder) throws IOException {
            setter.accept(builder, reader.read(parser, this));
        }

        /** The value read as databind reads it inside the record: its coercions, its refusals, its messages. */
        T databind(JsonParser parser) throws IOException {
            try {
                return DATABIND.readValue(parser, type);
            } catch (JacksonException | RuntimeException e) {
                // As databind does for a property of the record (a deserializer's DateTimeException included), so
                // that the failure names this field.
                throw JsonMappingException.wrapWithPath(e, TelemetrySample.class, name);
            }
        }
    }
}
