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
import com.fasterxml.jackson.databind.ObjectReader;
import io.gpuledger.model.TelemetrySample.Builder;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
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

    /** In the record's component order, the order in which databind reports the first missing field. */
    private static final List<Field<?>> FIELDS = List.of(
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
            new Field<>("intervalSeconds", double.class, TelemetryJson::number, Builder::intervalSeconds),
            new Field<>("smActive", Double.class, TelemetryJson::number, Builder::smActive),
            new Field<>("smOccupancy", Double.class, TelemetryJson::number, Builder::smOccupancy),
            new Field<>("dramActive", Double.class, TelemetryJson::number, Builder::dramActive),
            new Field<>("tensorActive", Double.class, TelemetryJson::number, Builder::tensorActive),
            new Field<>("gpuUtilization", Double.class, TelemetryJson::number, Builder::gpuUtilization),
            new Field<>("powerWatts", Double.class, TelemetryJson::number, Builder::powerWatts),
            new Field<>("memoryUsedBytes", Double.class, TelemetryJson::number, Builder::memoryUsedBytes),
            new Field<>("nvlinkTxBytesPerSecond", Double.class, TelemetryJson::number,
                    Builder::nvlinkTxBytesPerSecond),
            new Field<>("pcieTxBytesPerSecond", Double.class, TelemetryJson::number, Builder::pcieTxBytesPerSecond),
            new Field<>("migProfile", String.class, TelemetryJson::text, Builder::migProfile),
            new Field<>("gpuFraction", Double.class, TelemetryJson::number, Builder::gpuFraction));

    private static final Map<String, Integer> POSITIONS = positions();

    /** The position of the sample's time: the fields before it say which GPU, where and for whom. */
    private static final int TIME = POSITIONS.get("time");
    /** The one identity string no other GPU shares. */
    private static final int UUID = POSITIONS.get("gpuUuid");

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

    /** Reads a sample, through {@code follower} when there is one. */
    private static TelemetrySample read(byte[] json, Follower follower) {
        if (json == null || json.length == 0) {
            throw new InvalidRecordException(Json.ROOT, "empty record, expected a JSON TelemetrySample");
        }
        TelemetrySample canonical = Canonical.read(json, follower);
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

    /**
     * Reads the samples of one GPU, one after the other. Agents write a GPU's identity (its UUID,
     * where it runs, for whom) the same way in every sample, before its time: while the bytes up
     * to the time are those of the last sample read in the writers' own form, the values they hold
     * are taken from that sample instead of being read again, strings included. What it reads, or
     * refuses, is what {@link TelemetryJson#read} makes of the same bytes.
     *
     * <p>Holds the bytes before the time of one sample (about 250) and that sample's values. Not
     * for use by two threads at once.
     */
    public static final class Follower {
        /** The bytes before the time field of {@link #headed}, in the writers' form; null: none yet. */
        private byte[] heading;
        private TelemetrySample headed;

        /**
         * Parses and validates one sample, as {@link TelemetryJson#read} does.
         *
         * @throws InvalidRecordException naming the field that is malformed, missing or out of range
         */
        public TelemetrySample read(byte[] json) {
            return TelemetryJson.read(json, this);
        }

        /** Whether {@code json} starts with the bytes the last sample had before its time. */
        private boolean repeats(byte[] json) {
            int length = heading == null ? 0 : heading.length;
            return length > 0 && json.length > length && Arrays.equals(json, 0, length, heading, 0, length);
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

    /**
     * Samples exactly as the contract's writers write them: every field once, in the record's order,
     * no white space, strings of printable ASCII without escapes, numbers in JSON's own grammar,
     * instants in the contract's UTC form, known lifecycles. Read straight from the bytes, without
     * a parser: most samples look like that. Anything else, even a space, is left to the parser
     * ({@link #read} then goes on as if this did not exist), so the result, sample or refusal, is
     * always the parser's. The values are set through the same builder, whose {@code build()}
     * validates.
     */
    static final class Canonical {

        /** Each field's name, quoted, with the colon after it and, from the second on, the comma before it. */
        private static final byte[][] NAMES = new byte[FIELDS.size()][];
        private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
        private static final int SHARED_SLOTS = 1 << 14;
        private static final String[] SHARED = new String[SHARED_SLOTS];
        /** 1e0 to 1e22: the powers of ten that doubles hold exactly. */
        private static final double[] POWERS_OF_TEN = new double[23];

        static {
            double power = 1;
            for (int i = 0; i < POWERS_OF_TEN.length; i++) {
                POWERS_OF_TEN[i] = power;
                power *= 10;
            }
            for (int i = 0; i < FIELDS.size(); i++) {
                NAMES[i] = ((i == 0 ? "{" : ",") + "\"" + FIELDS.get(i).name() + "\":")
                        .getBytes(StandardCharsets.US_ASCII);
            }
        }

        private Canonical() {
        }

        /**
         * The sample, or null when {@code json} is not in the canonical form. With a follower (or
         * null), the fields before the time come from its last sample when {@code json} repeats
         * their bytes, and a sample that does not becomes its last.
         */
        @SuppressWarnings("unchecked")
        static TelemetrySample read(byte[] json, Follower follower) {
            Builder builder = TelemetrySample.builder();
            int at = 0;
            int first = 0;
            boolean repeated = follower != null && follower.repeats(json);
            if (repeated) {
                builder.identityOf(follower.headed);
                at = follower.heading.length;
                first = TIME;
            }
            int headingEnd = -1;
            for (int i = first; i < FIELDS.size(); i++) {
                if (i == TIME) {
                    headingEnd = at;
                }
                byte[] name = NAMES[i];
                if (!matches(json, at, name)) {
                    return null;
                }
                at += name.length;
                Field<Object> field = (Field<Object>) FIELDS.get(i);
                Class<?> type = field.type();
                int end;
                Object value;
                if (matches(json, at, NULL)) {
                    if (type.isPrimitive()) {
                        return null;
                    }
                    end = at + NULL.length;
                    value = null;
                } else {
                    end = type == int.class ? integerEnd(json, at)
                            : type == double.class || type == Double.class ? numberEnd(json, at)
                            : stringEnd(json, at);
                    value = end < 0 ? null : value(type, json, at, end);
                    if (value == null) {
                        return null;
                    }
                    if (follower != null && i < TIME && i != UUID && type == String.class) {
                        // The identity a follower keeps: one copy of what other GPUs say alike.
                        value = shared((String) value);
                    }
                }
                field.setter().accept(builder, value);
                at = end;
            }
            if (at != json.length - 1 || json[at] != '}') {
                return null;
            }
            TelemetrySample sample = builder.build();
            if (follower != null && !repeated) {
                follower.heading = Arrays.copyOf(json, headingEnd);
                follower.headed = sample;
            }
            return sample;
        }

        /**
         * {@code text} as read before, if it was read lately, else {@code text}. A fleet's GPUs
         * share their model, instance type, provider, region, job and team, and a node's GPUs its
         * host and instance: the followers of 100,000 GPUs hold a few thousand copies of them rather
         * than 800,000, and the samples whose identity is taken from their follower's (and checked
         * again as the sample is built) touch strings other GPUs' samples have just touched.
         *
         * <p>A fixed table, one string per slot, the newer taking the slot: it holds at most
         * {@link #SHARED_SLOTS} strings, whatever the input. Threads share it without locks: a slot
         * holds a whole reference to an immutable string, and a string lost to a race is only not shared.
         */
        private static String shared(String text) {
            int slot = text.hashCode() & (SHARED_SLOTS - 1);
            String known = SHARED[slot];
            if (text.equals(known)) {
                return known;
            }
            SHARED[slot] = text;
            return text;
        }

        /**
         * The value of a field of {@code type} from {@code json[start, end)}, or null when the parser must judge it.
         */
        private static Object value(Class<?> type, byte[] json, int start, int end) {
            if (type == int.class) {
                int index = 0;
                for (int i = start; i < end; i++) {
                    index = index * 10 + (json[i] - '0');
                }
                return index;
            }
            if (type == double.class || type == Double.class) {
                double number = decimal(json, start, end);
                return Double.isInfinite(number) ? null : number;
            }
            String text = new String(json, start + 1, end - start - 2, StandardCharsets.US_ASCII);
            if (type == String.class) {
                return text;
            }
            if (type == Instant.class) {
                return UtcInstants.parse(text);
            }
            try {
                return Lifecycle.fromWire(text);
            } catch (IllegalArgumentException unknown) {
                return null;
            }
        }

        /**
         * The double nearest to the JSON number in {@code json[start, end)}. Agents write short decimals
         * (0.8734, 612.4, 3.5357E10): with at most 15 significant digits and a power of ten up to 22 the
         * digits and the power are both exact doubles, and one division or multiplication rounds
         * correctly; {@link Double#parseDouble} reads anything else.
         */
        private static double decimal(byte[] json, int start, int end) {
            int at = start;
            boolean negative = json[at] == '-';
            if (negative) {
                at++;
            }
            long digits = 0;
            int significant = 0;
            int scale = 0;
            boolean fraction = false;
            for (; at < end && json[at] != 'e' && json[at] != 'E'; at++) {
                byte b = json[at];
                if (b == '.') {
                    fraction = true;
                    continue;
                }
                if (digits != 0 || b != '0') {
                    significant++;
                }
                digits = digits * 10 + (b - '0');
                if (fraction) {
                    scale--;
                }
                if (significant > 15) {
                    return parsed(json, start, end);
                }
            }
            if (at < end) {
                int exponent = 0;
                boolean below = json[++at] == '-';
                if (json[at] == '-' || json[at] == '+') {
                    at++;
                }
                for (; at < end; at++) {
                    exponent = exponent * 10 + (json[at] - '0');
                    if (exponent > 400) {
                        return parsed(json, start, end);
                    }
                }
                scale += below ? -exponent : exponent;
            }
            if (scale < -22 || scale > 22) {
                return parsed(json, start, end);
            }
            double value = scale < 0 ? digits / POWERS_OF_TEN[-scale] : digits * POWERS_OF_TEN[scale];
            return negative ? -value : value;
        }

        private static double parsed(byte[] json, int start, int end) {
            return Double.parseDouble(new String(json, start, end - start, StandardCharsets.US_ASCII));
        }

        private static boolean matches(byte[] json, int at, byte[] expected) {
            if (at + expected.length > json.length) {
                return false;
            }
            for (int i = 0; i < expected.length; i++) {
                if (json[at + i] != expected[i]) {
                    return false;
                }
            }
            return true;
        }

        /** The end of a quoted string of printable ASCII without escapes starting at {@code at}, or -1. */
        private static int stringEnd(byte[] json, int at) {
            if (at >= json.length || json[at] != '"') {
                return -1;
            }
            for (int i = at + 1; i < json.length; i++) {
                byte b = json[i];
                if (b == '"') {
                    return i + 1;
                }
                if (b < 0x20 || b > 0x7e || b == '\\') {
                    return -1;
                }
            }
            return -1;
        }

        /** The end of a non-negative integer of at most nine digits, without leading zeros, or -1. */
        private static int integerEnd(byte[] json, int at) {
            int i = at;
            while (i < json.length && i - at < 10 && isDigit(json[i])) {
                i++;
            }
            boolean valid = i > at && i - at <= 9 && (json[at] != '0' || i - at == 1);
            return valid ? i : -1;
        }

        /** The end of a number in JSON's grammar starting at {@code at}, or -1. */
        private static int numberEnd(byte[] json, int at) {
            int i = at;
            if (i < json.length && json[i] == '-') {
                i++;
            }
            int digits = i;
            while (i < json.length && isDigit(json[i])) {
                i++;
            }
            if (i == digits || json[digits] == '0' && i - digits > 1) {
                return -1;
            }
            if (i < json.length && json[i] == '.') {
                int fraction = ++i;
                while (i < json.length && isDigit(json[i])) {
                    i++;
                }
                if (i == fraction) {
                    return -1;
                }
            }
            if (i < json.length && (json[i] == 'e' || json[i] == 'E')) {
                i++;
                if (i < json.length && (json[i] == '+' || json[i] == '-')) {
                    i++;
                }
                int exponent = i;
                while (i < json.length && isDigit(json[i])) {
                    i++;
                }
                if (i == exponent) {
                    return -1;
                }
            }
            return i;
        }

        private static boolean isDigit(byte b) {
            return b >= '0' && b <= '9';
        }
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
    private record Field<T>(String name, Class<T> type, ValueReader<T> reader, BiConsumer<Builder, T> setter) {

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
