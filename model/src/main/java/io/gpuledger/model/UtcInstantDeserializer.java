package io.gpuledger.model;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import java.io.IOException;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * The mapping's reader of instants: the contract's own form ({@link UtcInstants}) directly, a
 * number refused (the contract's instants are strings), every other string, and every other
 * refusal, by the JSR-310 module's deserializer.
 */
final class UtcInstantDeserializer extends StdScalarDeserializer<Instant> implements ContextualDeserializer {

    /** What databind would take for epoch seconds in a string: digits, with a fraction or not. */
    private static final Pattern EPOCH = Pattern.compile("-?\\d+(\\.\\d*)?");

    private final JsonDeserializer<?> databind;

    UtcInstantDeserializer() {
        this(InstantDeserializer.INSTANT);
    }

    private UtcInstantDeserializer(JsonDeserializer<?> databind) {
        super(Instant.class);
        this.databind = databind;
    }

    @Override
    public JsonDeserializer<?> createContextual(DeserializationContext context, BeanProperty property)
            throws JsonMappingException {
        JsonDeserializer<?> contextual = ((ContextualDeserializer) databind).createContextual(context, property);
        return contextual == databind ? this : new UtcInstantDeserializer(contextual);
    }

    @Override
    public Instant deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_STRING) {
            Instant utc = UtcInstants.parse(parser.getText());
            if (utc != null) {
                return utc;
            }
        }
        // Databind would read a number, or a string of one, as epoch seconds; whether a writer meant
        // seconds or milliseconds cannot be told, so it is refused rather than guessed at.
        boolean number = token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT;
        if (number || token == JsonToken.VALUE_STRING) {
            String text = parser.getText().trim();
            if (number || EPOCH.matcher(text).matches()) {
                throw MismatchedInputException.from(parser, Instant.class, "an instant must be an ISO-8601 string"
                        + " such as 2026-03-01T12:00:00Z, not the number " + text);
            }
        }
        return (Instant) databind.deserialize(parser, context);
    }
}
