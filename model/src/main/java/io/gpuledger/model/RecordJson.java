// Over 400 lines: the short path and its fallback to databind must agree field by field, so they stay together.
package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads a record of the contract as {@code Json.read(json, type)} does, in less time when the JSON is in the
 * form {@link Json#write} gives it (about 85% of it for a usage window: {@code RecordJsonBenchmark}). The alert
 * service reads every window update the cost engine sends, thousands a second, and reading them took a third
 * of its fleet reader's time. Most of that is the parser's own work, tokenising and converting numbers, which
 * this shares; what it saves is databind's way of building a record: each value buffered by name, the
 * creator's properties looked up, nested records the same.
 *
 * <p>The short path walks the parser's tokens (white space between them is no matter) and expects each component
 * in the record's order, each value in the form the writer gives it (a string, a number of the component's
 * kind, a UTC instant such as {@code 2026-03-01T12:00:00Z}, an enum as written, null where a reference may be
 * null, or no field at all where the writer leaves a null out), then calls the record's constructor, which
 * validates. It passes over the fields the writer adds (derived values such as {@code costPerHour}, which
 * databind ignores on reading). Anything else, from a field out of order or repeated to a number given as a
 * string, a missing required field, a syntax error or a value the constructor refuses, sends the whole record
 * to {@link Json#read}: what is accepted, coerced and refused, and the field a refusal names, stay databind's.
 *
 * <p>Thread-safe; one reader a record type ({@link #of}).
 */
public final class RecordJson<T extends Record> {

    private static final JsonFactory FACTORY = Json.MAPPER.getFactory();
    private static final Map<Class<?>, RecordJson<?>> READERS = new ConcurrentHashMap<>();

    /** Thrown where the short path gives up; no stack trace: it is not an error, and may be common. */
    private static final class Detour extends RuntimeException {
        private static final Detour INSTANCE = new Detour();

        private Detour() {
            super("left to databind", null, false, false);
        }
    }

    private final Class<T> type;
    private final Constructor<T> constructor;
    private final SerializableString[] names;
    /** Each component's position by its name. */
    private final Map<String, Integer> positions;
    /** By position: whether databind passes null when the component is missing (a reference, not required). */
    private final boolean[] omissible;
    /**
     * By position: what databind passes for the component when it is missing (null, or 0 for an
     * {@link #emptyWhenAbsent} number).
     */
    private final Object[] absent;
    private final ValueReader[] values;

    private RecordJson(Class<T> type) {
        this.type = type;
        RecordComponent[] components = type.getRecordComponents();
        names = new SerializableString[components.length];
        values = new ValueReader[components.length];
        omissible = new boolean[components.length];
        absent = new Object[components.length];
        Class<?>[] parameterTypes = new Class<?>[components.length];
        Map<String, Integer> byName = new HashMap<>();
        for (int i = 0; i < components.length; i++) {
            RecordComponent component = components[i];
            JsonProperty property = plainProperty(type, component);
            names[i] = new SerializedString(component.getName());
            values[i] = valueReader(component.getGenericType(), type);
            omissible[i] = !component.getType().isPrimitive() && (property == null || !property.required())
                    || emptyWhenAbsent(component);
            absent[i] = emptyWhenAbsent(component) ? 0.0 : null;
            parameterTypes[i] = component.getType();
            byName.put(component.getName(), i);
        }
        positions = Map.copyOf(byName);
        try {
            constructor = type.getDeclaredConstructor(parameterTypes);
            constructor.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("a record has its canonical constructor: " + type, e);
        }
    }

    /**
     * The component's {@code @JsonProperty}, if any, after checking that databind maps the component by its own
     * name and nothing else: a renamed, aliased or otherwise annotated component (or record) has no short path,
     * which would read its field as missing where databind reads it.
     */
    private static JsonProperty plainProperty(Class<?> owner, RecordComponent component) {
        for (Annotation annotation : owner.getAnnotations()) {
            if (isJackson(annotation) && !(annotation instanceof JsonInclude)) {
                throw new IllegalArgumentException(owner.getSimpleName() + ": no short path under " + annotation);
            }
        }
        JsonProperty property = null;
        for (Annotation annotation : component.getAccessor().getAnnotations()) {
            if (annotation instanceof JsonProperty named && (named.value().isEmpty()
                    || named.value().equals(component.getName()))) {
                property = named;
            } else if (isJackson(annotation) && !(annotation instanceof JsonSetter && emptyWhenAbsent(component))) {
                throw new IllegalArgumentException(owner.getSimpleName() + "." + component.getName()
                        + ": no short path under " + annotation);
            }
        }
        return property;
    }

    /**
     * Whether the component is a {@code double} that databind reads as 0 when it is missing or null
     * ({@code @JsonSetter(nulls = Nulls.AS_EMPTY)} and nothing else): a figure added to the contract
     * later, which records written before it lack.
     */
    private static boolean emptyWhenAbsent(RecordComponent component) {
        JsonSetter setter = component.getAccessor().getAnnotation(JsonSetter.class);
        return setter != null && component.getType() == double.class && setter.nulls() == Nulls.AS_EMPTY
                && setter.contentNulls() == Nulls.DEFAULT && setter.value().isEmpty();
    }

    private static boolean isJackson(Annotation annotation) {
        return annotation.annotationType().getPackageName().startsWith("com.fasterxml.jackson");
    }

    /**
     * The reader of {@code type}.
     *
     * @throws IllegalArgumentException when a component is of a kind this reader does not know (it knows
     *         strings, numbers, booleans, instants, enums, records, lists of strings and maps of numbers), or
     *         databind maps the record or a component otherwise than by the components' names
     */
    @SuppressWarnings("unchecked")
    public static <T extends Record> RecordJson<T> of(Class<T> type) {
        RecordJson<?> reader = READERS.get(type);
        if (reader == null) {
            // Not computeIfAbsent: making a reader makes those of its nested records first.
            RecordJson<?> made = new RecordJson<>(type);
            reader = READERS.putIfAbsent(type, made);
            reader = reader == null ? made : reader;
        }
        return (RecordJson<T>) reader;
    }

    /**
     * Parses and validates one record, as {@link Json#read(byte[], Class)} does.
     *
     * @throws InvalidRecordException naming the field that is malformed, missing or out of range
     */
    public T read(byte[] json) {
        T fast = readWritersForm(json);
        if (fast != null) {
            return fast;
        }
        return Json.read(json, type);
    }

    /** The record when {@code json} is in the writer's form and valid; null when databind must judge it. */
    T readWritersForm(byte[] json) {
        if (json == null || json.length == 0) {
            return null;
        }
        try (JsonParser parser = FACTORY.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            T value = readObject(parser);
            return parser.nextToken() == null ? value : null;
        } catch (Detour | IOException e) {
            return null; // a syntax error among them: databind reports it
        }
    }

    /**
     * Reads the object whose start the parser is on, up to and including its end. Components are expected in the
     * record's order; one the writer leaves out when null (a {@code @JsonInclude} record) may be missing, as long
     * as databind would pass null for it too: a reference that is not required.
     */
    private T readObject(JsonParser parser) throws IOException {
        Object[] arguments = absent.clone();
        int next = 0;
        while (true) {
            if (next < names.length && parser.nextFieldName(names[next])) {
                parser.nextToken();
                arguments[next] = values[next].read(parser);
                next++;
                continue;
            }
            JsonToken token = next < names.length ? parser.currentToken() : parser.nextToken();
            if (token != JsonToken.FIELD_NAME) {
                break;
            }
            Integer position = positions.get(parser.currentName());
            if (position == null) {
                parser.nextToken();
                parser.skipChildren(); // a field the writer derives, such as costPerHour: databind ignores it too
                continue;
            }
            if (position < next) {
                throw Detour.INSTANCE; // repeated, or out of order: left to databind
            }
            leftOut(next, position);
            next = position;
            parser.nextToken();
            arguments[next] = values[next].read(parser);
            next++;
        }
        if (parser.currentToken() != JsonToken.END_OBJECT) {
            throw Detour.INSTANCE;
        }
        leftOut(next, names.length);
        try {
            return constructor.newInstance(arguments);
        } catch (InvocationTargetException e) {
            throw Detour.INSTANCE; // the constructor refused a value; databind names it as the contract does
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + type.getSimpleName(), e);
        }
    }

    /** Checks that components {@code from} to {@code to} (exclusive), absent, are null to databind too. */
    private void leftOut(int from, int to) {
        for (int i = from; i < to; i++) {
            if (!omissible[i]) {
                throw Detour.INSTANCE;
            }
        }
    }

    /** Reads one value; the parser is on its first token, and is left on its last. */
    @FunctionalInterface
    private interface ValueReader {
        Object read(JsonParser parser) throws IOException;
    }

    private static ValueReader valueReader(Type generic, Class<?> owner) {
        if (generic instanceof ParameterizedType parameterized) {
            return collectionReader(parameterized, owner);
        }
        Class<?> type = (Class<?>) generic;
        if (type == String.class) {
            return nullOr(parser -> parser.currentToken() == JsonToken.VALUE_STRING ? parser.getText() : detour());
        }
        if (type == int.class) {
            return RecordJson::integer;
        }
        if (type == Integer.class) {
            return nullOr(RecordJson::integer);
        }
        if (type == long.class) {
            return RecordJson::longInteger;
        }
        if (type == double.class) {
            return RecordJson::number;
        }
        if (type == Double.class) {
            return nullOr(RecordJson::number);
        }
        if (type == boolean.class) {
            return RecordJson::bool;
        }
        if (type == Boolean.class) {
            return nullOr(RecordJson::bool);
        }
        if (type == Instant.class) {
            return nullOr(RecordJson::instant);
        }
        if (type.isEnum()) {
            Map<String, Object> constants = writtenConstants(type);
            return nullOr(parser -> {
                Object constant = parser.currentToken() == JsonToken.VALUE_STRING
                        ? constants.get(parser.getText()) : null;
                return constant != null ? constant : detour();
            });
        }
        if (type.isRecord()) {
            RecordJson<?> nested = of(type.asSubclass(Record.class));
            return nullOr(parser -> parser.currentToken() == JsonToken.START_OBJECT
                    ? nested.readObject(parser) : detour());
        }
        throw new IllegalArgumentException(owner.getSimpleName() + ": no short path for a " + generic);
    }

    private static ValueReader collectionReader(ParameterizedType parameterized, Class<?> owner) {
        Type[] arguments = parameterized.getActualTypeArguments();
        if (parameterized.getRawType() == List.class && arguments[0] == String.class) {
            return nullOr(RecordJson::strings);
        }
        if (parameterized.getRawType() == Map.class && arguments[0] == String.class && arguments[1] == Double.class) {
            return nullOr(RecordJson::numbersByName);
        }
        throw new IllegalArgumentException(owner.getSimpleName() + ": no short path for a " + parameterized);
    }

    /** Null for the JSON literal, as databind passes to a reference component; otherwise {@code reader}'s. */
    private static ValueReader nullOr(ValueReader reader) {
        return parser -> parser.currentToken() == JsonToken.VALUE_NULL ? null : reader.read(parser);
    }

    private static Object detour() {
        throw Detour.INSTANCE;
    }

    private static Object integer(JsonParser parser) throws IOException {
        if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT
                && parser.getNumberType() == JsonParser.NumberType.INT) {
            return parser.getIntValue();
        }
        return detour();
    }

    private static Object longInteger(JsonParser parser) throws IOException {
        if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT
                && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            return parser.getLongValue();
        }
        return detour();
    }

    /**
     * A number of either kind, read as databind reads a double: the parser's own double value. One beyond a
     * double's range is left to databind.
     */
    private static Object number(JsonParser parser) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_NUMBER_FLOAT
                || token == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            double number = parser.getDoubleValue();
            return Double.isInfinite(number) ? detour() : number;
        }
        return detour();
    }

    private static Object bool(JsonParser parser) {
        JsonToken token = parser.currentToken();
        return token == JsonToken.VALUE_TRUE ? Boolean.TRUE : token == JsonToken.VALUE_FALSE ? Boolean.FALSE : detour();
    }

    private static Object instant(JsonParser parser) throws IOException {
        Instant instant = parser.currentToken() == JsonToken.VALUE_STRING ? UtcInstants.parse(parser.getText()) : null;
        return instant != null ? instant : detour();
    }

    private static Object strings(JsonParser parser) throws IOException {
        if (parser.currentToken() != JsonToken.START_ARRAY) {
            return detour();
        }
        List<String> strings = new ArrayList<>();
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.VALUE_STRING) {
            strings.add(parser.getText());
        }
        return token == JsonToken.END_ARRAY ? strings : detour();
    }

    private static Object numbersByName(JsonParser parser) throws IOException {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            return detour();
        }
        Map<String, Double> numbers = new LinkedHashMap<>();
        String name;
        while ((name = parser.nextFieldName()) != null) {
            parser.nextToken();
            if (numbers.put(name, (Double) number(parser)) != null) {
                return detour(); // a repeated name: databind keeps the last, which this need not judge
            }
        }
        return parser.currentToken() == JsonToken.END_OBJECT ? numbers : detour();
    }

    /**
     * Each constant of {@code type} by the text {@link Json#write} gives it, where databind reads that text back
     * as the same constant; any other spelling is left to databind.
     */
    private static Map<String, Object> writtenConstants(Class<?> type) {
        Map<String, Object> constants = new HashMap<>();
        for (Object constant : type.getEnumConstants()) {
            byte[] written = Json.write(constant);
            if (written.length > 1 && written[0] == '"' && Json.read(written, type) == constant) {
                constants.put(Json.read(written, String.class), constant);
            }
        }
        return Map.copyOf(constants);
    }
}
