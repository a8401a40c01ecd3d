package io.gpuledger.model;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.stream.Collectors;

/** The one JSON mapping of the wire contract, and the translation of its failures into field errors. */
public final class Json {

    /**
     * Unknown fields are ignored so that consumers of a {@code .v1} topic keep working when a
     * producer adds fields; a missing required field or an explicit null number is an error.
     */
    public static final ObjectMapper MAPPER = mapper(true);

    /**
     * The same mapping without Blackbird, for the benchmarks that weigh it (see {@link Compared}).
     */
    private static final ObjectMapper WITHOUT_BLACKBIRD = mapper(false);

    /**
     * The mapper that does, in a benchmark, the work of a piece of our own that {@code property}
     * replaces ({@link Compared}): databind with Blackbird ({@code databind}) or without
     * ({@code databind-plain}); null when it names ours.
     */
    static ObjectMapper instead(String property) {
        return switch (Compared.choice(property, "databind", "databind-plain")) {
            case "databind" -> MAPPER;
            case "databind-plain" -> WITHOUT_BLACKBIRD;
            default -> null;
        };
    }

    private static ObjectMapper mapper(boolean blackbird) {
        ObjectMapper mapper = new ObjectMapper(JsonFactory.builder()
                    // Schubfach: the shortest digits that read back as the same double, in less time.
                    .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
                    // Correctly rounded like Double.parseDouble: the same doubles, in less time.
                    .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
                    .build())
            .registerModule(new JavaTimeModule());
        if (blackbird) {
            // Properties read and written through generated lambdas rather than reflection.
            mapper.registerModule(new BlackbirdModule());
        }
        return mapper
            // Registered after the JSR-310 module, so it reads instants, and leaves it all but the contract's form.
            .registerModule(new SimpleModule("utc-instants").addDeserializer(Instant.class,
                    new UtcInstantDeserializer()))
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /**
     * As {@link #MAPPER}, for bodies that come from outside the pipeline (a job's work report):
     * a value of the wrong JSON type is refused rather than converted ({@code "rank": 1.5},
     * {@code "jobId": 7}, {@code "workUnits": "1000"}), and so is a key given twice, which
     * would otherwise let the last one win unseen.
     */
    private static final ObjectMapper STRICT = strict(MAPPER.copy());

    /** The field name used for a problem with the record as a whole. */
    public static final String ROOT = "$";

    private Json() {
    }

    public static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    public static String writeString(Object value) {
        return new String(write(value), java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Parses and validates one record; never null (the JSON literal {@code null} is refused).
     *
     * @throws InvalidRecordException naming the field that is malformed, missing or out of range
     */
    public static <T> T read(byte[] json, Class<T> type) {
        return read(json, MAPPER.constructType(type));
    }

    /** As {@link #read(byte[], Class)}, for a generic type such as a {@link CloudEvent} of some data. */
    public static <T> T read(byte[] json, JavaType type) {
        return read(json, type, MAPPER);
    }

    /**
     * As {@link #read(byte[], Class)}, refusing what that converts: a value of another JSON type
     * than its field's, a key given twice. For bodies from outside the pipeline.
     *
     * @throws InvalidRecordException naming the field that is malformed, missing or out of range
     */
    public static <T> T readStrict(byte[] json, Class<T> type) {
        return read(json, STRICT.constructType(type), STRICT);
    }

    static <T> T read(byte[] json, JavaType type, ObjectMapper mapper) {
        Class<?> raw = type.getRawClass();
        if (json == null || json.length == 0) {
            throw new InvalidRecordException(ROOT, "empty record, expected a JSON " + raw.getSimpleName());
        }
        T value;
        try {
            value = mapper.readValue(json, type);
        } catch (JacksonException e) {
            throw translate(e, raw);
        } catch (IOException e) {
            throw new InvalidRecordException(ROOT, "unreadable " + raw.getSimpleName() + ": " + e.getMessage(), e);
        }
        if (value == null) {
            // Databind's answer to the JSON literal null: no record, which every caller would fail on.
            throw new InvalidRecordException(ROOT, "expected a JSON " + raw.getSimpleName() + ", found null");
        }
        return value;
    }

    private static ObjectMapper strict(ObjectMapper mapper) {
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        mapper.enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);
        for (CoercionInputShape shape : new CoercionInputShape[] {CoercionInputShape.Integer,
                CoercionInputShape.Float, CoercionInputShape.Boolean}) {
            mapper.coercionConfigFor(LogicalType.Textual).setCoercion(shape, CoercionAction.Fail);
        }
        for (LogicalType number : new LogicalType[] {LogicalType.Integer, LogicalType.Float, LogicalType.Boolean}) {
            mapper.coercionConfigFor(number).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        }
        mapper.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        return mapper;
    }

    /** The field error a Jackson failure stands for; also used by readers that walk the parser themselves. */
    static InvalidRecordException translate(JacksonException e, Class<?> type) {
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidRecordException invalid) {
                // A record constructor rejected a value; keep its field path, prefixed by nesting.
                String outer = parentPath(e);
                String field = outer.equals(ROOT) ? invalid.field() : outer + "." + invalid.field();
                return new InvalidRecordException(field, invalid.getMessage().substring(invalid.field().length() + 2),
                        e);
            }
        }
        String field = e instanceof JsonMappingException mapping ? path(mapping) : parserPath(e);
        String problem = e.getOriginalMessage();
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        if (root != e && root.getMessage() != null) {
            problem = root.getMessage();
        }
        return new InvalidRecordException(field, "invalid " + type.getSimpleName() + ": " + firstLine(problem), e);
    }

    /** The path of the (nested) object whose constructor failed; its own error names the field inside it. */
    private static String parentPath(JacksonException e) {
        return e instanceof JsonMappingException mapping ? path(mapping) : ROOT;
    }

    /** Where a syntax error sits, from the parser's context: {@code smActive} in {@code {"smActive":NaN}}. */
    private static String parserPath(JacksonException e) {
        if (!(e.getProcessor() instanceof JsonParser parser)) {
            return ROOT;
        }
        Deque<String> names = new ArrayDeque<>();
        for (JsonStreamContext context = parser.getParsingContext(); context != null; context = context.getParent()) {
            if (context.getCurrentName() != null) {
                names.addFirst(context.getCurrentName());
            }
        }
        return names.isEmpty() ? ROOT : String.join(".", names);
    }

    private static String path(JsonMappingException e) {
        String path = e.getPath().stream()
                .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                .collect(Collectors.joining("."));
        return path.isEmpty() ? ROOT : path;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "malformed";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
